"""CRUXEval in ``execlens demo``: the shipped official files, then execlens's own programs.

1. :func:`shipped_runs`: CRUXEval's 800 samples and the official Code Llama 7B (T = 0.2)
   generations, scored in official mode (35.95 input / 34.21 output pass@1, as published)
   and in strict mode beside it.
2. :func:`demo_evals`: execlens's example programs, run in the sandbox for their reference
   outputs and written as a CRUXEval-format file, asked of the embedded model.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from execlens.bench import ShippedRun
from execlens.bench.examples.programs import EXAMPLES
from execlens.engine import Engine, Job

from ._packaged import DATA_DIR, packaged_generations

__all__ = ["build_demo_cruxeval", "demo_evals", "shipped_runs"]


def shipped_runs() -> list[ShippedRun]:
    """The official Code Llama 7B generations for both tasks."""
    return [
        ShippedRun(
            label=f"cruxeval-{task}-codellama-7b",
            generations=packaged_generations(task),
            data=str(DATA_DIR),
            model="codellama-7b",
            temperature=0.2,
            description=f"CRUXEval-{task[0].upper()} · Code Llama 7B, T = 0.2",
        )
        for task in ("input", "output")
    ]


def build_demo_cruxeval(engine: Engine, path: Path) -> Path:
    """Run every example on its inputs; write a CRUXEval-format file of the results."""
    jobs, keys = [], []
    for example in EXAMPLES:
        for index, arguments in enumerate(example["inputs"]):
            jobs.append(Job(str(example["code"]), call=f"f({arguments})"))
            keys.append((example, index, arguments))
    rows = []
    for (example, index, arguments), outcome in zip(keys, engine.map(jobs)):
        if not outcome.ok:
            raise RuntimeError(
                f"demo example {example['id']} failed on {arguments}: "
                f"{outcome.status.value} {outcome.message}"
            )
        rows.append(
            {
                "id": f"{example['id']}_{index}",
                "code": example["code"],
                "input": arguments,
                "output": repr(outcome.decoded()),
            }
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def demo_evals(directory: Path, engine: Engine) -> list[tuple[str, dict[str, Any]]]:
    """Both tasks on the examples (the data file is built in ``directory``)."""
    data = build_demo_cruxeval(engine, directory / "cruxeval.jsonl")
    return [
        (f"cruxeval-{task}", {"benchmark": "cruxeval", "task": task, "data": str(data)})
        for task in ("output", "input")
    ]
