"""The runtime benchmark's declaration: REval's four questions, CRUXEval's two and the
full trace (CoCoNUT's question), for any programs with inputs.

* ``load``: whatever ``execlens.bench.load_programs`` reads (CRUXEval's ``cruxeval.jsonl``,
  REval's DREval data or HumanEval-style records, CodeI/O's parsed samples, a user's
  JSONL in one of those shapes);
* ``plan``: ``--limit``/``--offset`` pick *programs*; they are traced (cached) and the
  questions about each chosen by ``tasks``' balanced selection, so the balance holds
  over exactly what is asked and a run's questions never depend on the slice; ``all``
  asks every kind but ``trace`` (one long answer per run: asked when named);
* ``prepare``: the traced truth of the planned programs (the same cache: nothing is
  traced twice);
* two modes, both the generic judges (``execlens.judge``): there is no published scorer
  to reproduce for questions this benchmark invents, so ``official`` *is* the strict
  judge -- kept because every built-in benchmark reports both (the registry's tests and
  reports expect them side by side); the two never differ;
* ``explain``: the expected answer and the run (program, executed lines, asked line,
  true value) of a question, for the report's failure view;
* ``metrics``: accuracy per kind, coverage precision/recall/F1, full traces' mean step
  credit, and the constant-answer baselines on the same questions;
* ``perturb_target``: ``--perturb`` rewrites each run's program, maps the questions'
  lines and traces the truth again there (``_perturb`` says what must not move).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from execlens.bench import (
    BenchmarkBase,
    BenchmarkError,
    DatasetError,
    DatasetUnavailableError,
    Generations,
    ProblemScorer,
    Reference,
    TaskSpec,
    TracedTarget,
    answered_items,
    load_programs,
    select,
)
from execlens.judge import Scorer, TaskScorer
from execlens.tasks import RuntimeProgram, SourceError, Task
from execlens.tasks.kinds import kinds
from execlens.tasks.prompts import Extraction, RenderedPrompt

from ._explain import explain_runtime
from ._extract import extract_runtime
from ._items import RuntimeItem, composite_kinds, items_by_kind, runtime_kinds
from ._metrics import runtime_metrics
from ._perturb import RuntimePerturbation
from ._prompts import STYLES, render_runtime
from ._truth import RuntimeTruth, TracedTasks, traced_tasks

__all__ = ["BENCHMARK", "RuntimeBenchmark"]


class _ModeScorer(TaskScorer):
    """The generic task scorer filling one mode's column."""

    def __init__(self, mode: str) -> None:
        super().__init__()
        self.name = mode


