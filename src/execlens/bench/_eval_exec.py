"""The eval adapter of the output/input-prediction benchmarks: CRUXEval and LCB-exec."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from execlens.bench._data import DatasetError, select
from execlens.tasks.prompts import Extraction, RenderedPrompt, extract_cruxeval, extract_lcb

__all__ = ["ExecPredictionAdapter"]


class ExecPredictionAdapter:
    """CRUXEval (input/output prediction) and LiveCodeBench code execution."""

    def __init__(self, benchmark: str) -> None:
        if benchmark not in ("cruxeval", "lcb-exec"):
            raise ValueError(f"not an execution-prediction benchmark: {benchmark!r}")
        self.name = benchmark

    def plan(self, data: str | None, task: str, *, limit: int | None, offset: int
             ) -> list[tuple[str, list[Any]]]:
        """One task: the selected samples."""
        return [(task, select(self.load(data, task), limit=limit, offset=offset))]

    def load(self, data: str | None, task: str) -> list[Any]:
        """CRUXEval or LCB samples; malformed records are named and stop the run."""
        if self.name == "cruxeval":
            from execlens.bench._data_cruxeval import load_cruxeval

            loaded = load_cruxeval(data)
        else:
            from execlens.bench._data_lcb import load_lcb_exec

            loaded = load_lcb_exec(data)
        if loaded.errors:
            raise DatasetError("; ".join(str(e) for e in loaded.errors[:5]))
        return list(loaded.records)

    def render(self, item: Any, task: str, style: str) -> RenderedPrompt:
        """The official prompt."""
        return item.render(task, style) if self.name == "cruxeval" else item.render(style)

    def extract(self, raw: str, item: Any, task: str, style: str, flavor: str) -> Extraction:
        """The text the official post-processing hands to the scorer."""
        if self.name == "cruxeval":
            return extract_cruxeval(raw, task, style, flavor=flavor)
        return extract_lcb(raw, style)

    def _problem(self, item: Any) -> Any:
        if self.name == "cruxeval":
            from execlens.bench._cruxeval_score import cruxeval_problem

            return cruxeval_problem(item)
        from execlens.bench._lcb_score import lcb_sample_problem

        return lcb_sample_problem(item)

    def score(self, out_dir: Path, plan: list[tuple[str, list[Any]]],
              entries: dict[str, dict[str, dict[str, Any]]], config: Any,
              progress: Callable[[int, int], None]) -> dict[str, Any]:
        """Both modes through the judge's resumable score run; adds report metrics."""
        from execlens.bench._cruxeval_score_run import score_run

        [(task, items)] = plan
        extras = entries[task]
        answers = {item_id: entry["answers"] for item_id, entry in extras.items()}
        run = score_run(out_dir, [(self._problem(item), answers[item.sample_id])
                                  for item in items],
                        benchmark=self.name, task=config.task, workers=config.workers,
                        progress=progress, extras=extras,
                        generations_file=f"{config.model} ({config.endpoint})")
        results = dict(run.results)
        # pass@k is only meaningful with at least k samples per prompt.
        n = min((len(answers[item.sample_id]) for item in items), default=0)
        results["metrics"] = {
            mode: {key: value for key, value in values.items()
                   if key in ("pass@1", "pass@5") and int(key[5:]) <= max(n, 1)}
            for mode, values in results.get("modes", {}).items()
        }
        return results
