"""REval (r-eval/REval, ICSE 2025): everything about the benchmark in one folder.

Loader (``DREval_data.jsonl`` + ``DREval_tasks.jsonl``, or the JetBrains layout), REval's
own prompt files (``prompts/``, filled with ``str.format``), answer extraction, the traced
ground truth, official and strict judges, IC and the constant-answer baselines, the
leaderboard reference, and the JetBrains REval export.  ``BENCHMARK`` is what the
registry finds.  Names load on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from execlens._lazy import lazy_exports

if TYPE_CHECKING:
    from ._benchmark import BENCHMARK, Reval, RevalScorer, truth_cache_dir
    from ._classeval import ClassEvalTestClass, classeval_test_classes
    from ._data import (
        REVAL_HUB,
        RevalDataError,
        RevalItem,
        RevalPair,
        RevalProblem,
        RevalQuestion,
        RevalRun,
        load_reval,
        load_reval_problems,
        reval_pairs,
        reval_questions,
    )
    from ._export import (
        EXPORT_ROWS,
        execution_record,
        export_jetbrains,
        output_matches,
        qualified_envelope,
        states_record,
        trace_reval,
    )
    from ._extract import (
        extract_reval,
        extract_reval_coverage,
        extract_reval_output,
        extract_reval_path,
        extract_reval_state,
        match_path_answer,
        normalise_state_type,
    )
    from ._flat import REVAL_EVAL_TASKS, reval_metrics_for_report
    from ._judge import judge_reval, plan_reval
    from ._plan import REVAL_MODES, REVAL_TASKS, RevalPlan
    from ._programs import (
        check_reval_data,
        programs_from_reval,
        recognises_reval,
        reval_problems_to_trace,
    )
    from ._prompts import (
        REVAL_PROMPT_FILES,
        REVAL_SYSTEM,
        RevalPromptInput,
        number_code_lines,
        render_reval,
        reval_invocation,
        reval_prompt_template,
        reval_sampling,
        reval_setup_comment,
    )
    from ._records import MaskTruth, OutputTruth, QuestionTruth, RevalContext
    from ._score import RevalScoreError, RevalScores, format_reval_scores, score_reval
    from ._truth import TRUTH_VERSION, RevalTruth, build_reval_truth, reval_context
    from ._values import reval_contains
    from ._var import reval_interpret

_EXPORTS = {
    "BENCHMARK": "_benchmark",
    "Reval": "_benchmark",
    "RevalScorer": "_benchmark",
    "truth_cache_dir": "_benchmark",
    "ClassEvalTestClass": "_classeval",
    "classeval_test_classes": "_classeval",
    "REVAL_HUB": "_data",
    "RevalDataError": "_data",
    "RevalItem": "_data",
    "RevalPair": "_data",
    "RevalProblem": "_data",
    "RevalQuestion": "_data",
    "RevalRun": "_data",
    "load_reval": "_data",
    "load_reval_problems": "_data",
    "reval_pairs": "_data",
    "reval_questions": "_data",
    "EXPORT_ROWS": "_export",
    "execution_record": "_export",
    "export_jetbrains": "_export",
    "output_matches": "_export",
    "qualified_envelope": "_export",
    "states_record": "_export",
    "trace_reval": "_export",
    "extract_reval": "_extract",
    "extract_reval_coverage": "_extract",
    "extract_reval_output": "_extract",
    "extract_reval_path": "_extract",
    "extract_reval_state": "_extract",
    "match_path_answer": "_extract",
    "normalise_state_type": "_extract",
    "REVAL_EVAL_TASKS": "_flat",
    "reval_metrics_for_report": "_flat",
    "judge_reval": "_judge",
    "plan_reval": "_judge",
    "REVAL_MODES": "_plan",
    "REVAL_TASKS": "_plan",
    "RevalPlan": "_plan",
    "check_reval_data": "_programs",
    "programs_from_reval": "_programs",
    "recognises_reval": "_programs",
    "reval_problems_to_trace": "_programs",
    "REVAL_PROMPT_FILES": "_prompts",
    "REVAL_SYSTEM": "_prompts",
    "RevalPromptInput": "_prompts",
    "number_code_lines": "_prompts",
    "render_reval": "_prompts",
    "reval_invocation": "_prompts",
    "reval_prompt_template": "_prompts",
    "reval_sampling": "_prompts",
    "reval_setup_comment": "_prompts",
    "MaskTruth": "_records",
    "OutputTruth": "_records",
    "QuestionTruth": "_records",
    "RevalContext": "_records",
    "RevalScoreError": "_score",
    "RevalScores": "_score",
    "format_reval_scores": "_score",
    "score_reval": "_score",
    "TRUTH_VERSION": "_truth",
    "RevalTruth": "_truth",
    "build_reval_truth": "_truth",
    "reval_context": "_truth",
    "reval_contains": "_values",
    "reval_interpret": "_var",
}

__all__, __getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
