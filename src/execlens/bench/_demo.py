"""The demo evaluation: the embedded local model on execlens's own example programs.

Nothing is stored but the programs and their inputs: reference outputs come from running
them in the sandbox, REval-style questions from the task generator's line selection
(the last statement of each basic block), and their ground truth from the tracer.  The
same pipeline as ``execlens eval`` then asks the model CRUXEval-style questions (predict
the output; predict an input) and REval-style ones (coverage, path, state, output, and
their Incremental Consistency).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from execlens.bench._eval import EvalConfig, EvalResult, run_eval
from execlens.bench.examples.programs import EXAMPLES
from execlens.engine import Engine, Job

__all__ = ["build_demo_cruxeval", "build_demo_reval", "run_demo"]


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


def build_demo_reval(cruxeval_file: Path, directory: Path) -> Path:
    """The examples in REval's DREval layout (HumanEval-style problems and questions).

    Ids follow that layout (``DREval/<n>``) so REval's loaders, prompts and judges apply
    unchanged; the programs are execlens's own.
    """
    from execlens.tasks import candidate_lines

    runs: dict[str, list[dict[str, Any]]] = {}
    for line in cruxeval_file.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        runs.setdefault(row["id"].rsplit("_", 1)[0], []).append(row)
    problems, tasks = [], []
    for number, example in enumerate(EXAMPLES):
        rows = runs[str(example["id"])]
        code = str(example["code"])
        task_id = f"DREval/{number}"
        problems.append({"task_id": task_id, "entry_point": "f", "code": code,
                         "inputs": [f"({row['input']},)" for row in rows],
                         "outputs": [row["output"] for row in rows], "test": None})
        questions = [{"lineno": c.line, "var": c.variables[0]}
                     for c in candidate_lines(code) if c.variables]
        tasks.append({"task_id": task_id, "idx": number, "tasks": [
            {"input_idx": i, "task": questions, "output_pred": f"assert f({row['input']}) == ??"}
            for i, row in enumerate(rows)]})
    directory.mkdir(parents=True, exist_ok=True)
    for name, records in (("DREval_data.jsonl", problems), ("DREval_tasks.jsonl", tasks)):
        (directory / name).write_text("".join(json.dumps(r) + "\n" for r in records),
                                      encoding="utf-8")
    return directory


def run_demo(out: Path, *, engine: Engine, model: str = "local", base_url: str | None = None,
             on_result: Callable[[str, EvalResult], None] | None = None) -> list[EvalResult]:
    """Every demo evaluation into ``out/<name>``; returns their results."""
    data = build_demo_cruxeval(engine, out / "data" / "cruxeval.jsonl")
    reval = build_demo_reval(data, out / "data" / "reval")
    results: list[EvalResult] = []
    plans: list[tuple[str, dict[str, Any]]] = [
        ("cruxeval-output", {"benchmark": "cruxeval", "task": "output", "data": str(data)}),
        ("cruxeval-input", {"benchmark": "cruxeval", "task": "input", "data": str(data)}),
        # REval's questions of the first few programs, all four tasks, and their IC.
        ("reval-consistency", {"benchmark": "reval", "task": "consistency",
                               "data": str(reval), "limit": 12}),
    ]
    for name, fields in plans:
        config = EvalConfig(prompt="direct", model=model, base_url=base_url, n=1,
                            temperature=0.0, max_tokens=64, **fields)
        result = run_eval(config, out / name, show_progress=True)
        results.append(result)
        if on_result is not None:
            on_result(name, result)
    return results
