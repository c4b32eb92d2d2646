"""The eval adapter of REval: coverage, path, state and output questions.

Ground truth comes from the tracer (``reval`` mode for official scoring, ``exact`` for
strict), built once per dataset and kept on disk next to the request cache.  The judges
receive the *raw* responses: official extraction needs text the prompt's stop strings
may have cut short.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from execlens.bench._data import DatasetError, select
from execlens.tasks.prompts import Extraction, RenderedPrompt, extract_reval

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


def _truth_cache() -> Path:
    """Where traced ground truth is kept: ``$EXECLENS_TRUTH_CACHE_DIR``, else beside the
    request cache.  Keyed by content, so any run over the same problems reuses it."""
    configured = os.environ.get("EXECLENS_TRUTH_CACHE_DIR")
    if configured:
        return Path(configured)
    from execlens.models import default_cache_dir

    return default_cache_dir() / "reval-truth"


class RevalAdapter:
    """REval through the eval runner: one item per question (or per pair for output)."""

    name = "reval"

    def __init__(self) -> None:
        self._problems: list[Any] = []

    def plan(self, data: str | None, task: str, *, limit: int | None, offset: int
             ) -> list[tuple[str, list[Any]]]:
        """Questions (coverage/path/state), pairs (output), or all four (consistency).

        ``--limit`` counts questions; for consistency the output task covers the pairs
        those questions belong to, since IC weighs each question by its pair's output.
        """
        from execlens.bench._data_reval import RevalItem, load_reval, reval_pairs, reval_questions

        loaded = load_reval(data)
        if loaded.errors:
            raise DatasetError("; ".join(str(e) for e in loaded.errors[:5]))
        problems = list(loaded.records)
        if task == "output":
            return [(task, select(reval_pairs(problems), limit=limit, offset=offset))]
        questions = select(reval_questions(problems), limit=limit, offset=offset)
        if task != "consistency":
            return [(task, questions)]
        pairs: dict[str, Any] = {}
        for item in questions:
            pair = RevalItem(item.problem, item.pair, 0, None)
            pairs.setdefault(pair.sample_id, pair)
        return [(name, questions) for name in ("coverage", "path", "state")] + [
            ("output", list(pairs.values()))]

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
        from execlens.bench._reval_score import score_reval
        from execlens.trace import trace_engine

        items = list({item.sample_id: item for _, task_items in plan
                      for item in task_items}.values())
        raw = {task: {item_id: entry["responses"] for item_id, entry in entries[task].items()}
               for task, _ in plan}
        with trace_engine(config.workers) as engine:
            scores = score_reval(items, raw, config.prompt, engine, cache_dir=_truth_cache())
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
            "skipped": scores.skipped,
        }
