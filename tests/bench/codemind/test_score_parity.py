"""``execlens score`` on a thinker's CodeMind responses gets what ``eval`` got
(``tests/bench/parity.py``): the thought set apart before CodeMind's parser, and the
strict truth ``prepare`` runs."""

from __future__ import annotations

from pathlib import Path

from execlens.bench import codemind, get_benchmark
from execlens.engine import Engine

from ..parity import assert_score_matches_eval

LIMIT = 6


def test_score_of_a_thinkers_file_equals_eval(
    tmp_path: Path, engine: Engine, request_cache: Path
) -> None:
    # A slice of the shipped part, so that the file answers every item (as CodeMind's
    # format asks).
    shipped = Path(codemind.__file__).parent / "data" / "ier_cruxeval.jsonl"
    data = tmp_path / "codemind"
    data.mkdir()
    lines = shipped.read_text().splitlines()[:LIMIT]
    (data / "ier_cruxeval.jsonl").write_text("\n".join(lines) + "\n")
    bench = get_benchmark("codemind")
    [(_, items)] = bench.plan(bench.load(str(data)), "ier-cruxeval", limit=LIMIT, offset=0)
    finals = {
        bench.render(item, "ier-cruxeval", "direct").text: (
            f"<<<Analysis>>>\nStep by step.\n<<<Output>>>\n{item.output}\n[END-OF-RESPONSE]"
        )
        for item in items
    }
    assert_score_matches_eval(
        tmp_path, engine, finals, benchmark="codemind", task="ier-cruxeval", data=str(data)
    )
