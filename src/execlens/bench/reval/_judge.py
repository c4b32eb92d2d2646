"""Judging one REval answer: pick the task's judge for the mode, run what it needs.

``truth`` is a :class:`QuestionTruth` for coverage/state/path (built from the ``reval``
tracer for ``official``, the ``exact`` one for ``strict``) and an :class:`OutputTruth` (or
None) for the output task, which officially needs no truth: the snippet runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from execlens.judge import Verdict, run_plan

from ._official import (
    official_coverage,
    official_output,
    official_path,
    official_state,
)
from ._plan import REVAL_MODES, REVAL_TASKS, RevalPlan
from ._records import OutputTruth, QuestionTruth, RevalContext
from ._strict import strict_coverage, strict_output, strict_path, strict_state

if TYPE_CHECKING:
    from execlens.engine import Engine

__all__ = ["judge_reval", "plan_reval"]


def plan_reval(
    task: str,
    mode: str,
    raw: str,
    style: str,
    context: RevalContext,
    truth: QuestionTruth | OutputTruth | None,
) -> RevalPlan:
    """The jobs and verdict function for one raw model response.

    ``style`` is the prompt style (``direct``/``cot``), which decides how the official
    extraction reads ``raw``.
    """
    if task not in REVAL_TASKS:
        raise ValueError(f"REval has no task {task!r} (expected one of {REVAL_TASKS})")
    if mode not in REVAL_MODES:
        raise ValueError(f"mode must be one of {REVAL_MODES}, got {mode!r}")
    if task == "output":
        if mode == "official":
            return official_output(raw, style, context)
        if truth is not None and not isinstance(truth, OutputTruth):
            raise TypeError("the output task's truth is an OutputTruth")
        return RevalPlan.done(strict_output(raw, style, context, truth))
    if not isinstance(truth, QuestionTruth):
        raise TypeError(f"the {task} task needs a QuestionTruth, got {type(truth).__name__}")
    if task == "state":
        if mode == "official":
            return official_state(raw, style, truth)
        return RevalPlan.done(strict_state(raw, style, truth))
    if task == "coverage":
        judge = official_coverage if mode == "official" else strict_coverage
        return RevalPlan.done(judge(raw, style, truth))
    judge_path = official_path if mode == "official" else strict_path
    return RevalPlan.done(judge_path(raw, style, context, truth))


def judge_reval(
    task: str,
    mode: str,
    raw: str,
    style: str,
    context: RevalContext,
    truth: QuestionTruth | OutputTruth | None,
    engine: Engine | None = None,
) -> Verdict:
    """Judge one raw response; official state/output answers run in ``engine``.

    Without an ``engine``, one is started for the call when the plan needs execution
    (:func:`execlens.judge.run_plan`; REval's jobs carry their own limits).
    """
    return run_plan(plan_reval(task, mode, raw, style, context, truth), engine)
