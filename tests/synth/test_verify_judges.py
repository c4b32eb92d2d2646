"""The pipeline's verify stages through judge workers (issue 25): a CodeI/O++ run whose
``verify`` and ``revise`` verdicts come from two judge worker processes (each with its own
engine, made as the run's engine is) writes the same bytes as one verified in process.

The workers and the engines are real; the model is the scripted stand-in server (its
answers a pure function of the prompt, so both runs are asked and answered alike)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from execlens.judge import JudgePool
from execlens.synth import load_config, run_pipeline

from .conftest import final_bytes, pipeline_config, write_config


def _everything(out: Path) -> dict[str, bytes]:
    files = final_bytes(out)
    for stage in ("verify", "revise"):
        for shard in sorted((out / "shards" / stage).glob("*")):
            files[f"{stage}/{shard.name}"] = shard.read_bytes()
    return files


def _run(root: Path, base_url: str, data_dir: Path) -> dict[str, bytes]:
    root.mkdir()
    config = pipeline_config(data_dir, root / "out", base_url, functions=6, shard_size=3)
    run_pipeline(load_config(write_config(root / "run.yaml", config)), progress=False)
    return _everything(root / "out")


def test_verify_through_judge_workers_writes_the_same_bytes(
    data_dir: Path, tmp_path: Path, scripted_server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EXECLENS_JUDGE_WORKERS", "0")
    in_process = _run(tmp_path / "in_process", scripted_server.base_url, data_dir)
    assert {"codeio.jsonl", "codeio_pp.parquet", "card.json", "verify/00000.jsonl"} <= set(
        in_process
    )

    # Count what the workers judged (the real map runs): the run must have used them.
    judged: list[int] = []
    real_map = JudgePool.map

    def counting_map(self: JudgePool, function: Any, shards: Any, items: int = 0) -> Any:
        judged.append(items)
        return real_map(self, function, shards, items)

    monkeypatch.setattr(JudgePool, "map", counting_map)
    monkeypatch.setenv("EXECLENS_JUDGE_WORKERS", "2")
    monkeypatch.setenv("EXECLENS_JUDGE_MIN_BATCH", "1")
    pooled = _run(tmp_path / "pooled", scripted_server.base_url, data_dir)
    # verify and revise, every shard: the workers judged every first- and second-turn answer
    assert len(judged) >= 4 and sum(judged) > 0
    assert pooled == in_process
