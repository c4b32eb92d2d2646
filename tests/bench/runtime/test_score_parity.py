"""``execlens score`` on a thinker's runtime-benchmark responses gets what ``eval`` got
(``tests/bench/parity.py``)."""

from __future__ import annotations

from pathlib import Path

from execlens.bench import get_benchmark
from execlens.engine import Engine

from ..parity import assert_score_matches_eval

LIMIT = 12


def test_score_of_a_thinkers_file_equals_eval(
    tmp_path: Path, data_dir: Path, engine: Engine, request_cache: Path
) -> None:
    data = str(data_dir / "cruxeval" / "cruxeval.jsonl")
    bench = get_benchmark("runtime")
    [(_, items)] = bench.plan(bench.load(data), "coverage", limit=LIMIT, offset=0)
    finals = {
        bench.render(item, "coverage", "direct").text: (
            f"[ANSWER]\n{'YES' if i % 2 else 'NO'}\n[/ANSWER]"
        )
        for i, item in enumerate(items)
    }
    assert_score_matches_eval(
        tmp_path, engine, finals, benchmark="runtime", task="coverage", limit=LIMIT, data=data
    )
