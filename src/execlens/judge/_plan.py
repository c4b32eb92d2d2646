"""One answer's judgement as data: the engine jobs it needs (maybe none), then a verdict.

Every judge that may need execution returns a :class:`JudgePlan`, so that whoever holds
the engine (the :class:`~execlens.judge.Executor`, a reward function, a test) can batch
the jobs of many answers.  :func:`guarded` turns a judge's own failure on one answer into
that answer's ``scoring_error`` verdict, so one odd answer never ends a run.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from execlens.judge._verdict import Verdict, VerdictStatus

if TYPE_CHECKING:
    from execlens.engine import Job, Outcome

__all__ = ["JudgePlan", "guarded", "plan_verdicts", "scoring_error"]


def scoring_error(exc: BaseException, **data: Any) -> Verdict:
    """The verdict of an answer the judge failed on: ``scoring_error`` naming the exception."""
    return Verdict.failing(
        VerdictStatus.SCORING_ERROR,
        type(exc).__name__,
        f"{type(exc).__name__}: {exc}"[:500],
        **data,
    )


@dataclass(slots=True)
class JudgePlan:
    """The jobs one answer needs, and how their outcomes become its verdict."""

    jobs: list[Job]
    finish: Callable[[Sequence[Outcome]], Verdict]

    @classmethod
    def done(cls, verdict: Verdict) -> JudgePlan:
        """A plan that needs no execution."""
        return cls([], lambda outcomes: verdict)

    def verdict(self, outcomes: Sequence[Outcome] = ()) -> Verdict:
        """The verdict, given the outcomes of :attr:`jobs` in order.

        A failure of the judge's own code becomes a ``scoring_error`` verdict; a wrong
        number of outcomes is the caller's bug and raises ``ValueError``.
        """
        if len(outcomes) != len(self.jobs):
            raise ValueError(f"expected {len(self.jobs)} outcomes, got {len(outcomes)}")
        try:
            return self.finish(outcomes)
        except Exception as exc:  # noqa: BLE001 - one answer's failure must not end a run
            return scoring_error(exc)


def guarded(plan: Callable[..., JudgePlan | Verdict], *args: Any, **kwargs: Any) -> JudgePlan:
    """Call a judge (returning a plan or a verdict); its exception becomes the answer's
    ``scoring_error`` verdict instead of propagating."""
    try:
        result = plan(*args, **kwargs)
    except Exception as exc:  # noqa: BLE001 - one answer's failure must not end a run
        return JudgePlan.done(scoring_error(exc))
    return result if isinstance(result, JudgePlan) else JudgePlan.done(result)


def plan_verdicts(plans: Sequence[JudgePlan], outcomes: Sequence[Outcome]) -> list[Verdict]:
    """Each plan's verdict, given the outcomes of all the plans' jobs run as one batch (in
    plan order, as ``[job for plan in plans for job in plan.jobs]`` lists them).  A
    wrong number of outcomes is the caller's bug and raises ``ValueError``."""
    total = sum(len(plan.jobs) for plan in plans)
    if len(outcomes) != total:
        raise ValueError(f"expected {total} outcomes, got {len(outcomes)}")
    verdicts: list[Verdict] = []
    start = 0
    for plan in plans:
        stop = start + len(plan.jobs)
        verdicts.append(plan.verdict(outcomes[start:stop]))
        start = stop
    return verdicts
