"""Ground truth: trace the programs once, build the balanced questions, keep them on disk.

The questions themselves depend on the runs (balanced selection keeps as many
never-executed lines as executed ones, in each run), so the programs are traced before
anything is asked.  The result -- every selected ``RuntimeTask`` with its reference -- is kept
in the core's truth cache (``bench.TruthCache``, namespace ``runtime-truth``) under a key
of everything it depends on (the programs, the selection, the seed, the tracer mode,
execlens' version; the cache adds the host's Python and the program interpreter): a
rerun or a resumed run traces nothing.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from execlens.bench import TruthCache, truth_cache_dir
from execlens.tasks import (
    BUILD_KINDS,
    RuntimeProgram,
    RuntimeTask,
    build_kind_names,
    build_tasks,
    failed_runs,
)

if TYPE_CHECKING:
    from execlens.engine import Engine

__all__ = [
    "SELECTION",
    "TRACE_MODE",
    "TRUTH_VERSION",
    "RuntimeTruth",
    "TracedTasks",
    "run_key",
    "traced_tasks",
]

TRUTH_VERSION = 5  # 2: balanced per run; 3: seed-dependent runs left out; 4: executed
#                      lines; 5: full-trace tasks
#: The frame-aware tracer (REval's own reference tracer is REval's official mode only).
TRACE_MODE = "exact"
SELECTION = "balanced"
#: The engine's runs use hash seed 0; a second trace under this one finds seed-dependent runs.
_OTHER_SEED = 1


def _version() -> str:
    from importlib import metadata

    try:
        return metadata.version("execlens")
    except metadata.PackageNotFoundError:  # a source tree without metadata
        return "unknown"


def _plugin_kinds() -> list[list[str]]:
    """The buildable kinds, when plug-ins add to the built-in ones (a key written before
    plug-ins existed stays the same)."""
    names = build_kind_names()
    return [] if names == BUILD_KINDS else [list(names)]


def _truth_content(programs: Sequence[RuntimeProgram], seed: int) -> list[Any]:
    """Everything the questions and their truth depend on but the interpreters (the
    cache's key adds the host's Python and the program environment)."""
    return [
        TRUTH_VERSION,
        TRACE_MODE,
        SELECTION,
        seed,
        _version(),
        *_plugin_kinds(),
        [asdict(program) for program in programs],
    ]


def run_key(problem_id: str, input_index: int) -> str:
    """The name of one run (``sample_3#0``), as failures, skips and executed lines key it."""
    return f"{problem_id}#{input_index}"


class TracedTasks:
    """The selected tasks of a set of programs and the runs that yielded none."""

    def __init__(
        self,
        tasks: list[RuntimeTask],
        failed: dict[str, list[str]],
        skipped: dict[str, str],
        executed: dict[str, list[int]] | None = None,
    ) -> None:
        self.tasks = tasks
        self.failed = failed
        """Runs that recorded nothing, by status (``timeout``: [``sample_3#0``])."""
        self.skipped = skipped
        """Runs asked nothing, with the reason (a module not installed, a run whose truth
        changes with the hash seed)."""
        self.executed = executed or {}
        """The 1-indexed program lines each asked run executed (:func:`run_key`): the
        judges do not need them; a report shows them beside a failed question."""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form."""
        return {
            "version": TRUTH_VERSION,
            "tasks": [t.to_dict() for t in self.tasks],
            "failed": self.failed,
            "skipped": self.skipped,
            "executed": self.executed,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TracedTasks:
        """Rebuild from :meth:`to_dict` output (``ValueError`` for another version)."""
        if data.get("version") != TRUTH_VERSION:
            raise ValueError(f"runtime truth version {data.get('version')!r}")
        return cls(
            [RuntimeTask.from_dict(t) for t in data["tasks"]],
            dict(data["failed"]),
            dict(data["skipped"]),
            {str(k): [int(n) for n in v] for k, v in data["executed"].items()},
        )


class RuntimeTruth(dict[str, RuntimeTask]):
    """What :meth:`RuntimeBenchmark.prepare` returns: ``{sample id: task}`` (the scorers
    read it as a mapping) and, in :attr:`executed`, the lines each run executed."""

    def __init__(self, tasks: dict[str, RuntimeTask], executed: dict[str, list[int]]) -> None:
        super().__init__(tasks)
        self.executed = executed


def _seed_dependent(
    runnable: Sequence[RuntimeProgram], paired: Sequence[Any], engine: Engine
) -> set[int]:
    """Indexes of the runs whose ground truth changes under another hash seed (a set of
    strings iterated, ``hash()`` printed): their truth is an accident, not asked."""
    from execlens.trace import ground_truth_key, trace_many

    requests = [
        p.trace_request(mode=TRACE_MODE, hash_seed=_OTHER_SEED, tag=index)
        for index, (p, trace) in enumerate(zip(runnable, paired))
        if trace is not None and trace.recorded
    ]
    return {
        int(other.tag)
        for other in trace_many(engine, requests)
        if ground_truth_key(other) != ground_truth_key(paired[int(other.tag)])
    }


def _build(programs: Sequence[RuntimeProgram], engine: Engine, seed: int) -> TracedTasks:
    from execlens.tasks import trace_programs

    runnable = [p for p in programs if p.skip_reason is None]
    traces = trace_programs(runnable, engine, mode=TRACE_MODE)
    by_program = {id(t.tag): t for t in traces}
    paired = [by_program.get(id(p)) for p in runnable]
    unstable = _seed_dependent(runnable, paired, engine)
    paired = [None if index in unstable else trace for index, trace in enumerate(paired)]
    # Balanced per run: a run's questions depend on that run alone, so they are the same
    # whatever slice (--limit/--offset) it is asked in -- a run grown from 5 to 50
    # programs keeps its first answers, and a generations file matches any slice.
    # Full traces are built with the rest (one per run, never sampled); ``all`` leaves
    # them out and ``--task trace`` asks them.
    tasks = [
        task
        for program, trace in zip(runnable, paired)
        for task in build_tasks(
            [program], traces=[trace], selection=SELECTION, seed=seed, kinds=build_kind_names()
        )
    ]
    skipped = {
        f"{p.problem_id}#{p.input_index}": str(p.skip_reason)
        for p in programs
        if p.skip_reason is not None
    }
    unstable_reason = "nondeterministic (its run changes with the hash seed)"
    skipped.update(
        {
            f"{runnable[i].problem_id}#{runnable[i].input_index}": unstable_reason
            for i in sorted(unstable)
        }
    )
    failed = failed_runs(
        [p for i, p in enumerate(runnable) if i not in unstable],
        [t for i, t in enumerate(paired) if i not in unstable],
    )
    executed = {
        run_key(program.problem_id, program.input_index): [
            n for n in range(1, program.program.count("\n") + 2) if trace.covered(n)
        ]
        for program, trace in zip(runnable, paired)
        if trace is not None and trace.recorded
    }
    return TracedTasks(tasks, failed, skipped, executed)


def traced_tasks(
    programs: Sequence[RuntimeProgram],
    *,
    engine: Engine | None = None,
    seed: int = 0,
    cache_dir: Path | None = None,
) -> TracedTasks:
    """The balanced questions about ``programs`` with their truth (cached on disk).

    ``engine`` traces when given; otherwise a tracing engine is started only on a cache
    miss.  A torn or stale cache file is rebuilt, never trusted.
    """
    cache = TruthCache("runtime-truth", cache_dir or truth_cache_dir("runtime-truth"))
    environment = TruthCache.program_of(engine)
    key = TruthCache.key(_truth_content(programs, seed), environment)
    cached = cache.get(key, TracedTasks.from_dict)
    if cached is not None:
        return cached
    if engine is not None:
        built = _build(programs, engine, seed)
    else:
        from execlens.trace import trace_engine

        with trace_engine() as own:
            built = _build(programs, own, seed)
    data = built.to_dict()
    cache.put(key, data)
    # Through JSON, as a cache hit reads it: a first run and a rerun see the same values.
    return TracedTasks.from_dict(json.loads(json.dumps(data)))
