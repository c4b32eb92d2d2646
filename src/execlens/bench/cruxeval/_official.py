"""CRUXEval's official scorer (evaluate_generations.py), quirks included.

* input mode skips an answer lacking the substring ``f(``; output mode skips one
  containing the exact substring ``f(<input>)``.  Skips are *not recorded*, so the
  pass@k denominator shrinks -- unless no check passed, in which case the list becomes
  ``[False] * len(generations)``;
* the script ignores ``--mode`` and scores a file as input prediction when its path
  contains ``input`` (:func:`cruxeval_mode_from_path`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from execlens.engine import Limits
from execlens.judge import JUDGE_LIMITS, AssertCheckScorer

if TYPE_CHECKING:
    from execlens.tasks import Task

__all__ = ["CruxEvalOfficialScorer", "cruxeval_mode_from_path"]

TASKS = ("input", "output")


def cruxeval_mode_from_path(path: str) -> str:
    """The task CRUXEval's script scores a file as: ``input`` if the path says so.

    The official script ignores ``--mode`` and checks whether the substring ``input``
    occurs anywhere in the generations path; otherwise it scores output prediction.
    """
    return "input" if "input" in str(path) else "output"


class CruxEvalOfficialScorer(AssertCheckScorer):
    """CRUXEval's ``evaluate_generations.py`` scoring for ``task`` ``input`` or ``output``."""

    def __init__(self, task: str, *, limits: Limits = JUDGE_LIMITS) -> None:
        if task not in TASKS:
            raise ValueError(f"task must be 'input' or 'output', got {task!r}")
        super().__init__(limits=limits)
        self.task = task

    def skip(self, task: Task, generation: str) -> str | None:
        """The official substring filter of the task (``task.input``: CRUXEval's argument
        list, pasted into ``f(...)`` as the script does)."""
        if self.task == "input" and "f(" not in generation:
            return "input mode: the answer lacks the substring 'f('"
        if self.task == "output" and f"f({task.input})" in generation:
            return "output mode: the answer contains the reference call 'f(<input>)'"
        return None

    def reset(self, executed: list[bool], total: int) -> list[bool]:
        """Only a list without any True is replaced (by one of full length)."""
        return executed if True in executed else [False] * total
