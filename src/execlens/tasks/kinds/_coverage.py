"""``coverage``: is a line executed when the call runs?  (REval's first question.)"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from execlens.tasks.kinds._base import KindBase
from execlens.tasks.kinds._protocol import Example
from execlens.tasks.kinds._wording import run_phrase

if TYPE_CHECKING:
    from execlens.tasks._model import Task

__all__ = ["CoverageKind"]

_WORDS = frozenset({"YES", "NO", "TRUE", "FALSE"})


class CoverageKind(KindBase):
    """``reference``: ``true``/``false``; answered ``YES`` or ``NO``."""

    name = "coverage"
    scope = "site"
    default = True
    needs_line = True
    numbering = "prefix"
    answer_form = ("YES or NO", "YES")
    judge_rule = "coverage"
    description = "is line N executed on this run? (YES/NO, balanced)"
    example = Example(
        program="def f(x):\n    if x > 2:\n        return x*2\n    else:\n        return x",
        call="f(3)",
        line=3,
        reference=True,
        thought="x = 3, so x > 2 is true and line 3 runs.",
        answer="YES",
    )

    def site_reference(self, trace: Any, line: int, var: str | None) -> Any:
        """Whether the line ran."""
        return trace.covered(line)

    def question(self, task: Task) -> str:
        """Is line N executed?"""
        return f"When {run_phrase(task)} runs, is line {task.line} executed?"

    def answer_text(self, task: Task) -> str:
        """``YES`` or ``NO``."""
        return "YES" if task.reference else "NO"

    def well_formed(self, task: Task, answer: str) -> bool:
        """YES/NO (or TRUE/FALSE), any case, a full stop allowed."""
        return answer.rstrip(".").strip().upper() in _WORDS

    def explain(self, task: Task, run: str) -> Mapping[str, Any]:
        """The asked line and whether it ran."""
        line = int(task.line or 0)
        ran = bool(task.reference)
        return {
            "asked_line": line,
            "question": f"is line {line} executed when {run} runs?",
            "expected": "YES" if ran else "NO",
            "true_value": f"line {line} {'ran' if ran else 'never ran'}",
        }


KIND = CoverageKind()
