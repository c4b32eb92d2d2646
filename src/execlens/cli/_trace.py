"""``execlens trace DATASET --mode frame-blind|exact --out DIR``: trace every input of REval.

Writes the JetBrains REval layout (``executions.jsonl``, ``states.jsonl``) through
``execlens.store``: runs are traced in shards by the store's shard executor (completion
markers, resume) under a locked, manifest-checked run directory, and the final files are
streamed from the shards in order, so a run killed at any point and rerun writes
byte-identical files.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from execlens.bench import TracingRun, records_digest
from execlens.cli._failures import run_failures
from execlens.cli._program_env import benchmark_requirements, warn_program_environment
from execlens.cli._run import usage_error
from execlens.cli._tasks import (
    DEFAULT_WALL_LIMIT,
    MaxStepsOption,
    ProgressOption,
    WallLimitOption,
    WorkersOption,
    checked_mode,
    named_runs,
    trace_settings,
)

if TYPE_CHECKING:
    from execlens.bench import TraceSettings
    from execlens.store import RunDir, ShardExecutor

# Statuses that are ground truth (a program may raise); anything else is named.
_EXPECTED = ("ok", "exception", "skipped")


def _load(dataset: Path) -> list[Any]:
    """REval problems, or a usage error naming the record, field and expectation."""
    from execlens.bench import DatasetError
    from execlens.bench.reval import reval_problems_to_trace

    try:
        return reval_problems_to_trace(dataset)
    except DatasetError as exc:
        usage_error(str(exc))


class TraceRun(TracingRun[list[dict[str, Any]]]):
    """Every selected run of REval's problems traced; the JetBrains layout (and CWM's
    format) streamed from the shards.  Its result: the execution records, for the
    summary."""

    verb = "trace"

    def __init__(
        self,
        out: Path,
        problems: list[Any],
        settings: TraceSettings,
        *,
        rows: str,
        fmt: str,
    ) -> None:
        selected = [
            run
            for problem in problems
            for run in problem.runs
            if rows == "all" or run.index in {p.input_idx for p in problem.pairs}
        ]
        super().__init__(out, selected, settings)
        self.problems, self.rows, self.fmt = problems, rows, fmt

    def identity(self) -> dict[str, Any]:
        """Every loaded problem, every field included (``astuple``: not the files' bytes,
        since REval's questions, ``DREval_tasks.jsonl``, sit beside the data file the
        user names, and a ClassEval problem's ``setUp`` sources are fields its ``repr``
        leaves out), the rows, the format and the tracer's options."""
        from dataclasses import astuple

        return {
            "data": records_digest([astuple(problem) for problem in self.problems]),
            "rows": self.rows,
            **self.tracing_identity(),
            **({"format": self.fmt} if self.fmt != "jetbrains" else {}),
        }

    def work(self, step: str, chunk: list[Any]) -> list[dict[str, Any]]:
        """One shard's runs traced; one record per run holds both of its rows, so the two
        files can never disagree on which runs are done."""
        from execlens.bench.reval import execution_record, states_record
        from execlens.trace import trace_job, trace_many

        requests = []
        for item in chunk:
            if item.problem.skip_reason is None:
                request = item.request(self.mode, self.limits)
                base = trace_job(request).limits
                assert base is not None  # a tracing job always carries its limits
                limits = base.with_(wall_time=self.wall_limit)
                requests.append(_with_engine_limits(request, limits))
        results = iter(trace_many(self.engine, requests))
        pairs = [(item, None if item.problem.skip_reason else next(results)) for item in chunk]
        return [
            {
                "execution": execution_record(item, t),
                "states": states_record(item, t),
                **({"cwm": _cwm_record(item, t)} if self.fmt == "cwm" else {}),
            }
            for item, t in pairs
        ]

    def finish(self, run: RunDir, executor: ShardExecutor) -> list[dict[str, Any]]:
        """The REval layout: each file streamed from the shards in run order."""
        from execlens.store import write_jsonl_stream

        names = {"execution": "executions.jsonl", "states": "states.jsonl"}
        if self.fmt == "cwm":
            names["cwm"] = "cwm.jsonl"
        for field, name in names.items():
            write_jsonl_stream(
                run.file(name),
                (r[field] for r in executor.records("traces")),
                sort_keys=False,
            )
        return [r["execution"] for r in executor.records("traces")]


