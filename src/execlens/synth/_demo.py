"""A short synthesis run for ``make demo``: a handful of parsed CodeI/O functions through
every later stage with the embedded model, ending with the dataset card."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from execlens.synth._config import ConfigError, SynthConfig

__all__ = ["demo_config", "run_demo_synthesis"]

_PARSED = Path("codeio") / "rawcode_1k_parsed.jsonl"


def _data_root() -> Path:
    # The same convention as the test suite: EXECLENS_TEST_DATA, else ../shared/data
    # beside the repository (this file is src/execlens/synth/_demo.py).
    configured = Path(os.environ.get("EXECLENS_TEST_DATA", "../shared/data"))
    if configured.is_absolute():
        return configured
    return (Path(__file__).resolve().parents[3] / configured).resolve()


def demo_config(out_dir: str | Path, *, functions: int = 4, max_tokens: int = 96,
                data: str | Path | None = None, model: dict[str, Any] | None = None
                ) -> SynthConfig:
    """The demo's config: ``functions`` records of ``rawcode_1k_parsed.jsonl`` entering at
    ``collect`` (2 pairs each), then prompts, predict, verify, revise and assemble with
    the embedded model (``max_tokens`` per answer keeps it to a minute or two)."""
    path = Path(data) if data is not None else _data_root() / _PARSED
    if not path.is_file():
        raise ConfigError(f"{path}: the CodeI/O parsed functions are missing; set "
                          "EXECLENS_TEST_DATA to the shared data directory")
    return SynthConfig.model_validate({
        "out": str(out_dir),
        "sources": [{"path": str(path), "limit": functions, "pairs_per_function": 2,
                     "name": "codeio-parsed"}],
        "stages": ["collect", "prompts", "predict", "verify", "revise", "assemble"],
        "model": model or {"name": "local"},
        "sampling": {"max_tokens": max_tokens, "temperature": 0.0, "seed": 0},
        "shard_size": 4,
        "workers": 2,
    })


def run_demo_synthesis(out_dir: str | Path, *, functions: int = 4, max_tokens: int = 96,
                       progress: bool = False, console: Any = None) -> Path:
    """Run the demo synthesis into ``out_dir`` (replacing an earlier run there) and return the
    path of its dataset card (``card.md``; ``card.json`` and ``card.svg`` beside it)."""
    from execlens.synth._pipeline import run_pipeline

    config = demo_config(out_dir, functions=functions, max_tokens=max_tokens)
    run_pipeline(config, overwrite=True, progress=progress, console=console)
    return Path(out_dir) / "card.md"
