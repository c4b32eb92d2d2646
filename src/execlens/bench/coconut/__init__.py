"""CoCoNUT (ClaasBeger/StructuralCodeUnderstanding, arXiv 2501.16456): predict the
ordered lines a call executes, on programs whose every line is numbered ``# N``.

Bring your own data: the upstream repository has no licence, so nothing ships; pass
``Dataset/HumanEval/HumanEval_trace.csv`` (or an Advanced trace CSV, or the checkout)
with ``--data``.  ``official`` reproduces upstream's scoring (NoReps string match,
character-level Distance, Acc Hard / Acc Mean / Sim / False Sim); ``strict`` parses the
list as integers and compares it with execlens' own tracer.  Names load on first use.
"""

# ruff: noqa: F401 - the TYPE_CHECKING imports name what lazy_exports loads on first use

from __future__ import annotations

from typing import TYPE_CHECKING

from execlens._lazy import lazy_exports

if TYPE_CHECKING:
    from ._benchmark import BENCHMARK, CoCoNUT, StoredPredictions
    from ._data import CocoItem, load_coconut, truth_tokens
    from ._prompts import extract_coconut, render_coconut
    from ._results import read_results_csv
    from ._score import (
        OfficialScorer,
        coconut_metrics,
        concurrency_distance,
        concurrency_match,
        distance,
        extract_trace,
        is_concurrency,
        noreps,
        official_verdict,
    )

_EXPORTS = {
    "BENCHMARK": "_benchmark",
    "CoCoNUT": "_benchmark",
    "StoredPredictions": "_benchmark",
    "read_results_csv": "_results",
    "CocoItem": "_data",
    "load_coconut": "_data",
    "truth_tokens": "_data",
    "extract_coconut": "_prompts",
    "render_coconut": "_prompts",
    "OfficialScorer": "_score",
    "coconut_metrics": "_score",
    "concurrency_distance": "_score",
    "concurrency_match": "_score",
    "distance": "_score",
    "extract_trace": "_score",
    "is_concurrency": "_score",
    "noreps": "_score",
    "official_verdict": "_score",
}

__all__, __getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
