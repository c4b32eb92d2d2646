"""The whole pipeline through the store: a CodeI/O++ run on real parsed functions in the
real engine, its dataset loaded by ``datasets`` and rendered with the embedded model's
chat template, and byte-identical resume after a real SIGKILL of ``execlens synth run``."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from execlens.synth import load_config, run_pipeline, synth_status

from .conftest import final_bytes, pipeline_config, write_config

REPO = Path(__file__).resolve().parents[2]


def _chat_template() -> str:
    """The chat template stored in the embedded model's GGUF file."""
    from execlens.models import local_server_missing, locate_local_model

    if local_server_missing() is not None:
        pytest.skip(f"embedded model unavailable: {local_server_missing()}")
    gguf = pytest.importorskip("gguf")
    reader = gguf.GGUFReader(str(locate_local_model()))
    field = reader.fields["tokenizer.chat_template"]
    return bytes(field.parts[field.data[0]]).decode("utf-8")


def test_full_run_writes_a_dataset_that_datasets_loads_and_the_template_renders(
    data_dir: Path, tmp_path: Path, scripted_server
) -> None:
    config = load_config(
        write_config(
            tmp_path / "run.yaml",
            pipeline_config(data_dir, tmp_path / "out", scripted_server.base_url),
        )
    )
    status = run_pipeline(config, progress=False)
    out = tmp_path / "out"
    assert status["stages"]["assemble"] == {"done": True}
    card = json.loads((out / "card.json").read_text())
    # 6 functions × 2 pairs × (input + output prediction) = 24 instances, every one labelled.
    assert card["stages"]["collect"]["records"] == 6
    assert card["instances"] == sum(card["labels_turn_1"].values())
    accepted = card["stages"]["collect"]["accepted"]
    assert card["instances"] == 4 * accepted and accepted >= 4
    assert card["labels_turn_1"].get("no answer", 0) >= 1  # the scripted prose answers
    assert card["revised"] == card["instances"] - card["labels_turn_1"].get("success", 0)
    assert "first-turn accuracy" in (out / "card.md").read_text()
    assert (out / "card.svg").read_text().startswith("<svg")
    # What the answers were verified under (issue 23): the engine's isolation.
    assert card["isolation"]["mode"] in ("auto", "degraded", "full", "none")
    assert card["isolation"]["layers"]["filesystem"] != "missing"
    assert f"namespaces via {card['isolation']['method']}" in (out / "card.md").read_text()

    import datasets
    import jinja2

    loaded = datasets.load_dataset(
        "parquet", data_files=str(out / "codeio_pp.parquet"), split="train"
    )
    assert len(loaded) == card["instances"]
    template = jinja2.Environment().from_string(_chat_template())
    for row in loaded.select(range(3)):
        text = template.render(messages=row["messages"], add_generation_prompt=False)
        assert text.count("<|im_start|>user") == 1 and text.count("<|im_start|>assistant") == 1
        assert row["messages"][1]["content"] in text
    jsonl = [json.loads(line) for line in (out / "codeio.jsonl").read_text().splitlines()]
    # Streamed in the pipeline's order: the last stage's accepted records, shard by shard.
    revised = [
        json.loads(line)
        for path in sorted((out / "shards" / "revise").iterdir())
        for line in path.read_text().splitlines()
    ]
    assert [r["id"] for r in jsonl] == [r["id"] for r in revised if not r.get("reject")]
    assert len({r["id"] for r in jsonl}) == len(jsonl)


def _cli(config: Path, *extra: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [
            str(Path(sys.executable).parent / "execlens"),
            "synth",
            "run",
            str(config),
            "--quiet",
            *extra,
        ],
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def test_sigkill_mid_run_then_rerun_is_byte_identical(
    data_dir: Path, tmp_path: Path, scripted_server
) -> None:
    base = pipeline_config(
        data_dir, tmp_path / "whole", scripted_server.base_url, functions=8, shard_size=1
    )
    whole_cfg = write_config(tmp_path / "whole.yaml", base)
    killed_cfg = write_config(tmp_path / "killed.yaml", {**base, "out": str(tmp_path / "killed")})

    assert _cli(whole_cfg).wait(timeout=300) == 0
    expected = final_bytes(tmp_path / "whole")
    assert set(expected) >= {"codeio.jsonl", "codeio_pp.parquet", "card.json"}

    # Kill once some (not all) of the prompts stage's shards are finished.
    process = _cli(killed_cfg)
    markers = tmp_path / "killed" / ".done" / "prompts"
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and process.poll() is None:
        if markers.is_dir() and len(list(markers.glob("*.json"))) >= 2:
            break
        time.sleep(0.02)
    assert process.poll() is None, "the run ended before it could be killed"
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    assert not (tmp_path / "killed" / "card.json").exists()
    partial = synth_status(tmp_path / "killed")
    assert 2 <= partial["stages"]["prompts"]["shards_done"]
    assert partial["stages"]["predict"]["shards_done"] < 8

    rerun = _cli(killed_cfg)
    assert rerun.wait(timeout=300) == 0, rerun.stderr.read().decode()[-2000:]
    assert final_bytes(tmp_path / "killed") == expected
