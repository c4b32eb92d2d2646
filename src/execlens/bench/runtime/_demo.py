"""The runtime benchmark in ``execlens demo``: every kind of question about execlens's
example programs, asked of the embedded model, with the constant-answer baselines beside
its scores (so a tiny model's figure can be read against "always YES")."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from execlens.bench.examples.programs import EXAMPLES

if TYPE_CHECKING:
    from execlens.engine import Engine

__all__ = ["DEMO_RUNS", "demo_evals", "write_demo_programs"]

#: How many example runs the demo asks about (about 50 questions).
DEMO_RUNS = 8


def write_demo_programs(path: Path) -> Path:
    """The examples as a CRUXEval-shaped JSONL (one record per input); the references
    come from tracing, so no output is written."""
    rows = [
        {
            "id": f"{example['id']}_{index}",
            "code": example["code"],
            "input": arguments,
            "output": "",
        }
        for example in EXAMPLES
        for index, arguments in enumerate(example["inputs"])
    ]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def demo_evals(directory: Path, engine: Engine) -> list[tuple[str, dict[str, Any]]]:
    """One run: every kind (``all``) about the first runs of the examples (a slice: the
    embedded model answers on the CPU, and the demo has other runs to do)."""
    data = write_demo_programs(directory / "programs.jsonl")
    return [
        (
            "runtime-all",
            {"benchmark": "runtime", "task": "all", "data": str(data), "limit": DEMO_RUNS},
        )
    ]
