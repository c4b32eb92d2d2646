"""SFT and GRPO runs on TRL: a config in, a trained checkpoint and its log out.

Both load the model through :func:`resolve_model_path` (``embedded`` = the converted
embedded model), wrap it in LoRA when the config asks, and hand everything else to TRL.
The GRPO run's reward is :class:`~execlens.rewards.ExeclensReward` (plus the format
reward when ``format_weight`` > 0), judged in this process's shared engine.

A run holds its ``output_dir`` (``execlens.store``'s lock: a second run into it is refused,
naming the holder's pid) and resumes from the last ``checkpoint-N`` there, so a killed
run with ``save_steps`` set goes on where it stopped.  A config TRL would refuse (an
unknown ``trl_args`` key, a batch ``num_generations`` does not divide), an unknown model
and empty data are :class:`ConfigError` s, raised before anything is trained.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from execlens.train._config import ConfigError, GRPORunConfig, LoraSettings, SFTRunConfig
from execlens.train._data import load_rows
from execlens.train._weights import require, resolve_model_path

__all__ = ["TrainResult", "run_grpo", "run_sft"]


@dataclass
class TrainResult:
    """Where the run saved its model, and TRL's log history (one dict per logged step)."""

    output_dir: str
    log_history: list[dict[str, Any]] = field(default_factory=list)
    steps: int = 0
    resumed_from: str | None = None
    """The checkpoint a killed run was resumed from, if any."""


def _peft(lora: LoraSettings) -> Any:
    if not lora.enabled:
        return None
    require("peft")
    from peft import LoraConfig

    return LoraConfig(
        r=lora.r,
        lora_alpha=lora.alpha,
        lora_dropout=lora.dropout,
        target_modules=lora.target_modules,
        task_type="CAUSAL_LM",
    )


def _common_args(config: SFTRunConfig | GRPORunConfig) -> dict[str, Any]:
    args: dict[str, Any] = {
        "output_dir": config.output_dir,
        "max_steps": config.max_steps,
        "num_train_epochs": config.num_train_epochs,
        "learning_rate": config.learning_rate,
        "per_device_train_batch_size": config.per_device_train_batch_size,
        "gradient_accumulation_steps": config.gradient_accumulation_steps,
        "logging_steps": config.logging_steps,
        "seed": config.seed,
        "report_to": "none",
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
    try:
        tokenizer = AutoTokenizer.from_pretrained(path)
    except OSError as exc:  # transformers' "not a local folder and not a valid model id"
        raise ConfigError(
            f"model {model!r} is neither a model folder nor a model the hub (or its "
            f"offline cache) has ({' '.join(str(exc).split()).split('. ')[0]}); set "
            f"`model` to `embedded`, a folder with config.json, or a hub id"
        ) from None
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    return AutoModelForCausalLM.from_pretrained(path), tokenizer


def _trl_config(cls: type, config: SFTRunConfig | GRPORunConfig, **settings: Any) -> Any:
    """``cls(**settings, **_common_args(config))`` (a TRL config); an unknown ``trl_args``
    key or a setting TRL refuses (e.g. a batch that ``num_generations`` does not divide)
    is a :class:`ConfigError` naming it."""
    import dataclasses

    known = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(config.trl_args) - known)
    if unknown:
        raise ConfigError(
            f"trl_args: {', '.join(map(repr, unknown))} is not an option of "
            f"TRL's {cls.__name__}; check the spelling against TRL's docs"
        )
    try:
        return cls(**settings, **_common_args(config))
    except (TypeError, ValueError) as exc:
        raise ConfigError(
            f"TRL's {cls.__name__} refuses the config: {' '.join(str(exc).split())}"
        ) from None


def _check_output_dir(config: SFTRunConfig | GRPORunConfig) -> None:
    """Refuse an ``output_dir`` that names a file, before anything is loaded."""
    out = Path(config.output_dir)
    if out.exists() and not out.is_dir():
        raise ConfigError(f"output_dir {out} is a file; name a folder (it will be created)")


@contextlib.contextmanager
def _output_dir(config: SFTRunConfig | GRPORunConfig) -> Iterator[None]:
    """Hold ``output_dir`` for the run: a second run into it is refused, naming the pid."""
    from execlens.store import RunDir, StoreError

    _check_output_dir(config)
    try:  # only the verb in the identity: a resumed run may change max_steps and the like
        with RunDir.open(config.output_dir, {"verb": f"train {config.kind}"}):
            yield
    except StoreError as exc:
        raise ConfigError(str(exc).replace("--out", "output_dir")) from None


