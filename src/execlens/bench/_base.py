"""The typed base class every benchmark derives from: required parts and optional hooks.

A benchmark is a plug-in: its folder holds the loader, prompts, extraction, official
scorer, references and (optionally) an export, and registers one object derived from
:class:`BenchmarkBase`.  The generic runners (``run_eval``, ``run_score``), the demo,
``export`` and the CLI only ever talk to this class; no benchmark name appears outside
the benchmark's folder.  Every optional hook is declared here with its default, so a
runner calls it directly (nothing is probed with ``getattr``) and mypy checks both sides.

The flow of a run, in the class's words::

    load(data) -> records                       (malformed records named, never dropped)
    plan(records, task, limit, offset)          -> [(task, [item, ...]), ...]
    render(item, task, style)                   -> RenderedPrompt       (models ask it)
    extract(raw, item, task, style, flavor)     -> Extraction           (what was answered)
    prepare(items, task, engine)                -> context              (e.g. traced truth)
    scorers(task, style, context)[mode]         -> judge.Scorer         (plan jobs, finish)
    metrics(records, task)[mode]                -> {metric: percent}    (pass@k, IC, F1, ...)

``execlens score`` starts from a generations file instead of a model::

    read_generations(path, data, task)          -> Generations          (items + answers)

``item`` is the benchmark's own record type (the class's type parameter); it must have a
``sample_id: str`` unique within its task.  A scorer's ``plan(item, generations)``
receives the *raw* responses when :attr:`BenchmarkBase.scores_raw` is true (REval
re-reads text its stop strings cut) and the extracted answers otherwise.

:class:`~execlens.bench.TaskBenchmark` is the shortest way to one: rows become
``tasks.Task`` and everything but the official scorer comes from the core.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Generic

from ._data import select
from ._protocol import ExportSpec, Generations, Item, ShippedRun, TaskSpec

if TYPE_CHECKING:
    from execlens.engine import Engine, Limits
    from execlens.judge import Scorer, Verdict
    from execlens.tasks import RuntimeProgram, Task
    from execlens.tasks.prompts import Extraction, RenderedPrompt

    from ._perturb import PerturbTarget
    from ._perturb_traced import TracedTarget
    from ._references import Reference

__all__ = ["Benchmark", "BenchmarkBase", "Item"]

_NOTHING: Mapping[str, str] = MappingProxyType({})


class BenchmarkBase(ABC, Generic[Item]):
    """Everything the runners, the CLI and the reports need to know about one benchmark.

    A subclass declares :attr:`name`, :attr:`description`, :attr:`tasks` and the six
    abstract methods; every other member has a default a subclass overrides when it has
    something to say.
    """

    # -- required declarations ---------------------------------------------------------
    name: str
    """The registry key and ``--benchmark`` value (``cruxeval``, ``lcb-exec``, ``reval``)."""
    description: str

    @property
    def tasks(self) -> Mapping[str, TaskSpec]:
        """The benchmark's tasks by name: a subclass declares them as a class attribute,
        or as a property where they are computed (the runtime benchmark's, one per
        registered question kind)."""
        raise NotImplementedError(f"{type(self).__name__} declares no tasks")

    modes: tuple[str, ...] = ("official", "strict")
    """Scoring modes, ``("official", "strict")`` for every built-in benchmark."""

    # -- optional declarations, with their defaults ------------------------------------
    default_task: str | None = None
    """The task ``execlens eval`` asks when ``--task`` is omitted (None: the first one)."""
    default: bool = False
    """The benchmark ``execlens score`` assumes without ``--benchmark`` (CRUXEval's)."""
    scores_raw: bool = False
    """Scorers judge the final parts of raw responses (True) or extracted answers."""
    official_reads_thought: bool = False
    """Scorers judge whole responses, thought included (RE2-Bench's official rule)."""
    preload: tuple[str, ...] = ()
    """Modules the scoring engine's servers import once (LiveCodeBench: numpy, pandas)."""
    scoring_workers: int = 16
    """Default number of scoring servers (fewer where preloading is slow to start)."""
    program_requirements: tuple[str, ...] = ()
    """Requirements (``"numpy<2"``) the program environment needs for the published
    numbers; the CLI warns when the program interpreter lacks them."""
    eval_files: tuple[str, ...] = ()
    """Its programs under an evaluation-data folder (``"name/*.jsonl"``): export's
    decontamination reads them."""

    skipped: Mapping[str, str] = _NOTHING
    """Items the last :meth:`plan` will not ask, with the reason (REval: gensim)."""

    @property
    def default_task_name(self) -> str:
        """:attr:`default_task`, else the first of :attr:`tasks`."""
        return self.default_task or next(iter(self.tasks))

    # -- the flow ----------------------------------------------------------------------
    @abstractmethod
    def load(self, data: str | None) -> list[Any]:
        """All records from ``data`` (a path) or the benchmark's default source.

        Raises ``DatasetError`` naming the file, record and field of the first malformed
        records, or ``DatasetUnavailableError`` when the source cannot be read.
        """

    def plan(
        self, records: Sequence[Any], task: str, *, limit: int | None, offset: int
    ) -> list[tuple[str, list[Item]]]:
        """The items to ask for ``task``, sliced by ``limit`` / ``offset``: by default
        one task over the selected records (each record is an item)."""
        return [(task, select(list(records), limit=limit, offset=offset))]

    @abstractmethod
    def render(self, item: Item, task: str, style: str) -> RenderedPrompt:
        """The official prompt of ``item``."""

    @abstractmethod
    def extract(self, raw: str, item: Item, task: str, style: str, flavor: str) -> Extraction:
        """The answer text the official post-processing reads from ``raw``.

        ``flavor`` is ``"openai"`` for chat endpoints and ``"harness"`` for completions.
        """

    def prepare(self, items: Sequence[Item], task: str, engine: Engine | None) -> Any:
        r"""Whatever scoring needs computed once for all items (ground-truth traces).

        By default: the truth of the items' :meth:`strict_task`\ s that the core builds
        (``tasks.TruthRun``), run in ``engine`` and cached (``bench.StrictTasks``); None
        when there is none to build (the truth is in the data)."""
        from ._truths import prepare_strict

        return prepare_strict(self, items, task, engine)

    @abstractmethod
    def scorers(self, task: str, style: str, context: Any) -> Mapping[str, Scorer[Item]]:
        """One scorer per mode for ``task``; ``context`` is what :meth:`prepare` returned."""

    @abstractmethod
    def metrics(self, records: Sequence[Mapping[str, Any]], task: str) -> dict[str, Any]:
        """``{mode: {metric: value}}`` from finished sample records (``samples.jsonl``).

        Also the place for constant-answer baselines (under ``"baselines"``) and anything
        the report shows; values are percentages.
        """

    @abstractmethod
    def read_generations(self, path: Path, data: str | None, task: str | None) -> Generations[Item]:
        """The items of ``data`` paired with the answers of the generations file ``path``.

        Raises ``GenerationsError`` (or ``DatasetError``) naming the file and the problem.
        """

    def references(self) -> Sequence[Reference]:
        """Published results this benchmark can be compared with (``bench.Reference``)."""
        return ()

    def exports(self) -> Sequence[ExportSpec]:
        """Extra export formats (none by default)."""
        return ()

    # -- strict mode from the core ------------------------------------------------------
    strict_limits: Limits | None = None
    """Engine limits of the runs judging :meth:`strict_task` input predictions (None:
    the judge's)."""

    def strict_task(self, item: Item, task: str) -> Task | None:
        """The ``tasks.Task`` ``item`` asks, for the core's strict scorer
        (:meth:`strict_scorer`): its reference the truth, a ``tasks.TruthRun`` (the core
        runs the task's program and call for it, in :meth:`prepare` or the scoring plan)
        or a ``tasks.NoTruth`` with why there is none.  None by default (no strict task:
        the benchmark scores strict itself)."""
        return None

    def strict_answer(self, answer: str, task: str) -> str | Verdict:
        """An answer as the core's strict scorer reads it -- the text its task's kind
        judges, or the verdict of an answer this benchmark's strict mode cannot read
        (CoCoNUT: no one-line list).  The answer itself by default."""
        return answer

    def strict_scorer(self, task: str, context: Any) -> Scorer[Item]:
        """The core's strict scorer of ``task`` (``judge.TaskScorer`` over
        :meth:`strict_task`; ``context``: what :meth:`prepare` returned)."""
        from ._truths import strict_scorer

        return strict_scorer(self, task, context)

    # -- optional hooks ----------------------------------------------------------------
    def explain(self, item: Item, task: str, context: Any) -> dict[str, Any] | None:
        """What the report shows beside a failed answer (None: nothing).

        ``context`` is what :meth:`prepare` returned for ``task``; the eval runner stores
        the dict under ``record["question"]``.  Keys (all optional but ``expected``):
        ``expected`` (the reference answer written as the model should write it),
        ``program``, ``asked_line`` (1-indexed), ``executed_lines``, ``true_value``,
        ``question``, ``run``, ``expected_by_mode`` (``{mode: answer}``) and ``note``.
        """
        return None

    def eval_programs(self) -> list[str]:
        """The programs of the data it ships: export decontaminates against them with
        no ``--eval-data`` (none by default)."""
        return []

    def question_task(self, record: Mapping[str, Any]) -> Task | None:
        """The prediction task a row of its data asks, None for a row not of its shape
        (``export`` reads benchmark problems through it; None by default)."""
        return None

    @property
    def reads_programs(self) -> bool:
        """Whether ``tasks build`` and the runtime benchmark may ask :meth:`programs`:
        true where a subclass overrides it."""
        return type(self).programs is not BenchmarkBase.programs

    def recognises(self, path: Path, first: Mapping[str, Any]) -> bool:
        """Whether ``path`` (a file or a directory) is data :meth:`programs` reads;
        ``first`` is the file's first record, ``{}`` for a directory or an empty file."""
        return False

    def programs(self, data: Path) -> list[RuntimeProgram]:
        """The runs its data asks runtime questions about (a malformed record is a named
        ``tasks.SourceError``); none by default."""
        return []

    def shipped_runs(self) -> list[ShippedRun]:
        """Published generations files it ships, to reproduce its official numbers."""
        return []

    def demo_evals(self, directory: Path, engine: Engine) -> list[tuple[str, dict[str, Any]]]:
        """``[(label, EvalConfig fields), ...]`` the demo runs (data written under
        ``directory``); none by default."""
        return []

    @property
    def perturb_note(self) -> str | None:
        """Why ``--perturb`` cannot apply to this benchmark; None where it can (a subclass
        that overrides :meth:`perturb_target`)."""
        if type(self).perturb_target is BenchmarkBase.perturb_target:
            return "it declares no perturb_target"
        return None

    def perturb_target(self, item: Item, task: str) -> PerturbTarget | TracedTarget | str:
        """What ``--perturb`` rewrites for ``item``, or a string saying why it cannot."""
        return self.perturb_note or "not perturbable"

    def perturbed(self, plan: Sequence[tuple[str, list[Item]]]) -> None:
        """Hand the benchmark the perturbed plan (its own state follows it); no-op."""


#: The name annotations use: every benchmark is a :class:`BenchmarkBase`.
Benchmark = BenchmarkBase