class RuntimeBenchmark(BenchmarkBase[RuntimeItem]):
    """Coverage, path, state, output and input questions about any programs' runs."""

    name = "runtime"
    default_task = "all"  # `execlens eval --benchmark runtime` asks every kind
    description = (
        "Runtime behaviour of any programs with inputs: coverage, path, state "
        "(REval's questions) and output/input prediction (CRUXEval's)"
    )

    @property
    def tasks(self) -> Mapping[str, TaskSpec]:
        """One task per registered question kind (``execlens.tasks.kinds``, plug-ins
        included; a benchmark's ``given`` kinds left out) and ``all``, their ``default``
        kinds about the same runs."""
        specs = {
            k.name: TaskSpec(k.name, STYLES, k.description) for k in kinds() if k.scope != "given"
        }
        specs["all"] = TaskSpec(
            "all", STYLES, "every kind but trace about the same runs", composite=composite_kinds()
        )
        return specs

    modes = ("official", "strict")
    """The same judge twice: see the module docstring."""
    scores_raw = False
    preload: tuple[str, ...] = ()
    scoring_workers = 4
    """Only input answers run code (one short job each): a few servers are plenty."""
    program_requirements: tuple[str, ...] = ("numpy<2",)
    """The program sets it reads (REval's, CodeI/O's) were written for NumPy 1.x: under
    NumPy 2 their ``np.mat`` runs raise and lose their questions, and scalars print as
    ``np.float64(1.0)``."""

    def __init__(self) -> None:
        self._programs: list[RuntimeProgram] = []
        self._traced: TracedTasks | None = None
        self._items: dict[tuple[str, str], RuntimeItem] = {}
        self._given: dict[tuple[str, str], list[str]] = {}
        """A generations file's answers (a score run's records do not keep them; the
        full trace's step credit is computed from them)."""
        self._perturbation: RuntimePerturbation | None = None
        self._perturbed: dict[str, list[int]] | None = None
        """``--perturb``: the lines each perturbed run executed (None: not perturbed)."""

    # ------------------------------------------------------------- items
    def load(self, data: str | None) -> list[Any]:
        """The programs (runs) of ``data``; a malformed record stops the run, named."""
        if data is None:
            raise DatasetUnavailableError(
                "cannot load runtime questions without programs: the benchmark has no "
                "default source; pass a local copy with --data PATH (cruxeval.jsonl, "
                "DREval_data.jsonl or its directory, CodeI/O parsed samples, or your own "
                "JSONL in one of those shapes)"
            )
        if not Path(data).exists():
            raise DatasetUnavailableError(
                f"cannot load {data}: no such file or directory; pass a local copy with --data PATH"
            )
        try:
            return list(load_programs(data))
        except SourceError as exc:
            raise DatasetError(str(exc)) from exc

    def _truth(self, engine: Any = None) -> TracedTasks:
        if self._traced is None:
            self._traced = traced_tasks(self._programs, engine=engine)
        return self._traced

    def plan(
        self, records: Sequence[Any], task: str, *, limit: int | None, offset: int
    ) -> list[tuple[str, list[Any]]]:
        """The balanced questions of ``task`` about the programs ``limit``/``offset`` pick
        (every kind but ``trace`` for ``all``, skipping kinds with no question)."""
        if task not in self.tasks:
            raise BenchmarkError(
                f"runtime has no task {task!r} (expected one of {', '.join(self.tasks)})"
            )
        programs = select(
            list(records),
            limit=limit,
            offset=offset,
            id_of=lambda p: f"{p.problem_id}#{p.input_index}",
        )
        if programs != self._programs:
            self._programs, self._traced = programs, None
        items = items_by_kind(self._truth().tasks)
        self._perturbation, self._perturbed = None, None
        self._items = {
            (kind, item.sample_id): item
            for kind, kind_items in items.items()
            for item in kind_items
        }
        if task != "all":
            return [(task, items.get(task, []))]
        return [(kind, items[kind]) for kind in composite_kinds() if items.get(kind)]

    def render(self, item: Any, task: str, style: str) -> RenderedPrompt:
        """The item's prompt (``templates/question.j2``, filled by the item's kind)."""
        return render_runtime(item, style)

    def extract(self, raw: str, item: Any, task: str, style: str, flavor: str) -> Extraction:
        """The answer in the response's last ``[ANSWER]`` block."""
        return extract_runtime(raw, item.kind)

    # ------------------------------------------------------------- --perturb
    def perturb_target(self, item: Any, task: str) -> TracedTarget | str:
        """``--perturb``: the run's program is rewritten (once per run), the question's line
        mapped and its truth traced again there."""
        if self._perturbation is None:
            self._perturbation = RuntimePerturbation(self._programs, self._truth().tasks)
        return self._perturbation.target(item)

    def perturbed(self, plan: Sequence[tuple[str, list[Any]]]) -> None:
        """The plan ``--perturb`` kept: metrics, judges and the report read its items."""
        self._items = {(kind, item.sample_id): item for kind, items in plan for item in items}
        if self._perturbation is not None:
            self._perturbed = self._perturbation.executed(
                [item for _, items in plan for item in items]
            )

    # ------------------------------------------------------------- scoring
    def prepare(self, items: Sequence[Any], task: str, engine: Any) -> Any:
        """The traced truth of the planned programs, ``{sample id: task}`` for ``task``
        and the lines each run executed (traced in ``engine`` unless the cache or
        :meth:`plan` already holds it).  A perturbed plan's items carry their own truth
        (traced on their program by ``--perturb``)."""
        if self._perturbed is not None:
            return RuntimeTruth({item.sample_id: item.task for item in items}, self._perturbed)
        traced = self._truth(engine)
        truth = items_by_kind(traced.tasks)
        return RuntimeTruth(
            {item.sample_id: item.task for item in truth.get(task, ())}, traced.executed
        )

    def explain(self, item: Any, task: str, context: Any) -> dict[str, Any] | None:
        """The expected answer, program, asked line, executed lines and true value of
        ``item`` (for the report's failure view)."""
        if context is None and self._perturbed is not None:
            context = RuntimeTruth({}, self._perturbed)
        elif context is None and self._traced is not None:
            context = RuntimeTruth({}, self._traced.executed)
        return explain_runtime(item, context)

    def scorers(self, task: str, style: str, context: Any) -> dict[str, Scorer[RuntimeItem]]:
        """Every answer judged by the generic judge of its kind (both modes), against the
        truth :meth:`prepare` returned (the item's own when there is none)."""
        if task not in runtime_kinds():
            raise BenchmarkError(
                f"runtime scores the kinds {', '.join(runtime_kinds())} ('all' is "
                f"their composite), not {task!r}"
            )
        truth = context if isinstance(context, Mapping) else {}

        def to_task(item: RuntimeItem) -> Task:
            return truth.get(item.sample_id, item.task)

        return {mode: ProblemScorer(_ModeScorer(mode), to_task) for mode in self.modes}

    def metrics(self, records: Sequence[Mapping[str, Any]], task: str) -> dict[str, Any]:
        """Accuracy per kind, coverage precision/recall/F1, constant-answer baselines."""
        notes = []
        if self._traced is not None:
            for status, runs in sorted(self._traced.failed.items()):
                notes.append(
                    f"{len(runs)} run(s) recorded nothing ({status}: "
                    f"{', '.join(runs[:5])}) and were asked nothing"
                )
            if self._traced.skipped:
                notes.append(
                    f"{len(self._traced.skipped)} run(s) asked nothing: "
                    + "; ".join(f"{k} {v}" for k, v in list(self._traced.skipped.items())[:3])
                )
        return runtime_metrics(
            records, task, self._items, notes, modes=self.modes, answers=self._given
        )

    def read_generations(self, path: Path, data: str | None, task: str | None) -> Generations:
        """A JSON object ``{sample id: [response or answer, ...]}`` for one kind's questions
        about ``data`` (ids as ``samples.jsonl`` writes them, without the ``kind:`` prefix
        of an ``all`` run).  Each text is read as :meth:`extract` reads a response (a bare
        answer reads as itself); the questions the file answers are scored."""
        if task not in runtime_kinds():
            raise BenchmarkError(
                f"scoring a runtime generations file needs --task, one of "
                f"{', '.join(runtime_kinds())} (got {task!r})"
            )
        [(_, items)] = self.plan(self.load(data), task, limit=None, offset=0)
        # The texts are read as eval reads a response (the score runner does it).
        paired = answered_items(Path(path), items, f"{task} questions about {data}")
        self._given = {(task, item.sample_id): texts for item, texts in paired}
        return Generations(task=task, items=paired, notes={"questions": len(paired)})

    def references(self) -> Sequence[Reference]:
        """None: nothing is published on these questions (the baselines are the yardstick)."""
        return ()

    def exports(self) -> Sequence[Any]:
        """None."""
        return ()

    def demo_evals(self, directory: Path, engine: Any) -> list[tuple[str, dict[str, Any]]]:
        """``execlens demo``'s embedded-model run: every kind about the example programs."""
        from ._demo import demo_evals

        return demo_evals(directory, engine)


BENCHMARK = RuntimeBenchmark()
