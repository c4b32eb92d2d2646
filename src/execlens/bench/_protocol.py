"""The benchmark protocol: what one ``bench/<name>/`` folder declares to the runners.

A benchmark is a plug-in: its folder holds the loader, prompts, extraction, official
scorer, references and (optionally) an export, and registers one object satisfying
:class:`Benchmark`.  The generic runners (``run_eval``, ``run_score``) and the CLI only
ever talk to this protocol; no benchmark name appears outside the benchmark's folder.

The flow of a run, in the protocol's words::

    load(data) -> records                       (malformed records named, never dropped)
    plan(records, task, limit, offset)          -> [(task, [item, ...]), ...]
    render(item, task, style)                   -> RenderedPrompt       (models ask it)
    extract(raw, item, task, style, flavor)     -> Extraction           (what was answered)
    prepare(items, task, engine)                -> context              (e.g. traced truth)
    scorers(task, style, context)[mode]         -> judge.Scorer         (plan jobs, finish)
    metrics(records, task)[mode]                -> {metric: percent}    (pass@k, IC, F1, ...)

``execlens score`` starts from a generations file instead of a model::

    read_generations(path, data, task)          -> Generations          (items + answers)

Optional hooks the runners and the demo look for (``getattr``; a benchmark may lack them)::

    explain(item, task, context)                -> {...} | None         (what a failure shows)
    eval_files                                  -> ("name/*.jsonl", ...) (its programs under an
                                                   evaluation-data folder: export's
                                                   decontamination reads them)
    eval_programs()                             -> [source, ...]        (the programs of the
                                                   data it ships: export decontaminates
                                                   against them with no --eval-data)
    question_task(record)                       -> Task | None          (the prediction task a
                                                   row of its data asks, None for a row not
                                                   of its shape: ``export`` reads benchmark
                                                   problems through it)
    recognises(path, first)                     -> bool                 (whether ``path``, a
                                                   file or a directory, is data its
                                                   ``programs`` reads; ``first`` is the
                                                   file's first record, ``{}`` for a
                                                   directory or an empty file)
    programs(path)                              -> [RuntimeProgram, ...] (the runs its data
                                                   asks runtime questions about:
                                                   ``load_programs`` asks the benchmarks
                                                   that recognise a path, in registry
                                                   order, for ``tasks build`` and the
                                                   runtime benchmark; a malformed record
                                                   is a named ``tasks.SourceError``)
    shipped_runs()                              -> [ShippedRun, ...]    (published files it ships)
    demo_evals(directory, engine)               -> [(label, EvalConfig fields), ...]

``explain``'s ``context`` is what ``prepare`` returned for ``task``; the eval runner stores
its dict under ``record["question"]`` and the report shows it beside each failed
answer.  Keys (all optional but ``expected``): ``expected`` (str or None: the reference
answer written as the model should write it -- CRUXEval's output ``'abc'``, input
``f('x')``; REval coverage ``YES``/``NO``, path the next line, state ``value; type`` or
``Nil``), ``program`` (the source shown), ``asked_line`` (1-indexed), ``executed_lines``
(1-indexed lines the ground-truth run executed), ``true_value`` (the fact behind the
answer, as text), ``question`` (short text), ``run`` (the call or test that runs the
program), ``expected_by_mode`` (``{mode: answer}`` where the modes' truths differ) and
``note`` (why the truth may be missing or odd).

``item`` is the benchmark's own record type; it must have a ``sample_id: str`` unique
within its task.  A scorer's ``plan(item, generations)`` receives the *raw* responses
when :attr:`Benchmark.scores_raw` is true (REval re-reads text its stop strings cut) and
the extracted answers otherwise.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from execlens.engine import Engine
    from execlens.judge import Scorer
    from execlens.tasks.prompts import Extraction, RenderedPrompt

__all__ = [
    "Benchmark",
    "BenchmarkError",
    "ExportSpec",
    "Generations",
    "Plan",
    "ShippedRun",
    "TaskSpec",
]

#: ``[(task, items), ...]``: one entry per task a run asks (several for composite tasks
#: such as REval's ``consistency``, which asks coverage, path, state and output).
Plan = list[tuple[str, list[Any]]]


class BenchmarkError(ValueError):
    """A benchmark, task, prompt style or mode that does not exist (message names the choices)."""


@dataclass(frozen=True)
class TaskSpec:
    """One task of a benchmark: its prompt styles and what it asks."""

    name: str
    styles: tuple[str, ...]
    description: str = ""
    composite: tuple[str, ...] = ()
    """For a composite task, the tasks it is made of (REval ``consistency``)."""


@dataclass(frozen=True)
class ExportSpec:
    """An optional export a benchmark offers (REval's JetBrains layout)."""

    name: str
    description: str
    extra: Mapping[str, Any] = field(default_factory=dict)


@dataclass
class Generations:
    """A generations file read for scoring: what to score and how.

    ``items`` pairs each item (in dataset order) with its texts; ``task`` is the task
    strict scoring applies; ``context`` is handed to :meth:`Benchmark.scorers` (CRUXEval
    puts there the task its official script infers from the file's path; without one the
    score runner calls :meth:`Benchmark.prepare`, as eval does); ``notes`` are recorded
    in ``results.json`` as they are.

    ``responses``: the texts are model responses, read exactly as ``execlens eval``
    reads a reply (thought set apart, official stops on the final part, the benchmark's
    :meth:`Benchmark.extract`) -- a bare answer reads as itself through every built-in
    extraction.  ``False`` for a format that holds answers an official runner already
    extracted (LiveCodeBench's ``pred_list``): only a thought is set apart.
    ``prompted``: the items are the benchmark's prompt records (:meth:`Benchmark.render`
    takes them), whose official stop strings cut each final part; ``False`` for a format
    paired with bare problems (CRUXEval's, LiveCodeBench's), whose extraction applies
    the official stops itself.
    """

    task: str
    items: list[tuple[Any, list[str]]]
    context: Any = None
    notes: dict[str, Any] = field(default_factory=dict)
    responses: bool = True
    prompted: bool = True


@dataclass(frozen=True)
class ShippedRun:
    """A published generations file a benchmark ships, to reproduce its official numbers."""

    label: str
    generations: Path
    data: str
    model: str
    temperature: float | None
    description: str = ""


@runtime_checkable
class Benchmark(Protocol):
    """Everything the runners, the CLI and the reports need to know about one benchmark."""

    name: str
    """The registry key and ``--benchmark`` value (``cruxeval``, ``lcb-exec``, ``reval``)."""
    description: str
    tasks: Mapping[str, TaskSpec]
    modes: tuple[str, ...]
    # Optional: ``default_task`` (the task ``execlens eval`` asks when ``--task`` is
    # omitted; else the first of :attr:`tasks`), ``default = True`` (the benchmark
    # ``execlens score`` assumes without ``--benchmark``) and ``program_requirements``
    # (requirement strings such as ``("numpy<2",)`` the program environment needs for the
    # published numbers; the CLI warns when the program interpreter lacks them).
    """Scoring modes, ``("official", "strict")`` for every built-in benchmark."""
    scores_raw: bool
    """Scorers judge raw responses (True) or extracted answers (False)."""
    preload: tuple[str, ...]
    """Modules the scoring engine's servers import once (LiveCodeBench: numpy, pandas)."""
    scoring_workers: int
    """Default number of scoring servers (fewer where preloading is slow to start)."""

    def load(self, data: str | None) -> list[Any]:
        """All records from ``data`` (a path) or the benchmark's default source.

        Raises ``DatasetError`` naming the file, record and field of the first malformed
        records, or ``DatasetUnavailableError`` when the source cannot be read.
        """
        ...

    def plan(self, records: Sequence[Any], task: str, *, limit: int | None, offset: int) -> Plan:
        """The items to ask for ``task``, sliced by ``limit`` / ``offset``."""
        ...

    def render(self, item: Any, task: str, style: str) -> RenderedPrompt:
        """The official prompt of ``item``."""
        ...

    def extract(self, raw: str, item: Any, task: str, style: str, flavor: str) -> Extraction:
        """The answer text the official post-processing reads from ``raw``.

        ``flavor`` is ``"openai"`` for chat endpoints and ``"harness"`` for completions.
        """
        ...

    def prepare(self, items: Sequence[Any], task: str, engine: Engine) -> Any:
        """Whatever scoring needs computed once for all items (ground-truth traces); may be None."""
        ...

    def scorers(self, task: str, style: str, context: Any) -> Mapping[str, Scorer[Any]]:
        """One scorer per mode for ``task``; ``context`` is what :meth:`prepare` returned.

        Each plans on this benchmark's items (what :meth:`plan` lists), whatever their type.
        """
        ...

    def metrics(self, records: Sequence[Mapping[str, Any]], task: str) -> dict[str, Any]:
        """``{mode: {metric: value}}`` from finished sample records (``samples.jsonl`` lines).

        Also the place for constant-answer baselines (under ``"baselines"``) and anything
        the report shows; values are percentages.
        """
        ...

    def read_generations(self, path: Path, data: str | None, task: str | None) -> Generations:
        """The items of ``data`` paired with the answers of the generations file ``path``.

        Raises ``GenerationsError`` (or ``DatasetError``) naming the file and the problem.
        """
        ...

    def references(self) -> Sequence[Any]:
        """Published results this benchmark can be compared with (``bench.Reference``)."""
        ...

    def exports(self) -> Sequence[ExportSpec]:
        """Extra export formats (empty for most benchmarks)."""
        ...
