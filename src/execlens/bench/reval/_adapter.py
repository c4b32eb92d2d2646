"""The eval adapter of REval: coverage, path, state and output questions.

Ground truth comes from the tracer (``reval`` mode for official scoring, ``exact`` for
strict), built once per dataset and kept on disk next to the request cache.  The judges
receive the *raw* responses: official extraction needs text the prompt's stop strings
may have cut short.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from execlens.tasks.prompts import Extraction, RenderedPrompt

from ._extract import extract_reval

__all__ = ["REVAL_EVAL_TASKS", "RevalAdapter", "reval_metrics_for_report"]

REVAL_EVAL_TASKS = ("coverage", "path", "state", "output")


def reval_metrics_for_report(metrics: dict[str, Any], task: str | None) -> dict[str, float]:
    """Flatten one mode's REval metrics to ``{name: percent}`` for tables and plots."""
    flat: dict[str, float] = {}
    tasks = REVAL_EVAL_TASKS if task is None else (task,)
    for name in tasks:
        value = metrics.get(name)
        if isinstance(value, dict):
            for key in ("accuracy", "precision", "recall", "f1"):
                if isinstance(value.get(key), (int, float)):
                    flat[f"{name} {key}" if key != "accuracy" else name] = float(value[key])
        elif isinstance(value, (int, float)):
            flat[name] = float(value)
    if task is None and isinstance(metrics.get("ic"), (int, float)):
        flat["IC"] = float(metrics["ic"])
    return flat


class RevalAdapter:
    """REval through the current eval runner, over :data:`BENCHMARK` (one item per
    question, or per pair for output); kept until the generic runner takes over."""

    name = "reval"

    def plan(self, data: str | None, task: str, *, limit: int | None, offset: int
             ) -> list[tuple[str, list[Any]]]:
        """:meth:`Reval.plan` over the loaded data (unrunnable problems dropped first)."""
        from ._benchmark import BENCHMARK

        return BENCHMARK.plan(BENCHMARK.load(data), task, limit=limit, offset=offset)

    def render(self, item: Any, task: str, style: str) -> RenderedPrompt:
        """REval's prompt for the item."""
        return item.render(task, style)

    def extract(self, raw: str, item: Any, task: str, style: str, flavor: str) -> Extraction:
        """REval's own reading of the answer (logged; the judges re-read the raw text)."""
        question = item.pair.output_pred if task == "output" else None
        return extract_reval(raw, task, style, code=item.problem.code, question=question)

    def score(self, out_dir: Path, plan: list[tuple[str, list[Any]]],
              entries: dict[str, dict[str, dict[str, Any]]], config: Any,
              progress: Callable[[int, int], None]) -> dict[str, Any]:
        """Judge every item in both modes; write samples.jsonl whole (REval scores as a set)."""
        from ._score import score_reval
        from execlens.trace import trace_engine

        items = list({item.sample_id: item for _, task_items in plan
                      for item in task_items}.values())
        raw = {task: {item_id: entry["responses"] for item_id, entry in entries[task].items()}
               for task, _ in plan}
        with trace_engine(config.workers) as engine:
            scores = score_reval(items, raw, config.prompt, engine, cache_dir=truth_cache_dir())
        total = sum(len(task_items) for _, task_items in plan)
        progress(total, total)
        composite = len(plan) > 1
        lines = []
        for record in scores.records():
            task, item_id = record["task"], record["id"]
            entry = entries.get(task, {}).get(item_id)
            if entry is None:
                continue  # an output item the judge added only for IC
            verdicts = record["verdicts"]
            lines.append({"id": f"{task}:{item_id}" if composite else item_id, "task": task,
                          "kind": record["kind"], **entry,
                          **{mode: [bool(v["passed"]) for v in verdicts[mode]]
                             for mode in scores.modes},
                          "verdicts": verdicts})
        temporary = out_dir / ".samples.jsonl.tmp"
        temporary.write_text("".join(json.dumps(line, ensure_ascii=False, default=str) + "\n"
                                     for line in lines), encoding="utf-8")
        temporary.replace(out_dir / "samples.jsonl")
        shown = None if composite else plan[0][0]
        return {
            "benchmark": "reval",
            "task": config.task,
            "samples": len(lines),
            "metrics": {mode: reval_metrics_for_report(scores.metrics[mode], shown)
                        for mode in scores.modes},
            "baselines": {f"{name} ({mode})": reval_metrics_for_report(values, shown)
                          for mode in scores.modes
                          for name, values in scores.baselines[mode].items()
                          if isinstance(values, dict)},
            "reval_metrics": scores.metrics,
            "skipped": {**BENCHMARK.skipped, **scores.skipped},
        }
