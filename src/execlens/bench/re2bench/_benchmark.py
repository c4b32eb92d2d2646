"""RE2-Bench's declaration: four tasks, upstream's prompts, official and strict scoring."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from execlens.bench import (
    BenchmarkBase,
    BenchmarkError,
    DatasetError,
    Generations,
    GenerationsError,
    ProblemScorer,
    TaskSpec,
    check_generations,
    dataset_records,
    match_generations,
    read_generations_json,
    select,
)
from execlens.judge import Scorer, TaskScorer
from execlens.tasks.prompts import Extraction, RenderedPrompt, SamplingDefaults

from ._data import DIFFICULTIES, TASKS, RE2Item, load_re2bench
from ._kinds import re2_task
from ._score import OfficialScorer, answer_text, partial_of

__all__ = ["BENCHMARK", "RE2Bench", "re2_metrics"]

#: One style: the prompt file upstream rendered (it asks for reasoning in [THOUGHT] before
#: the answer); named ``direct`` because it is the prompt as given, with nothing added.
_STYLES = ("direct",)


def _sampling() -> SamplingDefaults:
    return SamplingDefaults(
        max_tokens=8192,
        temperature=0.0,
        n=1,
        source="Intelligent-CAT-Lab/RE2Bench: scripts/prompting/"
        "prompt_models.py (greedy; budget not pinned upstream)",
    )


def _mean(values: list[float]) -> float:
    return round(100.0 * sum(values) / len(values), 2) if values else 0.0


def re2_metrics(records: Sequence[Mapping[str, Any]], modes: Sequence[str]) -> dict[str, Any]:
    """``collect_scores.py``: mean ``rs`` and ``partial_rs`` over problems, in total and
    per difficulty (percent).  With several generations a problem's scores are their
    mean; a missing generation counts 0 in every mode."""
    out: dict[str, Any] = {}
    for mode in modes:
        per: dict[str, tuple[list[float], list[float]]] = {d: ([], []) for d in DIFFICULTIES}
        for record in records:
            difficulty = str(record["id"]).split("/", 1)[0]
            labels = [str(g.get(mode, "")) for g in record.get("generations", [])]
            n = max(int(record.get("n", len(labels))), len(labels), 1)
            bucket = per.setdefault(difficulty, ([], []))
            bucket[0].append(sum(1.0 for v in record.get(mode, []) if v is True) / n)
            bucket[1].append(sum(partial_of(label) for label in labels) / n)
        every_rs = [v for all_rs, _ in per.values() for v in all_rs]
        every_partial = [v for _, partials in per.values() for v in partials]
        result = {"total_rs": _mean(every_rs), "total_partial_rs": _mean(every_partial)}
        for difficulty, (rs_values, partial_values) in per.items():
            if rs_values:
                result[f"{difficulty}_rs"] = _mean(rs_values)
                result[f"{difficulty}_partial_rs"] = _mean(partial_values)
        out[mode] = result
    return out


class RE2Bench(BenchmarkBase[RE2Item]):
    """RE2-Bench (Intelligent-CAT-Lab/RE2Bench): input, output, loop and branch prediction
    on a user's checkout (``--data``; nothing ships)."""

    name = "re2bench"
    description = (
        "RE2-Bench: predict inputs, outputs, loop variable values and branch "
        "decisions of real-world code (bring your own checkout: --data)"
    )
    default_task = "output"
    tasks: Mapping[str, TaskSpec] = {
        "output": TaskSpec("output", _STYLES, "predict the return value as JSON"),
        "input": TaskSpec("input", _STYLES, "predict {self, args, kwargs} as JSON"),
        "loop": TaskSpec("loop", _STYLES, "predict each loop variable's values"),
        "branch": TaskSpec("branch", _STYLES, "predict each branch's taken decisions"),
    }
    modes = ("official", "strict")
    scores_raw = True
    official_reads_thought = True
    """Upstream reads the whole response (its first ``[OUTPUT]`` anywhere, a thought's
    included): both verbs hand the scorers whole responses; strict takes the final part."""
    preload: tuple[str, ...] = ()
    scoring_workers = 4

    def load(self, data: str | None) -> list[Any]:
        """Every task's problems from the checkout ``data`` (required)."""
        return dataset_records(load_re2bench(data))

    def plan(
        self, records: Sequence[Any], task: str, *, limit: int | None, offset: int
    ) -> list[tuple[str, list[Any]]]:
        """The task's problems (easy first, as the sample lists them), sliced."""
        self._check(task)
        chosen = [r for r in records if r.task == task]
        if not chosen:
            raise DatasetError(
                f"the RE2-Bench checkout has no {task} problems "
                f"(prompts/{task}_prediction/ and its data)"
            )
        return [(task, select(chosen, limit=limit, offset=offset))]

    def render(self, item: Any, task: str, style: str) -> RenderedPrompt:
        """The prompt upstream rendered for the problem, exactly as its file holds it."""
        self._check(task)
        if style not in _STYLES:
            raise BenchmarkError(f"RE2-Bench has no prompt style {style!r} (expected direct)")
        return RenderedPrompt(
            benchmark=self.name,
            task=task,
            style=style,
            text=item.prompt,
            system=None,
            stop=(),
            chat_stop=(),
            sampling=_sampling(),
            template=f"re2bench:prompts/{task}_prediction/{item.difficulty}",
            sample_id=item.sample_id,
        )

    def extract(self, raw: str, item: Any, task: str, style: str, flavor: str) -> Extraction:
        """The official reading, as JSON text (scorers re-read the raw response)."""
        text = answer_text(raw, task)
        return Extraction(
            text=text,
            how=("re2bench_parser",),
            failure=None if text not in ("", "{}") else "no_answer",
        )

    def prepare(self, items: Sequence[Any], task: str, engine: Any) -> Any:
        """Nothing: the truths are in the data."""
        return None

    def scorers(self, task: str, style: str, context: Any) -> dict[str, Scorer[RE2Item]]:
        """Upstream's validators, and the core's strict scorer over the folder's kinds
        (``re2bench_<task>``: :func:`~._kinds.re2_task`)."""
        self._check(task)
        strict: Scorer[RE2Item] = ProblemScorer(TaskScorer(), re2_task)
        return {"official": OfficialScorer(task), "strict": strict}

    def metrics(self, records: Sequence[Mapping[str, Any]], task: str) -> dict[str, Any]:
        """rs and partial_rs means: total, easy, difficult (percent)."""
        return re2_metrics(records, self.modes)

    def explain(self, item: Any, task: str, context: Any) -> dict[str, Any] | None:
        """The recorded truth beside a failed answer."""
        import json

        truth = {"output": item.output, "input": item.inputs}.get(task, item.truth)
        return {
            "expected": json.dumps(truth, default=repr)[:2000],
            "program": item.code,
            "question": f"{task} prediction ({item.difficulty}, {item.benchmark or task})",
        }

    def read_generations(self, path: Path, data: str | None, task: str | None) -> Generations:
        """``{"<difficulty>/<problem id>": ["<response>", ...]}`` for one ``--task``."""
        if task is None or task not in self.tasks:
            raise GenerationsError(
                f"{path}: name the RE2-Bench task with --task ({', '.join(self.tasks)})"
            )
        answers = check_generations(read_generations_json(path), str(path))
        items = [r for r in self.load(data) if r.task == task]
        paired = match_generations(items, answers, str(path))
        return Generations(task=task, items=paired, notes={"official_task": task})

    def references(self) -> Sequence[Any]:
        """None reproducible offline."""
        return ()

    def exports(self) -> Sequence[Any]:
        """None."""
        return ()

    def _check(self, task: str) -> None:
        if task not in TASKS:
            raise BenchmarkError(
                f"RE2-Bench has no task {task!r} (expected one of {', '.join(TASKS)})"
            )


BENCHMARK = RE2Bench()
