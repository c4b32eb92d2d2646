"""``execlens score`` on a thinker's REval responses gets what ``eval`` got
(``tests/bench/parity.py``): REval's new generations format, read and judged as eval."""

from __future__ import annotations

from pathlib import Path

import pytest

from execlens.bench import get_benchmark
from execlens.engine import Engine

from ..parity import assert_score_matches_eval

LIMIT = 9


@pytest.fixture
def truth_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(
        "EXECLENS_TRUTH_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "reval-parity-truth")
    )


@pytest.mark.parametrize("task", ["coverage", "state"])
def test_score_of_a_thinkers_file_equals_eval(
    tmp_path: Path, data_dir: Path, engine: Engine, request_cache: Path, truth_cache: None,
    task: str,
) -> None:  # fmt: skip
    bench = get_benchmark("reval")
    data = str(data_dir / "reval")
    [(_, items)] = bench.plan(bench.load(data), task, limit=LIMIT, offset=0)
    context = bench.prepare(items, task, engine)
    finals = {
        bench.render(item, task, "direct").text: (
            f"{bench.explain(item, task, context)['expected']}\n[/ANSWER]"
        )
        for item in items
    }
    assert_score_matches_eval(
        tmp_path, engine, finals, benchmark="reval", task=task, limit=LIMIT, data=data
    )
