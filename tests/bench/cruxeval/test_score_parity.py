"""``execlens score`` on a thinker's CRUXEval responses gets what ``eval`` got
(``tests/bench/parity.py``): the thought set apart, CRUXEval's extraction on the final."""

from __future__ import annotations

from pathlib import Path

import pytest

from execlens.bench import get_benchmark
from execlens.bench.cruxeval import load_cruxeval
from execlens.engine import Engine

from ..parity import assert_score_matches_eval

LIMIT = 6


@pytest.mark.parametrize("prompt", ["direct", "cot"])
def test_score_of_a_thinkers_file_equals_eval(
    tmp_path: Path, data_dir: Path, engine: Engine, request_cache: Path, prompt: str
) -> None:
    # A slice of the data, so that the file covers every sample (as the official
    # script requires).
    lines = (data_dir / "cruxeval" / "cruxeval.jsonl").read_text().splitlines()[:LIMIT]
    data = tmp_path / "cruxeval.jsonl"
    data.write_text("\n".join(lines) + "\n")
    bench = get_benchmark("cruxeval")
    finals = {
        bench.render(r, "output", prompt).text: (
            f"[ANSWER]\nassert f({r.input}) == {r.output}\n[/ANSWER]"
        )
        for r in load_cruxeval(str(data)).records
    }
    assert_score_matches_eval(
        tmp_path,
        engine,
        finals,
        file_name="thinker_output_generations.json",  # the path names the task
        benchmark="cruxeval",
        task="output",
        prompt=prompt,
        data=str(data),
    )
