"""``train sft`` resumes a killed run from its last checkpoint, and holds its output_dir.

Kept small like ``test_cpu_runs``: LoRA adapters (a checkpoint of a few MB, not the full
model and its optimizer state), batch 2, 64 tokens, one then two steps.  A kill between
the two runs would leave exactly what the first one leaves: ``checkpoint-1`` and no
final model; the second run goes on from there instead of starting over.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("trl", reason="training extra not installed (torch, transformers, trl)")
pytest.importorskip("peft", reason="peft not installed (LoRA keeps the checkpoint small)")

from execlens.train import SFTRunConfig, embedded_model_dir, run_sft  # noqa: E402


@pytest.fixture(scope="module")
def model_dir() -> Path:
    from execlens.models import LocalModelError

    try:
        return embedded_model_dir()
    except LocalModelError as exc:
        pytest.skip(str(exc))


@pytest.mark.slow
def test_sft_resumes_from_its_last_checkpoint(model_dir: Path, tmp_path: Path) -> None:
    rows = [
        {
            "messages": [
                {"role": "user", "content": f"f({i})?"},
                {"role": "assistant", "content": f"[ANSWER]{i + 1}[/ANSWER]"},
            ]
        }
        for i in range(8)
    ]
    data = tmp_path / "chains.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "out"

    def config(steps: int) -> SFTRunConfig:
        return SFTRunConfig(
            data=str(data),
            output_dir=str(out),
            max_steps=steps,
            save_steps=1,
            per_device_train_batch_size=2,
            max_length=64,
            torch_threads=1,
            lora={"enabled": True, "r": 4, "alpha": 8},
        )

    first = run_sft(config(1))
    assert first.resumed_from is None and first.steps == 1
    assert (out / "checkpoint-1").is_dir()
    second = run_sft(config(2))
    assert second.resumed_from is not None and Path(second.resumed_from).name == "checkpoint-1"
    assert second.steps == 2
    # Only step 2 was trained now: step 1's loss comes from the checkpoint's history.
    assert [h["step"] for h in second.log_history if "loss" in h] == [1, 2]
    assert (out / "checkpoint-2").is_dir()
