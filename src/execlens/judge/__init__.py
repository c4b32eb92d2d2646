"""Verdicts: parse answers safely, compare in the host, re-execute in the engine.

Two modes, always side by side:

* ``official`` reproduces a benchmark's own scorer bit for bit, quirks included (each
  benchmark folder declares it, most as an :class:`AssertCheckScorer`);
* ``strict`` parses answers as literals / one literal-argument call, compares decoded
  values type-strictly in the host and skips nothing (:class:`StrictScorer`).

Single answers: :func:`judge_output_prediction`, :func:`judge_input_prediction`
(CRUXEval-style prediction tasks, :func:`execlens.tasks.prediction_task`); the generic
judges of every task kind over a task's reference
-- :func:`judge_coverage`, :func:`judge_path`, :func:`judge_state`, :func:`judge_output`,
:func:`judge_input` -- and :func:`judge_task` / :class:`TaskScorer` dispatching by kind.
A judge's failure on one answer is that answer's ``scoring_error`` verdict.
Many samples: :func:`score_samples` over an engine (see :func:`scoring_engine`); judge
workers (:class:`JudgePool`) take the judging off the calling process, as many as
:func:`judge_worker_count` says (``EXECLENS_JUDGE_WORKERS``).
Importing this package starts nothing; names load on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from execlens._lazy import lazy_exports

if TYPE_CHECKING:
    from execlens.judge._execute import (
        DEFAULT_PROBE,
        SCORING_WORKERS,
        ExecStats,
        Executor,
        score_sample,
        score_samples,
        scoring_engine,
    )
    from execlens.judge._judge import (
        ajudge_input_prediction,
        ajudge_output_prediction,
        ascore_samples,
        judge_input_prediction,
        judge_output_prediction,
        make_scorer,
    )
    from execlens.judge._limits import JUDGE_LIMITS, OFFICIAL_TIMEOUT
    from execlens.judge._official import AssertCheckScorer, official_check_verdict
    from execlens.judge._outcomes import failure_verdict
    from execlens.judge._plan import JudgePlan, guarded, plan_verdicts, scoring_error
    from execlens.judge._pool import (
        EngineGetter,
        JudgePool,
        JudgePoolError,
        close_at_exit,
        pack,
        shard_sizes,
    )
    from execlens.judge._runtime import (
        judge_coverage,
        judge_input,
        judge_output,
        judge_output_literal,
        judge_path,
        judge_state,
        judge_state_value,
        plan_input,
        run_plan,
    )
    from execlens.judge._scoring import SampleScore, ScorePlan, Scorer
    from execlens.judge._strict import StrictScorer, compare_values, parse_reference
    from execlens.judge._tasks import TASK_JUDGES, AnswerReader, TaskScorer, judge_task, plan_task
    from execlens.judge._trace import judge_trace, parse_trace_answer, step_credit
    from execlens.judge._truth import no_truth_verdict, truth_from_runs, truth_jobs
    from execlens.judge._verdict import Verdict, VerdictStatus
    from execlens.judge._workers import (
        CORES_PER_JUDGE,
        JUDGE_MIN_BATCH,
        JUDGE_MIN_BATCH_ENV,
        JUDGES_ENV,
        LEAST_DEFAULT_JUDGES,
        EnvSettingError,
        check_judge_settings,
        int_env,
        judge_min_batch,
        judge_worker_count,
        judges_for,
    )

_EXPORTS = {
    "DEFAULT_PROBE": "_execute",
    "SCORING_WORKERS": "_execute",
    "ExecStats": "_execute",
    "Executor": "_execute",
    "score_sample": "_execute",
    "score_samples": "_execute",
    "scoring_engine": "_execute",
    "ajudge_input_prediction": "_judge",
    "ajudge_output_prediction": "_judge",
    "ascore_samples": "_judge",
    "judge_input_prediction": "_judge",
    "judge_output_prediction": "_judge",
    "make_scorer": "_judge",
    "JUDGE_LIMITS": "_limits",
    "OFFICIAL_TIMEOUT": "_limits",
    "AssertCheckScorer": "_official",
    "official_check_verdict": "_official",
    "failure_verdict": "_outcomes",
    "JudgePlan": "_plan",
    "guarded": "_plan",
    "plan_verdicts": "_plan",
    "scoring_error": "_plan",
    "EngineGetter": "_pool",
    "JudgePool": "_pool",
    "JudgePoolError": "_pool",
    "close_at_exit": "_pool",
    "pack": "_pool",
    "shard_sizes": "_pool",
    "judge_coverage": "_runtime",
    "judge_input": "_runtime",
    "judge_output": "_runtime",
    "judge_output_literal": "_runtime",
    "judge_path": "_runtime",
    "judge_state": "_runtime",
    "judge_state_value": "_runtime",
    "plan_input": "_runtime",
    "judge_trace": "_trace",
    "parse_trace_answer": "_trace",
    "step_credit": "_trace",
    "run_plan": "_runtime",
    "SampleScore": "_scoring",
    "ScorePlan": "_scoring",
    "Scorer": "_scoring",
    "StrictScorer": "_strict",
    "compare_values": "_strict",
    "parse_reference": "_strict",
    "TASK_JUDGES": "_tasks",
    "AnswerReader": "_tasks",
    "no_truth_verdict": "_truth",
    "truth_from_runs": "_truth",
    "truth_jobs": "_truth",
    "TaskScorer": "_tasks",
    "judge_task": "_tasks",
    "plan_task": "_tasks",
    "Verdict": "_verdict",
    "VerdictStatus": "_verdict",
    "CORES_PER_JUDGE": "_workers",
    "JUDGE_MIN_BATCH": "_workers",
    "JUDGE_MIN_BATCH_ENV": "_workers",
    "JUDGES_ENV": "_workers",
    "LEAST_DEFAULT_JUDGES": "_workers",
    "EnvSettingError": "_workers",
    "check_judge_settings": "_workers",
    "int_env": "_workers",
    "judge_min_batch": "_workers",
    "judge_worker_count": "_workers",
    "judges_for": "_workers",
}

__all__, __getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
