"""The shape every REval judgement takes: engine jobs to run (maybe none), then a verdict."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from execlens.judge._verdict import Verdict

if TYPE_CHECKING:
    from execlens.engine import Job, Outcome

__all__ = ["REVAL_MODES", "REVAL_TASKS", "RevalPlan"]

REVAL_TASKS = ("coverage", "state", "path", "output")
REVAL_MODES = ("official", "strict")


@dataclass(slots=True)
class RevalPlan:
    """The jobs one answer needs, and how their outcomes become its verdict."""

    jobs: list[Job]
    finish: Callable[[Sequence[Outcome]], Verdict]

    @classmethod
    def done(cls, verdict: Verdict) -> RevalPlan:
        """A plan that needs no execution."""
        return cls([], lambda outcomes: verdict)

    def verdict(self, outcomes: Sequence[Outcome] = ()) -> Verdict:
        """The verdict, given the outcomes of :attr:`jobs` in order."""
        if len(outcomes) != len(self.jobs):
            raise ValueError(f"expected {len(self.jobs)} outcomes, got {len(outcomes)}")
        return self.finish(outcomes)
