"""The scorer protocol: plan the jobs a sample needs, then turn their outcomes into scores.

Scoring is split in two so that many samples (and both modes) can share one engine run:
a scorer's :meth:`Scorer.plan` returns the jobs to execute and a ``finish`` function;
whoever runs the jobs (:func:`score_samples`, or an RL reward) hands the outcomes back.
Plans that need no execution (strict output prediction) have no jobs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, runtime_checkable

from execlens.judge._verdict import Verdict

if TYPE_CHECKING:
    from execlens.engine import Job, Outcome

__all__ = ["SampleScore", "ScorePlan", "Scorer"]

#: What a scorer plans on: a :class:`~execlens.tasks.Task` for the judge's own scorers, a
#: benchmark's item type for that benchmark's (contravariant: a scorer of any item plans
#: on a task too).
ItemT = TypeVar("ItemT", contravariant=True)


@dataclass(slots=True)
class SampleScore:
    """One sample's generations judged by one scorer.

    ``verdicts`` has one entry per generation, in order.  ``scored`` is the list pass@k
    is computed from: for strict scorers ``[v.passed for v in verdicts]``; for official
    ones the list exactly as the official script records it (skips dropped, reset
    rules applied), so it may be shorter than ``verdicts``.
    """

    sample_id: str
    mode: str
    verdicts: list[Verdict]
    scored: list[bool]
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def n(self) -> int:
        """The pass@k denominator."""
        return len(self.scored)

    @property
    def correct(self) -> int:
        """How many entries of ``scored`` are True."""
        return sum(1 for v in self.scored if v is True)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form."""
        return {
            "sample_id": self.sample_id,
            "mode": self.mode,
            "scored": list(self.scored),
            "verdicts": [v.to_dict() for v in self.verdicts],
            **({"info": self.info} if self.info else {}),
        }


@dataclass(slots=True)
class ScorePlan:
    """The jobs one sample needs, and how to turn their outcomes into a score."""

    jobs: list[Job]
    finish: Callable[[Sequence[Outcome]], SampleScore]


@runtime_checkable
class Scorer(Protocol[ItemT]):
    """Judges all generations of one sample (inspect_ai's scorer shape, batch form).

    ``Scorer[Task]``: a sample is an :class:`execlens.tasks.Task` (CRUXEval-style problems
    are prediction tasks: :func:`execlens.tasks.prediction_task`); the score's sample id
    is ``task.id``.  A benchmark whose scorers read its own records (REval's, RE2-Bench's
    items ...) declares them ``Scorer[ItsItem]``, so the type says what ``plan`` takes.
    """

    @property
    def name(self) -> str:
        """The mode this scorer fills (``official``, ``strict`` ...); read-only, so a class
        attribute and a property both satisfy it."""
        ...

    def plan(self, task: ItemT, generations: Sequence[str]) -> ScorePlan:
        """The jobs to run for these generations, and the function scoring their outcomes."""
        ...
