"""A benchmark whose rows are ``tasks.Task``: its loader and official scorer, the rest free.

inspect_evals' shape (a task is a dataset, a solver and a scorer in one file) over
execlens' core: a subclass of :class:`TaskBenchmark` declares its name, its tasks (each
a question kind: ``output``, ``input``, ``coverage``, ``path``, ``state``, ``trace``),
``load`` (rows -> :class:`~execlens.tasks.Task`) and ``official`` (the benchmark's own
scorer, a ``judge.Scorer[Task]``).  Everything else comes from the core:

* the prompt and the answer reader of each kind (the runtime questions' wording,
  ``direct`` and ``cot`` styles);
* **strict scoring**: the judge's scorer of the task's kind (``judge.TaskScorer``:
  answers parsed as literals in the host, input predictions re-executed in the engine),
  so a new benchmark gets the unexploitable mode without writing it; a task whose
  truth must be computed says how (a ``tasks.TruthRun`` reference: the core runs or
  traces it in ``prepare`` and caches it), one that has none says why
  (``tasks.NoTruth``);
* pass@k per mode, a generations file ``{sample id: [text, ...]}`` for ``execlens
  score``, and the report's expected answer.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._base import BenchmarkBase
from ._data import select
from ._generations import answered_items
from ._kit import ProblemScorer, pass_at_k_metrics
from ._protocol import BenchmarkError, Generations

if TYPE_CHECKING:
    from execlens.bench.runtime import RuntimeItem
    from execlens.judge import Scorer
    from execlens.tasks import Task
    from execlens.tasks.prompts import Extraction, RenderedPrompt

__all__ = ["TASK_STYLES", "TaskBenchmark"]

#: The prompt styles every kind's question has.
TASK_STYLES = ("direct", "cot")


def _output_text(reference: Any) -> str | None:
    """The output an input question shows: a literal's text as it is, a value envelope or
    a runtime output reference ``{"status": "ok", "value": envelope}`` written back."""
    from execlens.values import decode, literal_text

    if isinstance(reference, str):
        return reference
    if isinstance(reference, Mapping):
        envelope = reference.get("value") if "status" in reference else reference
        if isinstance(envelope, Mapping) and reference.get("status", "ok") == "ok":
            return literal_text(decode(dict(envelope)))
    return None


class TaskBenchmark(BenchmarkBase["RuntimeItem"]):
    """Rows -> ``Task`` plus an official scorer; prompts, strict scoring and metrics free.

    Items are the runtime benchmark's items (a task and its ``sample_id``, the task's
    ``id``), so a task is asked exactly as ``execlens eval --benchmark runtime`` asks it.
    """

    @abstractmethod
    def load(self, data: str | None) -> list[Task]:
        """Every task of ``data`` (a path) or of the benchmark's own source."""

    @abstractmethod
    def official(self, task: str) -> Scorer[Task]:
        """The benchmark's official scorer for ``task`` (its ``name`` is ``official``)."""

    def item(self, task: Task) -> RuntimeItem:
        """The item asking ``task`` (its id, else a digest of the question, as sample id)."""
        from execlens.bench.runtime import RuntimeItem
        from execlens.tasks import task_id

        if not task.id:
            task = replace(task, id=task_id(task.kind, task.program, task.call, task.line))
        function = task.entry if task.kind in ("input", "output") and task.call else None
        shown = _output_text(task.reference) if task.kind == "input" else None
        return RuntimeItem(task, task.id, function, shown)

    def plan(
        self, records: Sequence[Any], task: str, *, limit: int | None, offset: int
    ) -> list[tuple[str, list[RuntimeItem]]]:
        """The tasks of kind ``task``, sliced by ``limit`` / ``offset``."""
        if task not in self.tasks:
            raise BenchmarkError(f"{self.name} has no task {task!r} ({', '.join(self.tasks)})")
        chosen = [self.item(t) for t in records if t.kind == task]
        return [(task, select(chosen, limit=limit, offset=offset))]

    def render(self, item: RuntimeItem, task: str, style: str) -> RenderedPrompt:
        """The core's question of the item's kind, in ``style``."""
        from execlens.bench.runtime import render_runtime

        return replace(render_runtime(item, style), benchmark=self.name)

    def extract(
        self, raw: str, item: RuntimeItem, task: str, style: str, flavor: str
    ) -> Extraction:
        """The core's answer reader of the item's kind."""
        from execlens.bench.runtime import extract_runtime

        return extract_runtime(raw, item.kind)

    def strict_task(self, item: RuntimeItem, task: str) -> Task:
        """The item's own task (a ``tasks.TruthRun`` reference: the core builds it)."""
        return item.task

    def scorers(self, task: str, style: str, context: Any) -> Mapping[str, Scorer[RuntimeItem]]:
        """``official`` (the benchmark's, on the row's task) and ``strict`` (the core's,
        free) on each task."""

        def to_task(item: RuntimeItem) -> Task:
            return item.task

        made: dict[str, Scorer[RuntimeItem]] = {
            "official": ProblemScorer(self.official(task), to_task),
            "strict": self.strict_scorer(task, context),
        }
        return {mode: made[mode] for mode in self.modes}

    def metrics(self, records: Sequence[Mapping[str, Any]], task: str) -> dict[str, Any]:
        """pass@1 (and pass@5 with enough generations) per mode."""
        return pass_at_k_metrics(records, self.modes)

    def explain(self, item: RuntimeItem, task: str, context: Any) -> dict[str, Any] | None:
        """The reference answer and the program (the report's failure view)."""
        reference = item.task.reference
        expected = reference if isinstance(reference, str) else None
        if item.kind == "input":
            expected = f"{item.function}(...) returning {item.output_text}"
        return {"expected": expected, "program": item.task.program, "run": item.task.call}

    def read_generations(self, path: Path, data: str | None, task: str | None) -> Generations:
        """A JSON object ``{sample id: [response or answer, ...]}`` answering tasks of
        ``data`` of one kind (``task``, default: :attr:`default_task_name`)."""
        task = task or self.default_task_name
        [(_, items)] = self.plan(self.load(data), task, limit=None, offset=0)
        paired = answered_items(Path(path), items, f"{self.name} {task} tasks")
        return Generations(task=task, items=paired, notes={"questions": len(paired)})
