"""Benchmarks: adapters, metrics (pass@k), scoring runs and reports.

Names load on first use.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

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
    from execlens.bench.metrics import mean_pass_at_k, pass_at_k, sample_accuracy

_EXPORTS = {
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

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'execlens.bench' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"execlens.bench.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
