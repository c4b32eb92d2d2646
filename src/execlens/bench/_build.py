"""``execlens tasks build`` as a run: program runs traced in shards, tasks derived at the end.

The units are the loaded program runs (``bench.load_programs``); one shard done is its
runs traced (:class:`~execlens.bench.TracingRun`).  The tasks are derived from the
stored traces when every shard is done, so a run killed at any point and rerun writes
byte-identical tasks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._run import TraceSettings, TracingRun, records_digest

if TYPE_CHECKING:
    from execlens.store import RunDir, ShardExecutor
    from execlens.tasks import RuntimeProgram, RuntimeTask

__all__ = ["TasksBuilt", "TasksRun"]


@dataclass
class TasksBuilt:
    """A finished ``tasks build``: the tasks, the file they went to, and each program
    run's trace (``None`` for a skipped one) for the summary."""

    dest: Path
    written: int
    tasks: list[RuntimeTask]
    programs: list[RuntimeProgram]
    traces: list[Any]

    def truncated(self) -> list[tuple[str, str]]:
        """``(run, limit)`` of each run whose recording a limit cut short."""
        return [
            (f"{p.problem_id}#{p.input_index}", t.truncated)
            for p, t in zip(self.programs, self.traces)
            if t is not None and t.truncated
        ]


class TasksRun(TracingRun[TasksBuilt]):
    """Runtime-behaviour tasks with ground truth from traced program runs."""

    verb = "tasks build"

    def __init__(
        self,
        programs: Sequence[RuntimeProgram],
        dest: Path,
        run_path: Path,
        settings: TraceSettings,
        *,
        parquet: bool,
        selection: str,
        kinds: tuple[str, ...],
        seed: int,
    ) -> None:
        super().__init__(run_path, programs, settings)
        self.dest, self.parquet = dest, parquet
        self.selection, self.kinds, self.seed = selection, kinds, seed

    def identity(self) -> dict[str, Any]:
        """The loaded runs (not one file: REval's questions live in a second file), how
        many, and the tracer's options."""
        return {
            "data": records_digest(self.units),
            "runs": len(self.units),
            **self.tracing_identity(),
        }

    def work(self, step: str, chunk: list[Any]) -> list[dict[str, Any]]:
        """One shard's runs traced (a skipped run records no trace)."""
        from execlens.tasks import trace_programs, trace_record

        traced = iter(
            trace_programs(
                chunk, self.engine, mode=self.mode, limits=self.limits, wall_time=self.wall_limit
            )
        )
        return [
            {
                "run": f"{p.problem_id}#{p.input_index}",
                "trace": None if p.skip_reason else trace_record(next(traced)),
            }
            for p in chunk
        ]

    def finish(self, run: RunDir, executor: ShardExecutor) -> TasksBuilt:
        """The tasks derived from the stored traces, written to ``dest``."""
        from execlens.tasks import build_tasks, trace_from_record, write_tasks

        programs = self.units
        records = list(executor.records("traces"))
        traces = [
            None if r["trace"] is None else trace_from_record(r["trace"], program)
            for r, program in zip(records, programs)
        ]
        tasks = build_tasks(
            programs,
            traces=traces,
            mode=self.mode,
            selection=self.selection,
            kinds=self.kinds,
            seed=self.seed,
        )
        if self.dest.parent == run.path:
            run.file(self.dest.name)  # store-managed: --overwrite clears it with the run
        written = write_tasks(tasks, self.dest, parquet=self.parquet)
        return TasksBuilt(self.dest, written, tasks, programs, traces)
