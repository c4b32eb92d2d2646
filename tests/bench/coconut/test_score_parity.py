"""``execlens score`` on a thinker's CoCoNUT responses gets what ``eval`` got
(``tests/bench/parity.py``): the thought set apart, and the traced strict truth."""

from __future__ import annotations

from pathlib import Path

from execlens.bench import get_benchmark
from execlens.bench.coconut import load_coconut
from execlens.engine import Engine

from ..parity import assert_score_matches_eval
from .test_coconut import HUMANEVAL


def test_score_of_a_thinkers_file_equals_eval(
    tmp_path: Path, engine: Engine, request_cache: Path
) -> None:
    bench = get_benchmark("coconut")
    finals = {
        bench.render(item, "trace", "direct").text: f"Executed lines: {item.truth}"
        for item in load_coconut(HUMANEVAL)
    }
    assert_score_matches_eval(
        tmp_path, engine, finals, benchmark="coconut", task="trace", data=str(HUMANEVAL)
    )
