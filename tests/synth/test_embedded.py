"""End to end with the embedded model (SmolLM2-135M on the real llama-cpp server):
``transform`` on raw files of ``rawcode_1k.jsonl`` and the demo synthesis (every later
stage on a parsed function).  Small ``max_tokens`` keep it to about a minute."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from execlens.synth import load_config, run_demo_synthesis, run_pipeline

from .conftest import write_config

# Every reason a transform answer can be rejected for (the parser's, the model's).
_TRANSFORM_REASONS = ("truncated", "missing_", "main_function_", "no_", "model_error:")


@pytest.fixture(scope="module")
def embedded() -> Iterator[None]:
    """Skip (fail in CI) unless the embedded model's server starts *and* generates."""
    from execlens.models import (
        GenerationRequest,
        LocalModelServer,
        ModelClient,
        SamplingParams,
        local_server_missing,
    )

    reason = local_server_missing()
    if reason is None:
        with LocalModelServer() as server:
            client = ModelClient(server.client_config(), cache=False)
            [response] = client.generate_sync(
                [GenerationRequest.chat("Say hi.", params=SamplingParams(max_tokens=4), id="probe")]
            )
            client.close()
            completion = response.completions[0]
            if not completion.ok:
                state = "still running" if server.running else "died (see dmesg)"
                reason = (
                    f"the llama-cpp server does not generate ({completion.error}; "
                    f"server {state}); its stderr ends: {server.stderr_tail(120)!r}"
                )
    if reason is not None:
        message = f"embedded local model unusable: {reason}"
        if os.environ.get("EXECLENS_REQUIRE_LOCAL_MODEL") or os.environ.get(
            "EXECLENS_REQUIRE_DATA"
        ):
            pytest.fail(message)
        pytest.skip(message)
    yield


def test_transform_on_raw_files_names_every_rejection(
    embedded: None, data_dir: Path, tmp_path: Path
) -> None:
    config = load_config(
        write_config(
            tmp_path / "t.yaml",
            {
                "out": str(tmp_path / "out"),
                "sources": [{"path": str(data_dir / "codeio" / "rawcode_1k.jsonl"), "limit": 2}],
                "stages": ["transform"],
                "model": {"name": "local"},
                "transform_sampling": {"max_tokens": 96},
                "shard_size": 2,
            },
        )
    )
    run_pipeline(config, progress=False)
    records = [
        json.loads(line)
        for line in (tmp_path / "out" / "shards" / "transform" / "00000.jsonl")
        .read_text()
        .splitlines()
    ]
    assert [r["id"] for r in records] == ["rawcode_1k/0", "rawcode_1k/1"]
    for record in records:
        assert record["transform"]["finish_reason"] in ("stop", "length", None)
        if record.get("reject"):
            assert record["reject"]["reason"].startswith(_TRANSFORM_REASONS), record["reject"]
            # a prompt over the context is a named model error; a dead server is not
            assert record["reject"]["reason"] != "model_error:connection_error"
        else:
            assert "def main_solution" in record["refcode"]
            assert "def input_generator" in record["input_generator"]


def test_demo_synthesis_runs_every_later_stage_with_the_model(
    embedded: None, data_dir: Path, tmp_path: Path
) -> None:
    card_path = run_demo_synthesis(tmp_path / "demo", functions=1, max_tokens=32)
    card = json.loads((tmp_path / "demo" / "card.json").read_text())
    assert card_path.read_text().startswith("# execlens synth")
    assert card["stages"]["predict"]["rejected"] == {}  # every request answered
    assert card["instances"] == 4  # 1 function × 2 pairs × (input, output)
    assert sum(card["labels_turn_1"].values()) == 4
    assert card["revised"] == 4 - card["labels_turn_1"].get("success", 0)
    rows = [
        json.loads(line)
        for line in (tmp_path / "demo" / "codeio_pp.jsonl").read_text().splitlines()
    ]
    assert all(r["messages"][1]["content"] for r in rows)
