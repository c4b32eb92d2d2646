"""A short synthesis run for ``make demo``: a handful of parsed CodeI/O functions through
every later stage with the embedded model, ending with the dataset card.

The demo takes the functions with the shortest code and descriptions: on a small CPU
the embedded model's time goes mostly into reading the prompts (which hold the code),
so short functions keep the step to a couple of minutes."""

from __future__ import annotations

import json
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


def shortest_functions(path: Path, count: int) -> list[dict[str, Any]]:
    """The ``count`` rows of a parsed CodeI/O file with the shortest prompt material
    (code + description + I/O requirements) among those with at least 2 stored pairs;
    ties keep file order."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip()]
    usable = [(len(r.get("refcode", "")) + len(r.get("problem_description") or "")
               + len(r.get("io_requirements") or ""), i, r) for i, r in enumerate(rows)
              if isinstance(r.get("ios"), list) and len(r["ios"]) >= 2]
    return [{**r, "meta": {"row": i}} for _, i, r in sorted(usable, key=lambda t: t[:2])[:count]]


def demo_config(out_dir: str | Path, *, functions: int = 3, max_tokens: int = 64,
                data: str | Path | None = None, model: dict[str, Any] | None = None
                ) -> SynthConfig:
    """The demo's config: the ``functions`` shortest records of
    ``rawcode_1k_parsed.jsonl`` (written to ``out_dir/demo_functions.jsonl``) entering at
    ``collect`` (2 pairs each), then prompts, predict, verify, revise and assemble with
    the embedded model; ``max_tokens`` per answer keeps it to a couple of minutes."""
    path = Path(data) if data is not None else _data_root() / _PARSED
    if not path.is_file():
        raise ConfigError(f"{path}: the CodeI/O parsed functions are missing; set "
                          "EXECLENS_TEST_DATA to the shared data directory")
    chosen = Path(out_dir) / "demo_functions.jsonl"
    chosen.parent.mkdir(parents=True, exist_ok=True)
    chosen.write_text("".join(json.dumps(r, sort_keys=True) + "\n"
                              for r in shortest_functions(path, functions)), encoding="utf-8")
    return SynthConfig.model_validate({
        "out": str(out_dir),
        "sources": [{"path": str(chosen), "pairs_per_function": 2, "name": "codeio-parsed"}],
        "stages": ["collect", "prompts", "predict", "verify", "revise", "assemble"],
        "model": model or {"name": "local"},
        "sampling": {"max_tokens": max_tokens, "temperature": 0.0, "seed": 0},
        "shard_size": 4,
        "workers": 2,
    })


def run_demo_synthesis(out_dir: str | Path, *, functions: int = 3, max_tokens: int = 64,
                       progress: bool = False, console: Any = None) -> Path:
    """Run the demo synthesis into ``out_dir`` (replacing an earlier run there) and return the
    path of its dataset card (``card.md``; ``card.json`` and ``card.svg`` beside it)."""
    from execlens.synth._pipeline import run_pipeline

    config = demo_config(out_dir, functions=functions, max_tokens=max_tokens)
    run_pipeline(config, overwrite=True, progress=progress, console=console)
    return Path(out_dir) / "card.md"
