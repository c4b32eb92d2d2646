"""``execlens score`` on a thinker's LiveCodeBench responses gets what ``eval`` got
(``tests/bench/parity.py``)."""

from __future__ import annotations

import json
from pathlib import Path

from execlens.bench import get_benchmark
from execlens.engine import Engine

from ..parity import assert_score_matches_eval
from .test_score import ROWS


def test_score_of_a_thinkers_file_equals_eval(
    tmp_path: Path, engine: Engine, request_cache: Path
) -> None:
    data = tmp_path / "execution-v2.jsonl"
    data.write_text("".join(json.dumps(row) + "\n" for row in ROWS))
    bench = get_benchmark("lcb-exec")
    items = bench.plan(bench.load(str(data)), "output", limit=None, offset=0)[0][1]
    finals = {
        bench.render(item, "output", "direct").text: (
            f"[ANSWER]\nassert {item.input} == {item.output}\n[/ANSWER]"
        )
        for item in items
    }
    assert_score_matches_eval(
        tmp_path, engine, finals, benchmark="lcb-exec", task="output", data=str(data)
    )
