"""``execlens score`` on a thinker's CoverageEval responses gets what ``eval`` got
(``tests/bench/parity.py``)."""

from __future__ import annotations

from pathlib import Path

from execlens.bench import get_benchmark
from execlens.bench.coverage_eval import render_coverage_eval
from execlens.engine import Engine

from ..parity import assert_score_matches_eval

LIMIT = 6


def test_score_of_a_thinkers_file_equals_eval(
    tmp_path: Path, engine: Engine, request_cache: Path
) -> None:
    bench = get_benchmark("coverage-eval")
    [(_, items)] = bench.plan(bench.load(None), "coverage", limit=LIMIT, offset=0)
    finals = {render_coverage_eval(item).text: item.coverage for item in items}
    assert_score_matches_eval(
        tmp_path,
        engine,
        finals,
        whole_benchmark=True,  # its format pairs a file with all 538 evaluated pairs
        benchmark="coverage-eval",
        task="coverage",
        limit=LIMIT,
    )
