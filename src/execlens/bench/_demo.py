"""The demo evaluation: the embedded local model on execlens's own example programs.

Reference outputs are not stored: they are computed by running the bundled programs in
the sandbox, then the same pipeline as ``execlens eval`` asks the model CRUXEval-style
questions (predict the output; predict an input) about them.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from execlens.bench._eval import EvalConfig, EvalResult, run_eval
from execlens.bench.examples.programs import EXAMPLES
from execlens.engine import Engine, Job

__all__ = ["build_demo_cruxeval", "run_demo"]


def build_demo_cruxeval(engine: Engine, path: Path) -> Path:
    """Run every example on its inputs; write a CRUXEval-format file of the results."""
    jobs, keys = [], []
    for example in EXAMPLES:
        for index, arguments in enumerate(example["inputs"]):  # type: ignore[union-attr]
            jobs.append(Job(str(example["code"]), call=f"f({arguments})"))
            keys.append((example, index, arguments))
    rows = []
    for (example, index, arguments), outcome in zip(keys, engine.map(jobs)):
        if not outcome.ok:
            raise RuntimeError(f"demo example {example['id']} failed on {arguments}: "
                               f"{outcome.status.value} {outcome.message}")
        rows.append({"id": f"{example['id']}_{index}", "code": example["code"],
                     "input": arguments, "output": repr(outcome.decoded())})
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def run_demo(out: Path, *, engine: Engine, model: str = "local", base_url: str | None = None,
             on_result: Callable[[str, EvalResult], None] | None = None) -> list[EvalResult]:
    """Every demo evaluation into ``out/<name>``; returns their results."""
    data = build_demo_cruxeval(engine, out / "data" / "cruxeval.jsonl")
    results: list[EvalResult] = []
    plans: list[tuple[str, dict[str, Any]]] = [
        ("cruxeval-output", {"benchmark": "cruxeval", "task": "output"}),
        ("cruxeval-input", {"benchmark": "cruxeval", "task": "input"}),
    ]
    for name, fields in plans:
        config = EvalConfig(prompt="direct", model=model, base_url=base_url, n=1,
                            temperature=0.0, max_tokens=64, data=str(data), **fields)
        result = run_eval(config, out / name, show_progress=True)
        results.append(result)
        if on_result is not None:
            on_result(name, result)
    return results
