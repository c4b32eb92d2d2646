"""One run core for ``eval``, ``score``, ``trace`` and ``tasks build``.

A :class:`Run` reads like a datatrove pipeline step: the base class owns everything a
long, resumable run needs -- its identity, the run directory (lock, manifest), the
store's executor (``execlens.store.ShardExecutor``: the one resume loop), the progress
display, the engine's lifetime (started only when something is left to do, closed
however the run ends) and the one failure type -- and a subclass makes its one
decision: what its units are (:meth:`Run.steps`), how one shard of them is done
(:meth:`Run.work`) and what the finished run writes (:meth:`Run.finish`).

**Identity.**  Every run's identity is ``{"verb": ..., **options, data, "program":
...}``: the options that change its results (:meth:`Run.identity`), a digest of
everything it read -- data files, questions, generations -- computed by one function,
:func:`records_digest` over the records as loaded (so a file that sits beside the one
named, such as REval's ``DREval_tasks.jsonl``, counts as soon as its content is loaded),
and the program environment verdicts are computed under.  A rerun whose identity differs
is refused (``--overwrite`` replaces it); one whose identity matches resumes.

:class:`TracingRun` is the part ``trace`` and ``tasks build`` share: program runs
traced in shards of :data:`SHARD_RUNS` on a tracing engine.
"""

from __future__ import annotations

import hashlib
import json
import time
from abc import ABC, abstractmethod
from collections.abc import Sequence
from contextlib import AbstractContextManager, ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

if TYPE_CHECKING:
    from execlens._progress import StageProgress
    from execlens.engine import Engine
    from execlens.store import RunDir, ShardExecutor, Step

__all__ = [
    "SHARD_RUNS",
    "Run",
    "RunError",
    "TraceSettings",
    "TracingRun",
    "program_identity",
    "records_digest",
    "sha256_json",
]

#: Program runs per shard of a tracing run: small enough that a kill costs little, big
#: enough that the engine's servers stay busy.
SHARD_RUNS = 32

R = TypeVar("R")


class RunError(RuntimeError):
    """A run that cannot go on as asked; the message names the fix."""


def sha256_json(value: Any) -> str:
    """A stable digest of a JSON-able value: the one digest every run identity uses."""
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, default=repr)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def records_digest(records: Sequence[Any]) -> str:
    """A run's data identity: :func:`sha256_json` of each loaded record's ``repr``.

    Every benchmark's records, the runs ``tasks build`` reads and the problems ``trace``
    reads are frozen dataclasses of plain values (a caller whose records hide fields
    from ``repr`` hands in their ``astuple``), so the digest is of the data as loaded,
    whatever files it came from.
    """
    return sha256_json([repr(record) for record in records])


def program_identity(engine: Engine | None = None, *, strict: bool = False) -> dict[str, Any]:
    """The program environment verdicts and traces are computed under (interpreter path,
    Python, NumPy, a digest of every installed distribution), for a run's identity.

    The same answers judged under NumPy 1 and NumPy 2 are two different runs: a rerun
    under another interpreter must not resume the first one's shards.  An interpreter
    that cannot report itself is left out (``{}``: starting the engine names that
    failure), or with ``strict`` refused here as a :class:`RunError`.
    """
    import subprocess

    from execlens.engine import EngineError, program_fingerprint, resolve_program_python

    python = getattr(engine, "python", None)
    if not strict:
        try:
            return program_fingerprint(python).key()
        except (OSError, subprocess.SubprocessError, ValueError):
            return {}
    try:
        return program_fingerprint(resolve_program_python(python)).key()
    except EngineError as exc:
        raise RunError(str(exc)) from exc
    except (OSError, ValueError, KeyError) as exc:  # it runs, but cannot report itself
        detail = f"{type(exc).__name__}: {exc}"
    except Exception as exc:  # noqa: BLE001 - subprocess errors: named, not a traceback
        detail = type(exc).__name__
    raise RunError(
        f"the program interpreter {resolve_program_python(python)} could not report "
        f"its packages ({detail}); give a CPython >= 3.11"
    )