def _finish(trainer: Any, config: SFTRunConfig | GRPORunConfig) -> TrainResult:
    from transformers.trainer_utils import get_last_checkpoint

    # A killed run resumes from its last checkpoint (written every `save_steps`).
    last = get_last_checkpoint(config.output_dir) if Path(config.output_dir).is_dir() else None
    trainer.train(resume_from_checkpoint=last)
    trainer.save_model(config.output_dir)
    history = list(trainer.state.log_history)
    return TrainResult(
        config.output_dir, history, int(trainer.state.global_step), resumed_from=last
    )


def _train(
    trainer_class: Any, config: SFTRunConfig | GRPORunConfig, args: Any, dataset: Any, **extra: Any
) -> TrainResult:
    """Hold the output folder, load the model, build ``trainer_class`` over ``dataset``
    (with the configured LoRA adapter and TRL's ``extra`` keywords) and train it."""
    with _output_dir(config):
        model, tokenizer = _load(config.model)
        trainer = trainer_class(
            model=model,
            args=args,
            train_dataset=dataset,
            processing_class=tokenizer,
            peft_config=_peft(config.lora),
            **extra,
        )
        return _finish(trainer, config)


def run_sft(config: SFTRunConfig) -> TrainResult:
    """Supervised fine-tuning on ``messages`` (or ``prompt``/``completion``) rows."""
    require("torch", "transformers", "trl")
    from trl import SFTConfig, SFTTrainer

    _check_output_dir(config)
    dataset = load_rows(config.data, preferred="chains.jsonl", max_samples=config.max_samples)
    if "messages" not in dataset.column_names and not {"prompt", "completion"} <= set(
        dataset.column_names
    ):
        raise ConfigError(
            f"SFT data {config.data} needs a `messages` column (or `prompt` "
            f"and `completion`); has {dataset.column_names}"
        )
    keep = [c for c in ("messages", "prompt", "completion") if c in dataset.column_names]
    dataset = dataset.select_columns(keep)
    args = _trl_config(SFTConfig, config, max_length=config.max_length)
    return _train(SFTTrainer, config, args, dataset)


def _use_vllm(setting: bool | str) -> bool:
    available = importlib.util.find_spec("vllm") is not None
    if setting == "auto":
        return available
    if setting and not available:
        raise ConfigError(
            "use_vllm: true, but vLLM is not installed (pip install vllm), or set use_vllm: auto"
        )
    return bool(setting)


def reward_functions(config: GRPORunConfig) -> tuple[list[Any], list[float]]:
    """The reward functions (and weights) a GRPO config asks for."""
    from execlens.rewards import ExeclensFormatReward, ExeclensReward, Shaping

    funcs: list[Any] = [
        ExeclensReward(shaping=Shaping.named(config.shaping), answer_format=config.answer_format)
    ]
    weights = [1.0]
    if config.format_weight > 0:
        funcs.append(ExeclensFormatReward(answer_format=config.answer_format))
        weights.append(config.format_weight)
    return funcs, weights


def run_grpo(config: GRPORunConfig, *, callbacks: list[Any] | None = None) -> TrainResult:
    """GRPO with execution-verified rewards on an ``execlens export`` TRL dataset."""
    require("torch", "transformers", "trl")
    _check_output_dir(config)
    # The rewards first: a bad EXECLENS_* worker setting refuses the run before TRL loads.
    funcs, weights = reward_functions(config)
    from trl import GRPOConfig, GRPOTrainer

    dataset = load_rows(
        config.data,
        preferred="trl.parquet",
        max_samples=config.max_samples,
        required=("prompt", "ground_truth"),
    )
    args = _trl_config(
        GRPOConfig,
        config,
        num_generations=config.num_generations,
        max_completion_length=config.max_completion_length,
        temperature=config.temperature,
        beta=config.beta,
        reward_weights=weights,
        use_vllm=_use_vllm(config.use_vllm),
        **({"vllm_mode": config.vllm_mode} if _use_vllm(config.use_vllm) else {}),
    )
    return _train(GRPOTrainer, config, args, dataset, reward_funcs=funcs, callbacks=callbacks)


def output_path(result: TrainResult) -> Path:
    """The saved checkpoint's folder."""
    return Path(result.output_dir)
