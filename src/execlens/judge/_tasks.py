"""Judging a task by its kind: one dispatch table over the generic judges.

A *task* is an ``execlens.tasks.Task`` (or anything shaped like one): ``id``, ``kind``,
``reference``, ``program`` and, by kind, ``function``/``call`` (input prediction: the
function the answer must call).  This is the one judge path: the runtime benchmark, the
rewards and synthesis' runtime tasks all judge through :func:`plan_task`.  A judge's failure on
one answer becomes its ``scoring_error``
verdict (:func:`~execlens.judge.guarded`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from execlens.judge._plan import JudgePlan, guarded, plan_verdicts
from execlens.judge._runtime import (
    judge_coverage,
    judge_output,
    judge_output_literal,
    judge_output_tolerant,
    judge_path,
    judge_state,
    plan_input,
    run_plan,
)
from execlens.judge._scoring import SampleScore, ScorePlan
from execlens.judge._trace import judge_trace
from execlens.judge._truth import no_truth_verdict, truth_from_runs, truth_jobs
from execlens.judge._verdict import Verdict
from execlens.tasks import NoTruth, TruthRun
from execlens.values import parse_call

if TYPE_CHECKING:
    from execlens.engine import Engine, Limits, Outcome

#: A strict answer reader: the answer as the judge reads it, or the verdict of an answer
#: that cannot be read (a benchmark's own strict reading: ``bench.BenchmarkBase.strict_answer``).
AnswerReader = Callable[[Any], "Any | Verdict"]

__all__ = ["TASK_JUDGES", "AnswerReader", "TaskScorer", "judge_task", "plan_task"]


def _function_of(task: Any) -> str:
    entry = getattr(task, "entry", None)  # execlens.tasks.Task: function, meta, call, "f"
    if entry:
        return str(entry)
    meta = getattr(task, "meta", None) or {}
    name = meta.get("entry_point") or meta.get("function_name")
    if name:
        return str(name)
    call = getattr(task, "call", None)
    if not call:
        raise ValueError(f"input task {getattr(task, 'id', '?')} has no reference call")
    return parse_call(call).name


def _tolerant(task: Any) -> bool:
    # CodeI/O's rule (``Task.compare``): answers are extracted JSON values, not text.
    return getattr(task, "compare", "exact") == "tolerant"


#: judge rule -> ``(task, answer) -> JudgePlan | Verdict``: the generic judges a kind
#: (``execlens.tasks.kinds``) names by its ``judge_rule`` (``input`` also takes the
#: ``limits`` of its runs).
TASK_JUDGES: dict[str, Callable[..., JudgePlan | Verdict]] = {
    "coverage": lambda task, answer: judge_coverage(bool(task.reference), answer),
    "path": lambda task, answer: judge_path(task.reference, answer, code=task.program),
    "state": lambda task, answer: judge_state(task.reference, answer),
    "output": lambda task, answer: (
        judge_output_tolerant(task.reference, answer)
        if _tolerant(task)
        else judge_output_literal(task.reference, answer)
        if isinstance(task.reference, str)
        else judge_output(task.reference, answer)
    ),
    "input": lambda task, answer, **options: plan_input(
        task.program,
        _function_of(task),
        task.reference,
        answer,
        compare=getattr(task, "compare", "exact"),
        **options,
    ),
    "trace": lambda task, answer: judge_trace(task.reference, answer),
}


def plan_task(task: Any, answer: Any, *, limits: Limits | None = None) -> JudgePlan:
    """The plan judging ``answer`` to ``task`` (jobs only for input prediction).

    The task's kind (``execlens.tasks.kinds``) names its rule: one of
    :data:`TASK_JUDGES`, or a callable of its own (a plug-in kind's).  An unknown
    ``task.kind`` raises ``ValueError`` naming the kinds; the judges' own failures become
    ``scoring_error`` verdicts.  A task with no truth (``tasks.NoTruth``) scores
    ``reference_error:no_truth``.  ``limits``: the engine limits of the runs an input
    prediction's answer needs (default: the judge's).
    """
    if isinstance(task.reference, NoTruth):
        return JudgePlan.done(no_truth_verdict(task.reference))
    from execlens.tasks.kinds import get_kind, kind_names

    name = getattr(task, "kind", None)
    try:
        rule = get_kind(str(name)).judge_rule
    except KeyError:
        raise ValueError(
            f"no judge for task kind {name!r} (kinds: {', '.join(kind_names())})"
        ) from None
    judge = TASK_JUDGES.get(rule) if isinstance(rule, str) else rule
    if judge is None:
        raise ValueError(
            f"task kind {name!r} names no judge {rule!r} (rules: {', '.join(TASK_JUDGES)})"
        )
    if limits is not None and rule == "input":
        return guarded(judge, task, answer, limits=limits)
    return guarded(judge, task, answer)


def judge_task(task: Any, answer: Any, *, engine: Engine | None = None) -> Verdict:
    """Judge one answer to one task (an input-prediction answer runs in ``engine``, or in
    a one-server engine started for the call)."""
    return run_plan(plan_task(task, answer), engine)


class TaskScorer:
    """The strict scorer of tasks: every answer judged by :func:`plan_task`.

    A :class:`~execlens.judge.Scorer` over tasks (``plan(task, answers)``), so tasks of
    any benchmark go through :func:`~execlens.judge.score_samples` and its executor; the
    sample id is ``task.id``.  What a benchmark may add, declaratively:

    * ``read``: its strict answer reader (:data:`AnswerReader`; CoCoNUT's one-line list,
      a fence taken off), applied before the kind's judge;
    * ``limits``: the engine limits of input predictions' runs;
    * a task whose reference is a :class:`~execlens.tasks.TruthRun` has its truth built
      in this plan (:mod:`execlens.judge._truth`) before its answers are judged -- the
      answers of such a task must then be judged in the host (output or trace kinds);
      one with :class:`~execlens.tasks.NoTruth` scores ``reference_error:no_truth``.
    """

    name = "strict"

    def __init__(self, *, read: AnswerReader | None = None, limits: Limits | None = None) -> None:
        self.read = read
        self.limits = limits

    def plan(self, task: Any, generations: Sequence[Any]) -> ScorePlan:
        """The jobs of all answers to ``task`` (its truth's first, where it must be built)
        and the function scoring their outcomes."""
        if isinstance(task.reference, TruthRun):
            return self._building(task, generations)
        plans = self._plans(task, generations)
        jobs = [job for plan in plans for job in plan.jobs]

        def finish(outcomes: Sequence[Outcome]) -> SampleScore:
            return self._score(task, plan_verdicts(plans, outcomes))

        return ScorePlan(jobs, finish)

    def _plans(self, task: Any, generations: Sequence[Any]) -> list[JudgePlan]:
        if isinstance(task.reference, NoTruth):  # whatever the answers say
            return [JudgePlan.done(no_truth_verdict(task.reference)) for _ in generations]
        plans = []
        for answer in generations:
            read = self.read(answer) if self.read is not None else answer
            plans.append(
                JudgePlan.done(read)
                if isinstance(read, Verdict)
                else plan_task(task, read, limits=self.limits)
            )
        return plans

    def _building(self, task: Any, generations: Sequence[Any]) -> ScorePlan:
        """The truth's runs, then the answers judged in the host against what they gave."""

        def finish(outcomes: Sequence[Outcome]) -> SampleScore:
            built = replace(task, reference=truth_from_runs(task, outcomes))
            plans = self._plans(built, generations)
            if any(plan.jobs for plan in plans):
                raise ValueError(f"task {task.id!r}: a built truth's answers need no runs")
            return self._score(task, [plan.verdict() for plan in plans])

        return ScorePlan(truth_jobs(task), finish)

    def _score(self, task: Any, verdicts: list[Verdict]) -> SampleScore:
        return SampleScore(str(task.id), self.name, verdicts, [v.passed for v in verdicts])
