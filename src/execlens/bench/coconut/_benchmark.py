"""CoCoNUT's declaration: full-trace prediction on a user's copy of its CSVs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from execlens.bench import (
    BenchmarkError,
    Generations,
    SampleBenchmark,
    TaskSpec,
    check_generations,
    match_generations,
    read_generations_json,
)
from execlens.judge import Scorer, Verdict, VerdictStatus
from execlens.tasks import NoTruth, Task, TruthRun
from execlens.tasks.prompts import Extraction, RenderedPrompt

from ._data import CocoItem, load_coconut
from ._prompts import STYLES, extract_coconut, render_coconut
from ._results import read_results_csv
from ._score import OfficialScorer, coconut_metrics, extract_trace, noreps

__all__ = ["BENCHMARK", "CoCoNUT", "StoredPredictions"]

_ADVANCED = "an Advanced program (indentation stripped upstream) cannot be run"


@dataclass(frozen=True)
class StoredPredictions:
    """The context of generations read from an upstream results file: the official
    scorer takes each prediction as stored."""


class CoCoNUT(SampleBenchmark[CocoItem]):
    """CoCoNUT (arXiv 2501.16456): predict the executed line sequence of a call."""

    name = "coconut"
    description = (
        "CoCoNUT: the ordered executed lines of a call on a numbered program; "
        "official (NoReps string match, Distance) and strict (our tracer's "
        "lines as integers); bring your own copy: --data"
    )
    default_task = "trace"
    tasks: Mapping[str, TaskSpec] = {
        "trace": TaskSpec("trace", STYLES, "the executed lines, in order, as a list"),
    }
    modes = ("official", "strict")
    scores_raw = False
    preload: tuple[str, ...] = ()
    scoring_workers = 2

    def __init__(self) -> None:
        self._items: dict[str, CocoItem] = {}

    def load(self, data: str | None) -> list[Any]:
        """The runs of ``data`` (required: nothing ships)."""
        items = load_coconut(data)
        self._items = {item.sample_id: item for item in items}
        return list(items)

    def render(self, item: Any, task: str, style: str) -> RenderedPrompt:
        """The numbered program, the call, CoCoNUT's rules."""
        self._check(task)
        return render_coconut(item, task, style)

    def extract(self, raw: str, item: Any, task: str, style: str, flavor: str) -> Extraction:
        """The last one-line ``[...]`` (upstream's regex)."""
        return extract_coconut(raw)

    def strict_task(self, item: CocoItem, task: str) -> Task:
        """The trace question of the run, its truth traced by the core (our tracer's
        executed lines); an Advanced program has none."""
        return Task(
            kind="trace",
            program=item.code,
            call=item.call,
            reference=TruthRun() if item.call is not None else NoTruth(_ADVANCED),
            id=item.sample_id,
        )

    def strict_answer(self, answer: str, task: str) -> str | Verdict:
        """The last one-line ``[...]``; an answer with none is ``unparseable:no_list``."""
        text = extract_trace(answer)
        if not text:
            return Verdict.failing(VerdictStatus.UNPARSEABLE, "no_list", "no [...] on one line")
        return text

    def scorers(self, task: str, style: str, context: Any) -> dict[str, Scorer[CocoItem]]:
        """Official (NoReps match) and strict (the core's, traced integers); ``context``:
        the traced truths (``prepare``), or a results file's :class:`StoredPredictions`
        (the strict truth is then traced in the scoring plan)."""
        self._check(task)
        stored = isinstance(context, StoredPredictions)
        return {
            "official": OfficialScorer(stored=stored),
            "strict": self.strict_scorer(task, context),
        }

    def metrics(self, records: Sequence[Mapping[str, Any]], task: str) -> dict[str, Any]:
        """Acc Hard / Acc Mean / Sim / False Sim (HumanEval), micro rates (Advanced)."""
        return coconut_metrics(records, self._items, self.modes)

    def explain(self, item: Any, task: str, context: Any) -> dict[str, Any] | None:
        """The program, the call and both truths."""
        prepared = context.get(item.sample_id) if isinstance(context, Mapping) else None
        traced: Any = prepared.reference if isinstance(prepared, Task) else None
        if isinstance(traced, NoTruth):
            traced = traced.reason
        return {
            "expected": noreps(item.truth),
            "program": item.code,
            "question": f"the executed lines of {item.call or 'the __main__ block'}",
            "true_value": f"CSV (NoReps): {noreps(item.truth)}; traced here: {traced}",
        }

    def read_generations(self, path: Path, data: str | None, task: str | None) -> Generations:
        """``{"<sample id>": ["<response or list>", ...]}`` (ids ``HumanEval/0#0``), or an
        upstream results file (``.csv``): its predictions as stored (see ``_results``)."""
        task = task or self.default_task
        self._check(task)
        items = self.load(data)
        if path.suffix.lower() == ".csv":
            paired, differing = read_results_csv(path, items)
            notes: dict[str, Any] = {"predictions": "as stored in an upstream results file"}
            if differing:
                notes["rows_with_another_truth"] = differing
            return Generations(
                task=task,
                items=paired,
                context=StoredPredictions(),
                notes=notes,
                responses=False,  # upstream's runner already extracted each prediction
            )
        answers = check_generations(read_generations_json(path), str(path))
        paired = match_generations(items, answers, str(path))
        return Generations(
            task=task,
            items=paired,  # read as eval reads a response (the score runner's one path)
        )

    def references(self) -> Sequence[Any]:
        """None reproducible offline (the data does not ship)."""
        return ()

    def _check(self, task: str) -> None:
        if task not in self.tasks:
            raise BenchmarkError(f"CoCoNUT has no task {task!r} (expected trace)")


BENCHMARK = CoCoNUT()
