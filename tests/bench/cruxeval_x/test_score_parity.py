"""``execlens score`` on a thinker's CRUXEval-X responses gets what ``eval`` got
(``tests/bench/parity.py``): the thought set apart, and the strict truth ``prepare`` runs
(``score`` had none before)."""

from __future__ import annotations

import json
from pathlib import Path

from execlens.bench import get_benchmark
from execlens.engine import Engine

from ..parity import assert_score_matches_eval
from .test_cruxeval_x import RECORDS, _record

MORE = [
    _record(5, "def f(n: int) -> int:\n    return n * 3\n\n", "4", "12"),
    _record(6, "def f(s: str) -> str:\n    return s[::-1]\n\n", "'abc'", "'cba'"),
]
ANSWERS = {"0": "[(2, 4), (3, 9)]", "3": "'HLO'", "5": "12", "6": "'cba'"}


def test_score_of_a_thinkers_file_equals_eval(
    tmp_path: Path, engine: Engine, request_cache: Path
) -> None:
    folder = tmp_path / "cruxeval-x" / "datasets" / "cruxeval_preprocessed"
    folder.mkdir(parents=True)
    data = folder / "py.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in [*RECORDS, *MORE]))
    bench = get_benchmark("cruxeval-x")
    finals = {
        bench.render(item, "output", "direct").text: (
            f"[ANSWER]\n{ANSWERS[item.sample_id]}\n[/ANSWER]"
        )
        for item in bench.load(str(data))
    }
    assert_score_matches_eval(
        tmp_path, engine, finals, benchmark="cruxeval-x", task="output", data=str(data)
    )
