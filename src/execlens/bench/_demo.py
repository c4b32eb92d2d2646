"""``execlens demo``'s evaluation part, over whatever the registry holds.

1. **Published files reproduced**: every benchmark that ships official generations
   (``shipped_runs()``: CRUXEval's Code Llama 7B files) is scored in official mode -- the
   published numbers come back -- and in strict mode beside it.
2. **A plumbing check**: every benchmark that offers demo runs on execlens's own example
   programs (``demo_evals()``) is asked of the embedded 135M model.  Its scores say the
   pipeline works end to end, not that the model is any good.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from execlens.bench.examples.programs import EXAMPLES
from execlens.engine import Engine
from execlens.store import iter_jsonl

from ._eval import EvalConfig, EvalResult, run_eval
from ._protocol import ShippedRun
from ._registry import benchmark_names, get_benchmark
from ._score import ScoreRunResult, run_score

__all__ = ["build_demo_reval", "run_demo", "run_shipped"]


def run_shipped(
    out: Path,
    *,
    workers: int | None = None,
    on_result: Callable[[ShippedRun, ScoreRunResult], None] | None = None,
) -> list[ScoreRunResult]:
    """Score every shipped official generations file into ``out/<label>``."""
    results: list[ScoreRunResult] = []
    for name in benchmark_names():
        bench = get_benchmark(name)
        for shipped in bench.shipped_runs():
            loaded = bench.read_generations(shipped.generations, shipped.data, None)
            result = run_score(
                out / shipped.label,
                bench,
                loaded,
                generations_file=shipped.generations.name,
                workers=workers,
                model=shipped.model,
                temperature=shipped.temperature,
            )
            results.append(result)
            if on_result is not None:
                on_result(shipped, result)
    return results


def build_demo_reval(cruxeval_file: Path, directory: Path) -> Path:
    """The examples in REval's DREval layout (HumanEval-style problems and questions).

    Ids follow that layout (``DREval/<n>``) so REval's loaders, prompts and judges apply
    unchanged; the programs are execlens's own.
    """
    from execlens.tasks import candidate_lines

    runs: dict[str, list[dict[str, Any]]] = {}
    for row in iter_jsonl(cruxeval_file):
        runs.setdefault(row["id"].rsplit("_", 1)[0], []).append(row)
    problems, tasks = [], []
    for number, example in enumerate(EXAMPLES):
        rows = runs[str(example["id"])]
        code = str(example["code"])
        task_id = f"DREval/{number}"
        problems.append(
            {
                "task_id": task_id,
                "entry_point": "f",
                "code": code,
                "inputs": [f"({row['input']},)" for row in rows],
                "outputs": [row["output"] for row in rows],
                "test": None,
            }
        )
        questions = [
            {"lineno": c.line, "var": c.variables[0]} for c in candidate_lines(code) if c.variables
        ]
        tasks.append(
            {
                "task_id": task_id,
                "idx": number,
                "tasks": [
                    {
                        "input_idx": i,
                        "task": questions,
                        "output_pred": f"assert f({row['input']}) == ??",
                    }
                    for i, row in enumerate(rows)
                ],
            }
        )
    directory.mkdir(parents=True, exist_ok=True)
    for name, records in (("DREval_data.jsonl", problems), ("DREval_tasks.jsonl", tasks)):
        (directory / name).write_text(
            "".join(json.dumps(r) + "\n" for r in records), encoding="utf-8"
        )
    return directory


def run_demo(
    out: Path,
    *,
    engine: Engine,
    model: str = "local",
    base_url: str | None = None,
    on_result: Callable[[str, EvalResult], None] | None = None,
) -> list[EvalResult]:
    """Every benchmark's demo evaluation into ``out/<label>``; returns their results."""
    results: list[EvalResult] = []
    for name in benchmark_names():
        bench = get_benchmark(name)
        plans = bench.demo_evals(out / "data" / name, engine)
        for label, fields in plans:
            config = EvalConfig(
                **{
                    "prompt": "direct",
                    "model": model,
                    "base_url": base_url,
                    "n": 1,
                    "temperature": 0.0,
                    "max_tokens": 64,
                    **fields,
                }
            )
            result = run_eval(config, out / label, show_progress=True)
            results.append(result)
            if on_result is not None:
                on_result(label, result)
    return results
