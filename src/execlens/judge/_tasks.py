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
from typing import TYPE_CHECKING, Any

from execlens.judge._plan import JudgePlan, guarded
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
from execlens.judge._verdict import Verdict
from execlens.values import parse_call

if TYPE_CHECKING:
    from execlens.engine import Engine, Outcome

__all__ = ["TASK_JUDGES", "TaskScorer", "judge_task", "plan_task"]


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
#: (``execlens.tasks.kinds``) names by its ``judge_rule``.
TASK_JUDGES: dict[str, Callable[[Any, Any], JudgePlan | Verdict]] = {
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
    "input": lambda task, answer: plan_input(
        task.program,
        _function_of(task),
        task.reference,
        answer,
        compare=getattr(task, "compare", "exact"),
    ),
    "trace": lambda task, answer: judge_trace(task.reference, answer),
}


def plan_task(task: Any, answer: Any) -> JudgePlan:
    """The plan judging ``answer`` to ``task`` (jobs only for input prediction).

    The task's kind (``execlens.tasks.kinds``) names its rule: one of
    :data:`TASK_JUDGES`, or a callable of its own (a plug-in kind's).  An unknown
    ``task.kind`` raises ``ValueError`` naming the kinds; the judges' own failures become
    ``scoring_error`` verdicts.
    """
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
    return guarded(judge, task, answer)


def judge_task(task: Any, answer: Any, *, engine: Engine | None = None) -> Verdict:
    """Judge one answer to one task (an input-prediction answer runs in ``engine``, or in
    a one-server engine started for the call)."""
    return run_plan(plan_task(task, answer), engine)


class TaskScorer:
    """The strict scorer of runtime tasks: every answer judged by :func:`plan_task`.

    A :class:`~execlens.judge.Scorer` over tasks (``plan(task, answers)``), so runtime
    tasks go through :func:`~execlens.judge.score_samples` and its executor like any
    benchmark's samples; the sample id is ``task.id``.
    """

    name = "strict"

    def plan(self, task: Any, generations: Sequence[Any]) -> ScorePlan:
        """The jobs of all answers to ``task`` and the function scoring their outcomes."""
        plans = [plan_task(task, answer) for answer in generations]
        jobs = [job for plan in plans for job in plan.jobs]

        def finish(outcomes: Sequence[Outcome]) -> SampleScore:
            verdicts: list[Verdict] = []
            start = 0
            for plan in plans:
                verdicts.append(plan.verdict(outcomes[start : start + len(plan.jobs)]))
                start += len(plan.jobs)
            return SampleScore(str(task.id), self.name, verdicts, [v.passed for v in verdicts])

        return ScorePlan(jobs, finish)
