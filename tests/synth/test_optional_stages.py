"""The optional stages: ``difficulty`` (the CodeMix band, k samples per function) and
``runtime-tasks`` (tracer-built coverage / path / state / output questions)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from execlens.synth import load_config, run_pipeline

from .conftest import pipeline_config, write_config


def _shard_records(out: Path, stage: str) -> list[dict]:
    return [
        json.loads(line)
        for path in sorted((out / "shards" / stage).glob("*.jsonl"))
        for line in path.read_text().splitlines()
    ]


@pytest.mark.parametrize("band", [(0.5, 1.0), (0.0, 0.4)], ids=["above-half", "at-most-0.4"])
def test_difficulty_band_and_runtime_tasks(
    data_dir: Path, tmp_path: Path, scripted_server, band: tuple[float, float]
) -> None:
    # The scripted server answers alike for every sample, so its success rates are 0 or 1
    # and the two bands split the same functions differently.
    out = tmp_path / "out"
    config = pipeline_config(
        data_dir,
        out,
        scripted_server.base_url,
        functions=4,
        shard_size=2,
        stages=[
            "collect",
            "difficulty",
            "runtime-tasks",
            "prompts",
            "predict",
            "verify",
            "assemble",
        ],
        difficulty={"samples": 2, "low": band[0], "high": band[1]},
        runtime_tasks={
            "kinds": ["coverage", "state", "output"],
            "pairs_per_function": 1,
            "max_tasks_per_pair": 2,
        },
    )
    run_pipeline(load_config(write_config(tmp_path / "run.yaml", config)), progress=False)

    collected = [r for r in _shard_records(out, "collect") if not r.get("reject")]
    rated = _shard_records(out, "difficulty")
    assert [r["id"] for r in rated] == [r["id"] for r in collected]
    for record in rated:
        assert record["difficulty"] in (0.0, 0.5, 1.0)  # 2 samples each
        rate = record["difficulty"]
        if rate < band[0]:
            assert record["reject"] == {
                "stage": "difficulty",
                "reason": "too_hard",
                "success_rate": rate,
            }
        elif rate > band[1]:
            assert record["reject"] == {
                "stage": "difficulty",
                "reason": "too_easy",
                "success_rate": rate,
            }
        else:
            assert not record.get("reject")
    kept = {r["id"] for r in rated if not r.get("reject")}
    if band[0] == 0.0:
        assert kept  # the scripted answers are mostly wrong: rate 0 is in this band
    prompts = _shard_records(out, "prompts")
    assert {r["function_id"] for r in prompts} == kept  # only in-band functions go on

    tasks = [json.loads(line) for line in (out / "runtime_tasks.jsonl").read_text().splitlines()]
    assert tasks, "no runtime tasks were built"
    assert {t["kind"] for t in tasks} <= {"coverage", "state", "output"}
    assert {t["function_id"] for t in tasks} <= {r["id"] for r in collected}
    for task in tasks:
        user, assistant = task["messages"]
        assert user["role"] == "user" and "main_solution(" in user["content"]
        # execlens' one answer format, and the ground truth the rewards read
        assert assistant["content"].startswith("[ANSWER]")
        assert assistant["content"].endswith("[/ANSWER]")
        assert json.loads(task["ground_truth"])["kind"] == task["kind"]
    card = json.loads((out / "card.json").read_text())
    assert card["stages"]["difficulty"]["records"] == len(rated)
    assert card["files"]["runtime_tasks.jsonl"] == len(tasks)
