"""Official scoring of the pasted-assertion kind (CRUXEval's and LiveCodeBench's scripts).

Both official scripts paste the model's answer into source and execute
``<code>\nassert <reference output> == <answer>`` for 3 s; a check passes when that
raises nothing.  Here the same source runs in the engine, split as program = the
prediction task's program and call = the assert statement (same namespace, same order,
same result).  Each generation is code of its own: its check runs in a forked child
of its own (``Job.origin`` left ``None``), never beside another generation's -- one
generation cannot make another pass.

What differs between benchmarks -- which answers the script skips unexecuted and how it
rebuilds the verdict list afterwards -- is declared by each benchmark folder in a
subclass of :class:`AssertCheckScorer`.  Equality is Python ``==`` between the reference
literal and whatever the answer evaluates to, in the child: ``[] or True``, an
always-equal object, ``1.0 == 1``... (the quirks ``strict`` mode exists to fix).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from execlens.engine import Job, Limits
from execlens.judge._limits import JUDGE_LIMITS
from execlens.judge._outcomes import failure_verdict
from execlens.judge._scoring import SampleScore, ScorePlan
from execlens.judge._verdict import Verdict, VerdictStatus

if TYPE_CHECKING:
    from execlens.engine import Outcome
    from execlens.tasks import Task

__all__ = ["AssertCheckScorer", "official_check_verdict"]


def official_check_verdict(outcome: Outcome) -> Verdict:
    """The verdict for one executed ``assert <output> == <answer>`` check."""
    if outcome.ok:
        return Verdict.passing()
    if outcome.exception is not None and outcome.exception.type == "AssertionError":
        return Verdict.failing(
            VerdictStatus.WRONG, "assertion", "the assertion `<output> == <answer>` failed"
        )
    return failure_verdict(outcome)


def _check_job(task: Task, generation: str, limits: Limits) -> Job:
    # The official source is f"{code}\nassert {output} == {generation}"; the call runs
    # in the program's namespace right after it, so splitting changes nothing.  No
    # origin: the call is the generation's code, so the check shares no process.
    return Job(program=task.program, call=f"assert {task.reference} == {generation}", limits=limits)


class AssertCheckScorer:
    """An official scorer of the pasted-assertion kind: one check per kept generation.

    A benchmark folder subclasses it with its own filter (:meth:`skip`), its reset rule
    (:meth:`reset`) and, if needed, the task it really runs (:meth:`adapt`, e.g. an
    import block prepended).  The defaults skip nothing and keep the list as executed.
    Tasks are prediction tasks (:func:`execlens.tasks.prediction_task`): ``reference``
    is the output literal's text.
    """

    name = "official"

    def __init__(self, *, limits: Limits = JUDGE_LIMITS) -> None:
        self.limits = limits

    def skip(self, task: Task, generation: str) -> str | None:
        """Why the official script drops ``generation`` unexecuted, or ``None`` to run it."""
        return None

    def reset(self, executed: list[bool], total: int) -> list[bool]:
        """The verdict list pass@k reads, from the executed checks' results."""
        return executed

    def adapt(self, task: Task) -> Task:
        """The task as the official script runs it (default: unchanged)."""
        return task

    def plan(self, task: Task, generations: Sequence[str]) -> ScorePlan:
        """Checks for every generation the official filter keeps."""
        task = self.adapt(task)
        gens = list(generations)
        skips = [self.skip(task, g) for g in gens]
        run_at = [i for i, skip in enumerate(skips) if skip is None]
        jobs = [_check_job(task, gens[i], self.limits) for i in run_at]

        def finish(outcomes: Sequence[Outcome]) -> SampleScore:
            if len(outcomes) != len(jobs):
                raise ValueError(f"expected {len(jobs)} outcomes, got {len(outcomes)}")
            verdicts: list[Verdict] = []
            executed: list[bool] = []
            by_index = dict(zip(run_at, outcomes))
            for i, skip in enumerate(skips):
                if skip is not None:
                    verdicts.append(Verdict.failing(VerdictStatus.SKIPPED, "filter", skip))
                    continue
                verdict = official_check_verdict(by_index[i])
                verdicts.append(verdict)
                executed.append(verdict.passed)
            scored = self.reset(executed, len(gens))
            return SampleScore(
                task.id, self.name, verdicts, scored, info={"skipped": len(gens) - len(run_at)}
            )

        return ScorePlan(jobs, finish)
