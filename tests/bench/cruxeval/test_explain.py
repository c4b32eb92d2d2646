"""CRUXEval's ``explain``: the expected answer it gives is one both judges accept."""

from __future__ import annotations

from pathlib import Path

import pytest

from execlens.bench import get_benchmark
from execlens.engine import Engine
from execlens.judge import score_samples


@pytest.mark.parametrize("task", ["output", "input"])
def test_expected_answers_pass_both_modes(task: str, data_dir: Path, engine: Engine) -> None:
    bench = get_benchmark("cruxeval")
    [(_, items)] = bench.plan(bench.load(str(data_dir / "cruxeval")), task, limit=25, offset=0)
    explained = {item.sample_id: bench.explain(item, task, None) for item in items}
    for item in items:
        view = explained[item.sample_id]
        assert view["program"] == item.code
        assert view["true_value"] == item.output
    # The reference written as the model writes it: the output literal, or the call.
    assert explained["sample_0"]["expected"] == (
        items[0].output if task == "output" else f"f({items[0].input})"
    )
    scorers = list(bench.scorers(task, "direct", None).values())
    answers = [(item, [explained[item.sample_id]["expected"]]) for item in items]
    for item, scores in score_samples(scorers, answers, engine):
        for mode, score in scores.items():
            assert score.scored == [True], (item.sample_id, mode, score.verdicts)
