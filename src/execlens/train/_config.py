"""Training configs (pydantic): one file per run, YAML / JSON / TOML.

``model: embedded`` trains the embedded SmolLM2-135M (converted once from its GGUF); any
other value is a local folder or a hub id for transformers.  Fields beyond these go to
TRL's own config unchanged through ``trl_args`` (e.g. ``gradient_checkpointing``,
``bf16``, ``deepspeed``), so a recipe can use every TRL option without a field here.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

__all__ = [
    "ChainsRunConfig",
    "ConfigError",
    "GRPORunConfig",
    "LoraSettings",
    "SFTRunConfig",
    "load_config",
]


class ConfigError(ValueError):
    """A training config that cannot be read or validated (named, with the fix)."""


class LoraSettings(BaseModel):
    """LoRA adapters (peft); off unless ``enabled``."""

    model_config = ConfigDict(extra="forbid")

    enabled: bool = False
    r: int = Field(default=16, ge=1)
    alpha: int = Field(default=32, ge=1)
    dropout: float = Field(default=0.05, ge=0.0, lt=1.0)
    target_modules: list[str] | str = "all-linear"


class _Common(BaseModel):
    model_config = ConfigDict(extra="forbid")

    model: str = "embedded"
    data: str = Field(description="a dataset file (Parquet / JSONL) or an export folder")
    output_dir: str
    max_steps: int = Field(default=-1, description="-1: train num_train_epochs")
    num_train_epochs: float = 1.0
    learning_rate: float = 1e-5
    per_device_train_batch_size: int = Field(default=4, ge=1)
    gradient_accumulation_steps: int = Field(default=1, ge=1)
    logging_steps: int = Field(default=1, ge=1)
    save_steps: int | None = None
    seed: int = 0
    max_samples: int | None = Field(default=None, ge=1, description="use only the first N rows")
    lora: LoraSettings = Field(default_factory=LoraSettings)
    torch_threads: int | None = Field(
        default=None,
        ge=1,
        description="torch intra-op threads (default: torch's); 1 on "
        "a busy small CPU box, where threads that wait on "
        "each other make every step several times slower",
    )
    trl_args: dict[str, Any] = Field(default_factory=dict)


class SFTRunConfig(_Common):
    """``execlens train sft``: TRL SFTTrainer on chat ``messages`` (or ``prompt`` +
    ``completion``) rows -- CodeI/O(++) messages or accepted teacher chains."""

    kind: Literal["sft"] = "sft"
    max_length: int = Field(default=1024, ge=16)
    learning_rate: float = 2e-5


class GRPORunConfig(_Common):
    """``execlens train grpo``: TRL GRPOTrainer on an ``execlens export`` TRL dataset with
    the execution-verified reward (plus the optional format reward)."""

    kind: Literal["grpo"] = "grpo"
    # 4, like per_device_train_batch_size: TRL refuses a batch it does not divide, so the
    # defaults must fit each other on one process.
    num_generations: int = Field(default=4, ge=2)
    max_completion_length: int = Field(default=512, ge=1)
    temperature: float = Field(default=1.0, gt=0.0)
    beta: float = Field(default=0.0, ge=0.0)
    shaping: Literal["binary", "absolute_zero"] = "binary"
    format_weight: float = Field(
        default=0.0, ge=0.0, description="weight of the format reward; 0 leaves it out"
    )
    answer_format: Literal["tagged", "first_line"] = Field(
        default="tagged",
        description="where completions put the answer: inside [ANSWER] "
        "tags (chat prompts), or on the first line (direct "
        "prompts ending where the answer goes)",
    )
    use_vllm: bool | Literal["auto"] = "auto"
    vllm_mode: Literal["colocate", "server"] = "colocate"


class ChainsRunConfig(BaseModel):
    """``execlens train chains``: sample reasoning chains from a teacher served through
    ``execlens.models`` for the tasks of an ``execlens export`` dataset, keep the ones
    the judge accepts (``output_dir/chains.jsonl``, SFT-ready ``messages`` rows) and
    record acceptance per task kind (``output_dir/chains.stats.json``)."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["chains"] = "chains"
    model: str = Field(
        default="local",
        description="the teacher: `local` (the embedded model) or a served model's name",
    )
    base_url: str | None = Field(
        default=None,
        description="the teacher's OpenAI-compatible "
        "URL (else $EXECLENS_BASE_URL); keys come from the "
        "environment, never from a config",
    )
    data: str = Field(
        description="the tasks: an `execlens export` folder or a Parquet / "
        "JSONL file with a `ground_truth` column"
    )
    output_dir: str
    samples: int = Field(default=4, ge=1, description="chains sampled per task")
    temperature: float = Field(default=0.7, ge=0.0)
    max_tokens: int = Field(default=1024, ge=1)
    thinking_max_tokens: int | None = Field(
        default=32768,
        ge=1,
        description="a chain the token limit cut is asked once more with this budget "
        "(within the server's context; null: never) -- the budget rule eval and "
        "synthesis share",
    )
    seed: int = 0
    max_samples: int | None = Field(default=None, ge=1, description="use only the first N tasks")
    no_cache: bool = False


def _read(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"config file {path} does not exist; check the path") from None
    suffix = path.suffix.lower()
    try:
        if suffix in (".yaml", ".yml"):
            import yaml

            data = yaml.safe_load(text)
        elif suffix == ".toml":
            data = tomllib.loads(text)
        elif suffix == ".json":
            data = json.loads(text)
        else:
            raise ConfigError(f"config {path}: use a .yaml, .toml or .json file")
    except Exception as exc:  # noqa: BLE001 - json / toml / yaml errors, named
        first = " ".join(str(exc).split())  # one line: yaml's messages span several
        raise ConfigError(f"config {path} does not parse: {first[:300]}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"config {path} must hold a mapping of settings")
    return data


def load_config(path: str | Path, kind: str) -> SFTRunConfig | GRPORunConfig | ChainsRunConfig:
    """Read and validate a ``sft``, ``grpo`` or ``chains`` config; relative paths in it
    are taken relative to the config file."""
    path = Path(path)
    data = _read(path)
    classes: dict[str, type[SFTRunConfig | GRPORunConfig | ChainsRunConfig]] = {
        "sft": SFTRunConfig,
        "grpo": GRPORunConfig,
        "chains": ChainsRunConfig,
    }
    cls = classes[kind]
    if data.get("kind", kind) != kind:
        raise ConfigError(
            f"config {path} is a {data['kind']!r} config; run "
            f"`execlens train {data['kind']} {path}`"
        )
    try:
        config = cls.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ConfigError(f"config {path}: {where}: {first['msg']}") from None
    base = path.parent
    updates = {}
    for key in ("data", "output_dir"):
        value = getattr(config, key)
        if not Path(value).is_absolute():
            updates[key] = str((base / value).resolve())
    if config.model not in ("embedded", "local") and (base / config.model).exists():
        updates["model"] = str((base / config.model).resolve())
    return config.model_copy(update=updates)
