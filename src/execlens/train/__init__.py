"""Training recipes on TRL: SFT on reasoning chains, then GRPO on execution-verified rewards.

* :func:`run_sft` / :func:`run_grpo` with :class:`SFTRunConfig` / :class:`GRPORunConfig`
  (read with :func:`load_config`; ``execlens train sft|grpo CONFIG``);
* :func:`embedded_model_dir`: the embedded model as trainable safetensors (converted once
  from its GGUF into the cache, keyed by the GGUF's sha256);
* :func:`collect_chains`: CodeReasoner's first phase -- sample reasoning chains from a
  teacher through ``execlens.models``, keep those the judge accepts, count acceptance per
  task kind (``execlens train chains CONFIG`` with :class:`ChainsRunConfig`,
  :func:`run_chains`).

Needs the ``train`` extra (torch, transformers, trl, peft, gguf); importing this package
imports none of them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from execlens._lazy import lazy_exports

if TYPE_CHECKING:
    from execlens.train._chains import ChainStats, collect_chains, load_tasks, run_chains
    from execlens.train._config import (
        ChainsRunConfig,
        ConfigError,
        GRPORunConfig,
        LoraSettings,
        SFTRunConfig,
        load_config,
    )
    from execlens.train._data import load_rows
    from execlens.train._run import TrainResult, reward_functions, run_grpo, run_sft
    from execlens.train._weights import (
        EMBEDDED,
        TrainDependencyError,
        embedded_model_dir,
        resolve_model_path,
    )

_EXPORTS = {
    "ChainStats": "_chains",
    "collect_chains": "_chains",
    "load_tasks": "_chains",
    "run_chains": "_chains",
    "ChainsRunConfig": "_config",
    "ConfigError": "_config",
    "GRPORunConfig": "_config",
    "LoraSettings": "_config",
    "SFTRunConfig": "_config",
    "load_config": "_config",
    "load_rows": "_data",
    "TrainResult": "_run",
    "reward_functions": "_run",
    "run_grpo": "_run",
    "run_sft": "_run",
    "EMBEDDED": "_weights",
    "TrainDependencyError": "_weights",
    "embedded_model_dir": "_weights",
    "resolve_model_path": "_weights",
}

__all__, __getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
