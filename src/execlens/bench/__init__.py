"""Benchmarks: adapters, metrics (pass@k), scoring runs and reports.

Names load on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from execlens._lazy import lazy_exports

if TYPE_CHECKING:
    from execlens.bench._cruxeval_score import (
        GenerationsError,
        load_cruxeval_generations,
        load_cruxeval_problems,
    )
    from execlens.bench._cruxeval_score_run import (
        ScoreRunError,
        ScoreRunResult,
        difference_reason,
        score_run,
    )
    from execlens.bench._lcb_score import load_lcb_generations, load_lcb_problems
    from execlens.bench._data import (
        DatasetError,
        DatasetUnavailableError,
        LoadResult,
        MalformedRecordError,
        RecordError,
        select,
    )
    from execlens.bench._data_cruxeval import CRUXEVAL_HUB, CruxEvalSample, load_cruxeval
    from execlens.bench._data_lcb import LCB_EXEC_HUB, LCBExecSample, load_lcb_exec
    from execlens.bench._data_reval import (
        REVAL_HUB,
        RevalItem,
        RevalPair,
        RevalProblem,
        RevalQuestion,
        load_reval,
        reval_pairs,
        reval_questions,
    )
    from execlens.bench._eval import EvalConfig, EvalError, EvalResult, run_eval
    from execlens.bench._report import RunView, load_run, write_report
    from execlens.bench._reval_score import (
        RevalScoreError,
        RevalScores,
        format_reval_scores,
        score_reval,
    )
    from execlens.bench._reval_score_oracle import reval_constant_answers, reval_oracle_answers
    from execlens.bench._reval_score_truth import RevalTruth, build_reval_truth
    from execlens.bench.metrics import mean_pass_at_k, pass_at_k, sample_accuracy

_EXPORTS = {
    "DatasetError": "_data",
    "DatasetUnavailableError": "_data",
    "LoadResult": "_data",
    "MalformedRecordError": "_data",
    "RecordError": "_data",
    "select": "_data",
    "CRUXEVAL_HUB": "_data_cruxeval",
    "CruxEvalSample": "_data_cruxeval",
    "load_cruxeval": "_data_cruxeval",
    "LCB_EXEC_HUB": "_data_lcb",
    "LCBExecSample": "_data_lcb",
    "load_lcb_exec": "_data_lcb",
    "REVAL_HUB": "_data_reval",
    "RevalItem": "_data_reval",
    "RevalPair": "_data_reval",
    "RevalProblem": "_data_reval",
    "RevalQuestion": "_data_reval",
    "load_reval": "_data_reval",
    "reval_pairs": "_data_reval",
    "reval_questions": "_data_reval",
    "EvalConfig": "_eval",
    "EvalError": "_eval",
    "EvalResult": "_eval",
    "run_eval": "_eval",
    "RevalScoreError": "_reval_score",
    "RevalScores": "_reval_score",
    "format_reval_scores": "_reval_score",
    "score_reval": "_reval_score",
    "reval_constant_answers": "_reval_score_oracle",
    "reval_oracle_answers": "_reval_score_oracle",
    "RevalTruth": "_reval_score_truth",
    "build_reval_truth": "_reval_score_truth",
    "RunView": "_report",
    "load_run": "_report",
    "write_report": "_report",
    "GenerationsError": "_cruxeval_score",
    "load_cruxeval_generations": "_cruxeval_score",
    "load_cruxeval_problems": "_cruxeval_score",
    "ScoreRunError": "_cruxeval_score_run",
    "ScoreRunResult": "_cruxeval_score_run",
    "difference_reason": "_cruxeval_score_run",
    "score_run": "_cruxeval_score_run",
    "load_lcb_generations": "_lcb_score",
    "load_lcb_problems": "_lcb_score",
    "mean_pass_at_k": "metrics",
    "pass_at_k": "metrics",
    "sample_accuracy": "metrics",
}

__all__, __getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
