"""A short synthesis run for ``make demo``: a handful of real CodeI/O functions through
every stage from ``collect`` with the embedded model, ending with the dataset card.

The functions come from the CodeI/O data the ``reasoning-gym`` package ships
(Apache-2.0; ``reasoning_gym/data/codeio.jsonl.gz``: a ``main_solution`` and its input
generator per record), so the demo needs no data beside the install.  It takes those with
the shortest code and descriptions: on a small CPU the embedded model's time goes mostly
into reading the prompts (which hold the code), so short functions keep the step to a
couple of minutes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from execlens.synth._config import ConfigError, SynthConfig, package_file

__all__ = ["DEMO_SOURCE", "demo_config", "run_demo_synthesis", "shortest_functions"]

#: The CodeI/O functions the demo draws from (a file of the ``reasoning-gym`` package).
DEMO_SOURCE = "reasoning_gym/data/codeio.jsonl.gz"

# reasoning-gym's columns -> execlens' fields.
_COLUMNS = {
    "refcode": "code_sample",
    "problem_description": "task_description",
    "io_requirements": "input_output_spec",
    "input_generator": "input_generator",
}


def shortest_functions(path: Path, count: int) -> list[dict[str, Any]]:
    """The ``count`` records of a reasoning-gym CodeI/O file with the shortest prompt
    material (code + description + I/O spec), under execlens' field names; ties keep
    file order."""
    from execlens.store import iter_records

    usable = []
    for row in iter_records(path):
        record = row.record or {}
        given = {ours: record.get(theirs) for ours, theirs in _COLUMNS.items()}
        fields = {k: v for k, v in given.items() if isinstance(v, str) and v}
        if len(fields) < len(given):  # a column missing, empty or not text
            continue
        size = sum(len(fields[k]) for k in ("refcode", "problem_description", "io_requirements"))
        usable.append((size, row.index, fields))
    chosen = sorted(usable, key=lambda t: t[:2])[:count]
    return [{**fields, "meta": {"row": index}} for _, index, fields in chosen]


def demo_config(
    out_dir: str | Path,
    *,
    functions: int = 3,
    max_tokens: int = 64,
    data: str | Path | None = None,
    model: dict[str, Any] | None = None,
) -> SynthConfig:
    """The demo's config: the ``functions`` shortest records of reasoning-gym's CodeI/O
    data (or of ``data``, a file in its format), written to ``out_dir/demo_functions.jsonl``
    and entering at ``collect`` (2 pairs each, from their generators), then prompts,
    predict, verify, revise and assemble with the embedded model; ``max_tokens`` per
    answer keeps it to a couple of minutes."""
    try:
        path = Path(data) if data is not None else package_file(DEMO_SOURCE)
    except ValueError as exc:
        raise ConfigError(f"the demo's CodeI/O functions: {exc}") from exc
    if not path.is_file():
        raise ConfigError(
            f"{path}: no such file (the demo reads reasoning-gym's CodeI/O "
            "functions; pip install reasoning-gym)"
        )
    chosen = Path(out_dir) / "demo_functions.jsonl"
    chosen.parent.mkdir(parents=True, exist_ok=True)
    chosen.write_text(
        "".join(json.dumps(r, sort_keys=True) + "\n" for r in shortest_functions(path, functions)),
        encoding="utf-8",
    )
    return SynthConfig.model_validate(
        {
            "out": str(out_dir),
            "sources": [{"path": str(chosen), "pairs_per_function": 2, "name": "codeio"}],
            "stages": ["collect", "prompts", "predict", "verify", "revise", "assemble"],
            "model": model or {"name": "local"},
            "sampling": {"max_tokens": max_tokens, "temperature": 0.0, "seed": 0},
            "shard_size": 4,
            "workers": 2,
        }
    )


def run_demo_synthesis(
    out_dir: str | Path,
    *,
    functions: int = 3,
    max_tokens: int = 64,
    progress: bool = False,
    console: Any = None,
) -> Path:
    """Run the demo synthesis into ``out_dir`` (replacing an earlier run there) and return the
    path of its dataset card (``card.md``; ``card.json`` and ``card.svg`` beside it)."""
    from execlens.synth._pipeline import run_pipeline

    config = demo_config(out_dir, functions=functions, max_tokens=max_tokens)
    run_pipeline(config, overwrite=True, progress=progress, console=console)
    return Path(out_dir) / "card.md"
