"""LiveCodeBench execution's ``explain``: the expected output literal both judges accept."""

from __future__ import annotations

import json
from pathlib import Path

from execlens.bench import get_benchmark
from execlens.engine import Engine
from execlens.judge import score_samples

ROW = {  # an execution-v2 row (livecodebench/execution-v2, sample_2)
    "question_id": "2791",
    "contest_id": "weekly-contest-347",
    "contest_date": "2023-05-28T00:00:00",
    "difficulty": "medium",
    "function_name": "removeTrailingZeros",
    "code": "def removeTrailingZeros(num: str) -> str:\n    return num.rstrip('0')",
    "input": 'removeTrailingZeros(num = "51230100")',
    "output": "'512301'",
    "id": "sample_2",
    "problem_id": "2791",
    "numsteps": 501,
}


def test_expected_output_passes_both_modes(tmp_path: Path, engine: Engine) -> None:
    data = tmp_path / "execution-v2.jsonl"
    data.write_text(json.dumps(ROW) + "\n", encoding="utf-8")
    bench = get_benchmark("lcb-exec")
    [(task, [item])] = bench.plan(bench.load(str(data)), "output", limit=None, offset=0)
    view = bench.explain(item, task, None)
    assert view == {
        "expected": "'512301'",
        "program": ROW["code"],
        "true_value": "'512301'",
        "question": 'the output of removeTrailingZeros(num = "51230100")',
    }
    scorers = list(bench.scorers(task, "direct", None).values())
    [(_, scores)] = list(score_samples(scorers, [(item, [view["expected"]])], engine))
    assert {mode: score.scored for mode, score in scores.items()} == {
        "official": [True],
        "strict": [True],
    }
