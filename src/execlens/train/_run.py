"""SFT and GRPO runs on TRL: a config in, a trained checkpoint and its log out.

Both load the model through :func:`resolve_model_path` (``embedded`` = the converted
embedded model), wrap it in LoRA when the config asks, and hand everything else to TRL.
The GRPO run's reward is :class:`~execlens.rewards.ExeclensReward` (plus the format
reward when ``format_weight`` > 0), judged in this process's shared engine.
"""

from __future__ import annotations

import importlib.util
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from execlens.train._config import GRPORunConfig, LoraSettings, SFTRunConfig
from execlens.train._data import load_rows
from execlens.train._weights import require, resolve_model_path

__all__ = ["TrainResult", "run_grpo", "run_sft"]


@dataclass
class TrainResult:
    """Where the run saved its model, and TRL's log history (one dict per logged step)."""

    output_dir: str
    log_history: list[dict[str, Any]] = field(default_factory=list)
    steps: int = 0


def _peft(lora: LoraSettings) -> Any:
    if not lora.enabled:
        return None
    require("peft")
    from peft import LoraConfig

    return LoraConfig(r=lora.r, lora_alpha=lora.alpha, lora_dropout=lora.dropout,
                      target_modules=lora.target_modules, task_type="CAUSAL_LM")


def _common_args(config: SFTRunConfig | GRPORunConfig) -> dict[str, Any]:
    args: dict[str, Any] = {
        "output_dir": config.output_dir, "max_steps": config.max_steps,
        "num_train_epochs": config.num_train_epochs, "learning_rate": config.learning_rate,
        "per_device_train_batch_size": config.per_device_train_batch_size,
        "gradient_accumulation_steps": config.gradient_accumulation_steps,
        "logging_steps": config.logging_steps, "seed": config.seed, "report_to": "none",
        "save_strategy": "steps" if config.save_steps else "no",
    }
    if config.save_steps:
        args["save_steps"] = config.save_steps
    import torch

    if config.torch_threads is not None:
        torch.set_num_threads(config.torch_threads)
    if not torch.cuda.is_available():
        # TRL defaults to bf16, which a CPU-only machine refuses: train in fp32 there.
        args.update(bf16=False, use_cpu=True)
    args.update(config.trl_args)
    return args


def _load(model: str) -> tuple[Any, Any]:
    os.environ.setdefault("HF_HUB_OFFLINE", "1") if model == "embedded" else None
    from transformers import AutoModelForCausalLM, AutoTokenizer

    path = resolve_model_path(model)
    tokenizer = AutoTokenizer.from_pretrained(path)
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    return AutoModelForCausalLM.from_pretrained(path), tokenizer


def _finish(trainer: Any, config: SFTRunConfig | GRPORunConfig) -> TrainResult:
    trainer.train()
    trainer.save_model(config.output_dir)
    history = list(trainer.state.log_history)
    return TrainResult(config.output_dir, history, int(trainer.state.global_step))


def run_sft(config: SFTRunConfig) -> TrainResult:
    """Supervised fine-tuning on ``messages`` (or ``prompt``/``completion``) rows."""
    require("torch", "transformers", "trl")
    from trl import SFTConfig, SFTTrainer

    dataset = load_rows(config.data, preferred="chains.jsonl", max_samples=config.max_samples)
    if "messages" not in dataset.column_names and not {"prompt", "completion"} <= set(
            dataset.column_names):
        from execlens.train._config import ConfigError

        raise ConfigError(f"SFT data {config.data} needs a `messages` column (or `prompt` "
                          f"and `completion`); has {dataset.column_names}")
    keep = [c for c in ("messages", "prompt", "completion") if c in dataset.column_names]
    dataset = dataset.select_columns(keep)
    model, tokenizer = _load(config.model)
    args = SFTConfig(max_length=config.max_length, **_common_args(config))
    trainer = SFTTrainer(model=model, args=args, train_dataset=dataset,
                         processing_class=tokenizer, peft_config=_peft(config.lora))
    return _finish(trainer, config)


def _use_vllm(setting: bool | str) -> bool:
    available = importlib.util.find_spec("vllm") is not None
    if setting == "auto":
        return available
    if setting and not available:
        from execlens.train._config import ConfigError

        raise ConfigError("use_vllm: true, but vLLM is not installed (pip install vllm), "
                          "or set use_vllm: auto")
    return bool(setting)


def reward_functions(config: GRPORunConfig) -> tuple[list[Any], list[float]]:
    """The reward functions (and weights) a GRPO config asks for."""
    from execlens.rewards import ExeclensFormatReward, ExeclensReward, Shaping

    funcs: list[Any] = [ExeclensReward(shaping=Shaping.named(config.shaping),
                                       answer_format=config.answer_format)]
    weights = [1.0]
    if config.format_weight > 0:
        funcs.append(ExeclensFormatReward(answer_format=config.answer_format))
        weights.append(config.format_weight)
    return funcs, weights


def run_grpo(config: GRPORunConfig, *, callbacks: list[Any] | None = None) -> TrainResult:
    """GRPO with execution-verified rewards on an ``execlens export`` TRL dataset."""
    require("torch", "transformers", "trl")
    from trl import GRPOConfig, GRPOTrainer

    dataset = load_rows(config.data, preferred="trl.parquet", max_samples=config.max_samples,
                        required=("prompt", "ground_truth"))
    funcs, weights = reward_functions(config)
    model, tokenizer = _load(config.model)
    args = GRPOConfig(num_generations=config.num_generations,
                      max_completion_length=config.max_completion_length,
                      temperature=config.temperature, beta=config.beta,
                      reward_weights=weights, use_vllm=_use_vllm(config.use_vllm),
                      **({"vllm_mode": config.vllm_mode} if _use_vllm(config.use_vllm) else {}),
                      **_common_args(config))
    trainer = GRPOTrainer(model=model, reward_funcs=funcs, args=args, train_dataset=dataset,
                          processing_class=tokenizer, peft_config=_peft(config.lora),
                          callbacks=callbacks)
    return _finish(trainer, config)


def output_path(result: TrainResult) -> Path:
    """The saved checkpoint's folder."""
    return Path(result.output_dir)
