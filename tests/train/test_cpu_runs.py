"""CPU runs with the embedded model: 2 SFT steps and 2 GRPO steps, the reward really called.

Small on purpose (batch 2-4, at most 8 new tokens) to fit CI; the embedded model is converted
from its GGUF once into the cache and reused.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("trl", reason="training extra not installed (torch, transformers, trl)")

from execlens.rewards import Task, export_tasks  # noqa: E402
from execlens.train import GRPORunConfig, SFTRunConfig, embedded_model_dir, run_grpo, run_sft  # noqa: E402


@pytest.fixture(scope="module")
def model_dir() -> Path:
    from execlens.models import LocalModelError

    try:
        return embedded_model_dir()
    except LocalModelError as exc:
        pytest.skip(str(exc))


def test_conversion_is_cached_and_keyed_by_the_gguf_hash(model_dir: Path) -> None:
    from execlens.models import locate_local_model, model_digest

    assert model_dir.name == model_digest(locate_local_model())[:16]
    assert (model_dir / "model.safetensors").is_file() and (model_dir / "complete").is_file()
    assert embedded_model_dir() == model_dir  # second call: no conversion


@pytest.mark.slow
def test_two_sft_steps(model_dir: Path, tmp_path: Path) -> None:
    rows = [
        {
            "messages": [
                {"role": "user", "content": f"What does f({i}) return for def f(x): return x + 1?"},
                {"role": "assistant", "content": f"[ANSWER]{i + 1}[/ANSWER]"},
            ]
        }
        for i in range(8)
    ]
    data = tmp_path / "chains.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    result = run_sft(
        SFTRunConfig(
            data=str(data),
            output_dir=str(tmp_path / "out"),
            max_steps=2,
            per_device_train_batch_size=2,
            max_length=64,
            torch_threads=1,
        )
    )
    assert result.steps == 2
    losses = [h["loss"] for h in result.log_history if "loss" in h]
    assert len(losses) == 2 and all(loss > 0 for loss in losses)
    assert (tmp_path / "out" / "model.safetensors").is_file()


@pytest.mark.slow
def test_two_grpo_steps_call_the_reward(model_dir: Path, tmp_path: Path) -> None:
    tasks = [
        Task("output", "def f(x):\n    return x + 1\n", repr(i + 1), call=f"f({i})", id=f"t{i}")
        for i in range(8)
    ]
    export_tasks(tasks, tmp_path / "data", formats=["trl"])
    result = run_grpo(
        GRPORunConfig(
            data=str(tmp_path / "data"),
            output_dir=str(tmp_path / "out"),
            max_steps=2,
            per_device_train_batch_size=4,
            num_generations=2,
            max_completion_length=8,
            format_weight=0.5,
            use_vllm=False,
            torch_threads=1,
        )
    )
    assert result.steps == 2
    logged = [h for h in result.log_history if "rewards/execlens_reward/mean" in h]
    assert len(logged) == 2
    # The reward ran on every completion: its per-label counts add up to the batch.
    for entry in logged:
        counts = {
            k: v
            for k, v in entry.items()
            if k.startswith("execlens_reward/") and "pass_rate" not in k
        }
        assert sum(counts.values()) == 4, entry
        assert "rewards/execlens_format_reward/mean" in entry