# ``trace``'s own options, one alias each.
_Dataset = Annotated[
    Path,
    typer.Argument(
        help="REval data: a directory holding DREval_data.jsonl (and DREval_tasks.jsonl), "
        "or that file."
    ),
]
_Out = Annotated[
    Path,
    typer.Option(
        "--out",
        "-o",
        help="Run directory for "
        "executions.jsonl and states.jsonl (JetBrains REval "
        "layout); rerun to resume.",
    ),
]
_Mode = Annotated[
    str,
    typer.Option(
        help="frame-blind (REval's reference tracer: one "
        "state list across frames; alias: reval) or exact "
        "(per-frame, corrected)."
    ),
]
_Rows = Annotated[
    str, typer.Option(help="all (every input) or pairs (the inputs REval asks about).")
]
_Format = Annotated[
    str,
    typer.Option(
        "--format",
        help="jetbrains (the REval layout) or cwm "
        "(also cwm.jsonl: each run in Code World Model's trace "
        "format; exact mode).",
    ),
]
_Overwrite = Annotated[
    bool, typer.Option(help="Replace a different earlier run in --out instead of refusing.")
]


def trace(
    dataset: _Dataset,
    out: _Out,
    mode: _Mode = "exact",
    rows: _Rows = "all",
    fmt: _Format = "jetbrains",
    workers: WorkersOption = None,
    max_steps: MaxStepsOption = 200_000,
    wall_limit: WallLimitOption = DEFAULT_WALL_LIMIT,
    overwrite: _Overwrite = False,
    progress: ProgressOption = True,
) -> None:
    """Trace every input of an REval dataset and export the traces (resumable)."""
    from execlens.bench.reval import BENCHMARK, EXPORT_ROWS

    mode = checked_mode(mode)
    if rows not in EXPORT_ROWS:
        usage_error(f"--rows must be one of {', '.join(EXPORT_ROWS)}, not {rows!r}")
    if fmt not in ("jetbrains", "cwm") or (fmt == "cwm" and mode != "exact"):
        usage_error(f"--format must be jetbrains or cwm (cwm needs --mode exact), not {fmt!r}")
    settings = trace_settings(
        mode,
        workers=workers,
        max_steps=max_steps,
        wall_limit=wall_limit,
        overwrite=overwrite,
        progress=progress,
    )
    problems = _load(dataset)
    for problem in problems:
        if problem.skip_reason:
            typer.echo(f"skipped {problem.task_id}: {problem.skip_reason}", err=True)
    warn_program_environment(benchmark_requirements([BENCHMARK.name]))
    run = TraceRun(out, problems, settings, rows=rows, fmt=fmt)
    with run_failures():
        records = run.execute()
    _print_traced(records, out, mode)


def _print_traced(records: list[dict[str, Any]], out: Path, mode: str) -> None:
    """The summary on stderr: how many runs, then those that failed or were cut."""
    statuses = Counter(r["status"] for r in records)
    typer.echo(
        f"{len(records)} executions ({statuses['ok']} ok, {statuses['skipped']} skipped) "
        f"written to {out}/executions.jsonl and {out}/states.jsonl ({mode} mode)",
        err=True,
    )
    for status in sorted(set(statuses) - set(_EXPECTED)):
        runs = [f"{r['task_id']}#{r['input_idx']}" for r in records if r["status"] == status]
        typer.echo(f"{len(runs)} runs {status}: {named_runs(runs)}", err=True)
    cut = [
        f"{r['task_id']}#{r['input_idx']} ({r['truncated']})" for r in records if r.get("truncated")
    ]
    if cut:
        typer.echo(f"{len(cut)} runs hit a recording limit: {named_runs(cut)}", err=True)


def _cwm_record(item: Any, trace: Any) -> dict[str, Any]:
    """One run in CWM's trace format (``execlens.trace.cwm_trace``), or why it has none."""
    from execlens.trace import cwm_trace

    row: dict[str, Any] = {"task_id": item.problem.task_id, "input_idx": item.index, "cwm": None}
    if trace is None or not trace.recorded or trace.truncated:
        row["error"] = "no complete trace"
        return row
    try:
        row["cwm"] = cwm_trace(trace, item.problem.code)
    except ValueError as exc:  # nothing recorded in the program's own frames
        row["error"] = str(exc)
    return row


def _with_engine_limits(request: Any, limits: Any) -> Any:
    from dataclasses import replace

    return replace(request, engine_limits=limits)


def register(app: typer.Typer) -> None:
    """Add the ``trace`` verb."""
    app.command("trace")(trace)
