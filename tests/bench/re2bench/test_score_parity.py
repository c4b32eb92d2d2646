"""``execlens score`` on a thinker's RE2-Bench responses gets what ``eval`` got
(``tests/bench/parity.py``)."""

from __future__ import annotations

import json
from pathlib import Path

from execlens.bench import get_benchmark
from execlens.engine import Engine

from ..parity import assert_score_matches_eval


def test_score_of_a_thinkers_file_equals_eval(
    tmp_path: Path, engine: Engine, checkout: Path, request_cache: Path
) -> None:
    bench = get_benchmark("re2bench")
    items = bench.plan(bench.load(str(checkout)), "output", limit=None, offset=0)[0][1]
    finals = {
        bench.render(item, "output", "direct").text: (
            f"[OUTPUT]\n{json.dumps({'output': item.output})}\n[/OUTPUT]"
        )
        for item in items
    }
    assert_score_matches_eval(
        tmp_path, engine, finals, benchmark="re2bench", task="output", data=str(checkout)
    )