class Run(ABC, Generic[R]):
    """A resumable run into one directory; :meth:`execute` does it and returns its result.

    A subclass sets :attr:`verb` (the identity's first field) and :attr:`error` (the
    :class:`RunError` its failures are raised as), and makes its decisions in
    :meth:`identity`, :meth:`steps`, :meth:`work` and :meth:`finish`; :meth:`start_engine`
    when it executes programs, :meth:`begin` and :meth:`on_shard` when it shows more than
    a bar per step.
    """

    verb: ClassVar[str]
    error: ClassVar[type[RunError]] = RunError

    def __init__(
        self,
        out: str | Path,
        *,
        overwrite: bool = False,
        engine: Engine | None = None,
        show_progress: bool = False,
        plain: bool = True,
    ) -> None:
        self.out = Path(out)
        self.overwrite = overwrite
        self.given_engine = engine
        self.show_progress = show_progress
        self.plain = plain
        self.started = time.perf_counter()
        self._own_engine: Engine | None = None
        self._engines = ExitStack()
        self.display: StageProgress | None = None

    # -- a subclass's decisions -------------------------------------------------------

    @abstractmethod
    def identity(self) -> dict[str, Any]:
        """What must match for a rerun to resume this run, beside ``verb`` and
        ``program``: the options that change its results and the digest of its data."""

    @abstractmethod
    def steps(self) -> list[Step]:
        """This run's units, as the store's steps (each fed in shards)."""

    @abstractmethod
    def work(self, step: str, chunk: list[Any]) -> list[dict[str, Any]]:
        """One shard's pending units of ``step`` done: their records, in order."""

    @abstractmethod
    def finish(self, run: RunDir, executor: ShardExecutor) -> R:
        """Read the records back, write the final files, and return the run's result."""

    def start_engine(self) -> AbstractContextManager[Engine]:
        """The engine this run executes programs on (entered once, when first needed)."""
        raise NotImplementedError(f"{type(self).__name__} executes no programs")

    def program(self) -> dict[str, Any]:
        """The program environment's part of the identity (:func:`program_identity`)."""
        return program_identity(self.given_engine)

    def begin(self, executor: ShardExecutor, stack: ExitStack) -> None:
        """Called once the executor knows what is left, before any shard runs (open a
        model client, add progress stages); ``stack`` closes what it enters."""

    def on_shard(self, step: str, index: int, records: int, stats: dict[str, Any]) -> None:
        """Called as each shard is written."""

    def run_shards(self, executor: ShardExecutor) -> None:
        """Run every unfinished shard (a subclass may catch what it reports itself)."""
        executor.run(on_shard=self.on_shard)

    # -- what the base owns ----------------------------------------------------------

    def full_identity(self) -> dict[str, Any]:
        """The manifest's identity: the verb, :meth:`identity` and :meth:`program`."""
        return {"verb": self.verb, **self.identity(), "program": self.program()}

    @property
    def engine(self) -> Engine:
        """The engine to execute on: the one handed in, else this run's own, started now."""
        if self.given_engine is not None:
            return self.given_engine
        if self._own_engine is None:
            self._own_engine = self._engines.enter_context(self.start_engine())
        return self._own_engine

    @property
    def engine_used(self) -> Engine | None:
        """The engine this invocation executed on (``None``: everything resumed)."""
        return self.given_engine or self._own_engine

    def seconds(self) -> float:
        """Seconds since the run object was made."""
        return time.perf_counter() - self.started

    def todo(self, executor: ShardExecutor) -> int:
        """How many shards (or, for keyed steps, units) are left to do."""
        left = 0
        for name, step in executor.steps.items():
            if step.key is not None:
                left += len(executor.pending(name))
            else:
                left += executor.totals[name] - len(executor.done(name))
        return left

    def execute(self) -> R:
        """Open (or resume) the run directory, run what is left, and finish the run.

        A store refusal (another run in ``out``, a locked or unusable directory) is
        raised as :attr:`error`; the run's own engine is closed however it ends.
        """
        from execlens._progress import StageProgress
        from execlens.store import InlineBackend, RunDir, ShardExecutor, StoreError

        try:
            with self._engines, ExitStack() as stack:
                run = stack.enter_context(
                    RunDir.open(self.out, self.full_identity(), overwrite=self.overwrite)
                )
                # Inline: a shard's programs already run in parallel on the engine.
                executor = ShardExecutor(run, self.steps(), InlineBackend(self._shard))
                shown = self.show_progress and self.todo(executor) > 0
                self.display = stack.enter_context(StageProgress(shown, plain=self.plain))
                self.begin(executor, stack)
                self.run_shards(executor)
                return self.finish(run, executor)
        except StoreError as exc:
            raise self.error(str(exc)) from exc

    def _shard(
        self, step: str, chunk: list[Any], index: int, total: int
    ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        # A shard none of this run's units fall into (an --offset slice) does no work.
        return (self.work(step, chunk) if chunk else []), {}


@dataclass(frozen=True)
class TraceSettings:
    """The options every tracing run takes: the tracer ``mode``, its step cap, the
    wall-clock limit per traced run and the fork servers; whether a different earlier
    run may be replaced, and whether progress is shown."""

    mode: str
    max_steps: int
    wall_limit: float
    workers: int | None = None
    overwrite: bool = False
    show_progress: bool = True


class TracingRun(Run[R]):
    """Program runs traced in shards of :data:`SHARD_RUNS` (one step, ``traces``) on a
    tracing engine: the part ``trace`` and ``tasks build`` share."""

    def __init__(self, out: str | Path, units: Sequence[Any], settings: TraceSettings) -> None:
        super().__init__(out, overwrite=settings.overwrite, show_progress=settings.show_progress)
        from execlens.trace import TraceLimits

        self.units = list(units)
        self.mode = settings.mode
        self.max_steps = settings.max_steps
        self.wall_limit = settings.wall_limit
        self.workers = settings.workers
        self.limits = TraceLimits(max_steps=settings.max_steps)
        self._tracing: Any = None
        self._shards_done = 0

    def tracing_identity(self) -> dict[str, Any]:
        """The tracer's options, part of both verbs' identities."""
        return {"mode": self.mode, "max_steps": self.max_steps, "wall_limit": self.wall_limit}

    def program(self) -> dict[str, Any]:
        """Refused loudly when the program interpreter cannot report itself."""
        return program_identity(strict=True)

    def steps(self) -> list[Step]:
        """One step, ``traces``, over the units in shards of :data:`SHARD_RUNS`."""
        from execlens.store import Step

        chunks = [self.units[i : i + SHARD_RUNS] for i in range(0, len(self.units), SHARD_RUNS)]
        return [Step("traces", fed=len(chunks), feed=chunks)]

    def start_engine(self) -> AbstractContextManager[Engine]:
        """A tracing engine with ``workers`` fork servers."""
        from execlens.trace import trace_engine

        return trace_engine(workers=self.workers)

    def begin(self, executor: ShardExecutor, stack: ExitStack) -> None:
        """A ``tracing`` bar counting shards."""
        assert self.display is not None
        self._shards_done = len(executor.done("traces"))
        self._tracing = self.display.stage("tracing", executor.totals["traces"], self._shards_done)

    def on_shard(self, step: str, index: int, records: int, stats: dict[str, Any]) -> None:
        """Advance the ``tracing`` bar."""
        self._shards_done += 1
        self._tracing(self._shards_done)
