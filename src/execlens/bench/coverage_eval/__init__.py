"""CoverageEval (microsoft/coverage-eval, Tufano et al. 2023): predict which lines of a
HumanEval method one test executes.

Its data (164 problems, 1,160 tests; MIT, see ``data/LICENSE.txt`` and
``data/LICENSE.human-eval.txt``) ships in ``data/``.  The loader, the zero-shot prompt,
the coverage labels recomputed by our tracer, the official reading of the paper's
Match/Stmt/Branch and a strict one live here.  Names load on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from execlens._lazy import lazy_exports

if TYPE_CHECKING:
    from ._benchmark import BENCHMARK, REFERENCES, CoverageEval
    from ._data import DATA_DIR, SHOWN_TWIN, CoverageEvalTest, evaluated, load_coverage_eval
    from ._labels import branch_mask, coverage_labels, statement_lines
    from ._prompts import COVERAGE_EVAL_SYSTEM, render_coverage_eval, user_message
    from ._score import (
        CoverageScorer,
        LineStats,
        StrictReading,
        official_labels,
        official_stats,
        strict_labels,
        strict_stats,
    )
    from ._truth import TracedCoverage, program_of, trace_coverage, traced_coverage, truth_task

_EXPORTS = {
    "BENCHMARK": "_benchmark",
    "REFERENCES": "_benchmark",
    "CoverageEval": "_benchmark",
    "DATA_DIR": "_data",
    "SHOWN_TWIN": "_data",
    "CoverageEvalTest": "_data",
    "evaluated": "_data",
    "load_coverage_eval": "_data",
    "branch_mask": "_labels",
    "coverage_labels": "_labels",
    "statement_lines": "_labels",
    "COVERAGE_EVAL_SYSTEM": "_prompts",
    "render_coverage_eval": "_prompts",
    "user_message": "_prompts",
    "CoverageScorer": "_score",
    "LineStats": "_score",
    "StrictReading": "_score",
    "official_labels": "_score",
    "official_stats": "_score",
    "strict_labels": "_score",
    "strict_stats": "_score",
    "TracedCoverage": "_truth",
    "program_of": "_truth",
    "trace_coverage": "_truth",
    "traced_coverage": "_truth",
    "truth_task": "_truth",
}

__all__, __getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
