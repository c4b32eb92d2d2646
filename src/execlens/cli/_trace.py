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
from typing import Annotated, Any

import typer

from execlens.cli._program_env import (
    benchmark_requirements,
    program_identity,
    warn_program_environment,
)
from execlens.cli._run import usage_error
from execlens.cli._tasks import (
    DEFAULT_WALL_LIMIT,
    SHARD_RUNS,
    MaxStepsOption,
    ProgressOption,
    WallLimitOption,
    WorkersOption,
    check_run_options,
    checked_mode,
    named_runs,
    open_run,
    traced_in_shards,
)

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


def _data_digest(problems: list[Any]) -> str:
    """The run's data identity: a digest of every loaded problem, every field included.

    Not the files' bytes: REval's questions (``DREval_tasks.jsonl``) sit beside the data
    file the user names, and a ClassEval problem's ``setUp`` sources are fields its
    ``repr`` leaves out; a rerun after either changed must not resume the old run.
    """
    from dataclasses import astuple

    from execlens.bench import records_digest

    return records_digest([astuple(problem) for problem in problems])


def trace(
    dataset: Annotated[
        Path,
        typer.Argument(
            help="REval data: a directory holding DREval_data.jsonl (and DREval_tasks.jsonl), "
            "or that file."
        ),
    ],
    out: Annotated[
        Path,
        typer.Option(
            "--out",
            "-o",
            help="Run directory for "
            "executions.jsonl and states.jsonl (JetBrains REval "
            "layout); rerun to resume.",
        ),
    ],
    mode: Annotated[
        str,
        typer.Option(
            help="frame-blind (REval's reference tracer: one "
            "state list across frames; alias: reval) or exact "
            "(per-frame, corrected)."
        ),
    ] = "exact",
    rows: Annotated[
        str, typer.Option(help="all (every input) or pairs (the inputs REval asks about).")
    ] = "all",
    fmt: Annotated[
        str,
        typer.Option(
            "--format",
            help="jetbrains (the REval layout) or cwm "
            "(also cwm.jsonl: each run in Code World Model's trace "
            "format; exact mode).",
        ),
    ] = "jetbrains",
    workers: WorkersOption = None,
    max_steps: MaxStepsOption = 200_000,
    wall_limit: WallLimitOption = DEFAULT_WALL_LIMIT,
    overwrite: Annotated[
        bool, typer.Option(help="Replace a different earlier run in --out instead of refusing.")
    ] = False,
    progress: ProgressOption = True,
) -> None:
    """Trace every input of an REval dataset and export the traces (resumable)."""
    from execlens.bench.reval import BENCHMARK, EXPORT_ROWS, execution_record, states_record
    from execlens.store import write_jsonl_stream
    from execlens.trace import TraceLimits, trace_engine, trace_job, trace_many

    mode = checked_mode(mode)
    if rows not in EXPORT_ROWS:
        usage_error(f"--rows must be one of {', '.join(EXPORT_ROWS)}, not {rows!r}")
    if fmt not in ("jetbrains", "cwm") or (fmt == "cwm" and mode != "exact"):
        usage_error(f"--format must be jetbrains or cwm (cwm needs --mode exact), not {fmt!r}")
    check_run_options(workers=workers, max_steps=max_steps, wall_limit=wall_limit)
    problems = _load(dataset)
    for problem in problems:
        if problem.skip_reason:
            typer.echo(f"skipped {problem.task_id}: {problem.skip_reason}", err=True)
    selected = [
        run
        for problem in problems
        for run in problem.runs
        if rows == "all" or run.index in {p.input_idx for p in problem.pairs}
    ]
    warn_program_environment(benchmark_requirements([BENCHMARK.name]))
    identity = {
        "verb": "trace",
        "data": _data_digest(problems),
        "mode": mode,
        "rows": rows,
        "max_steps": max_steps,
        "wall_limit": wall_limit,
        "program": program_identity(),
        **({"format": fmt} if fmt != "jetbrains" else {}),
    }
    limits = TraceLimits(max_steps=max_steps)
    chunks = [selected[i : i + SHARD_RUNS] for i in range(0, len(selected), SHARD_RUNS)]
    with open_run(out, identity, overwrite) as run_dir:
        engine = None

        def work(chunk: list[Any]) -> list[dict[str, Any]]:
            nonlocal engine
            if engine is None:  # started only when something is left to trace
                engine = trace_engine(workers=workers).__enter__()
            requests = []
            for item in chunk:
                if item.problem.skip_reason is None:
                    request = item.request(mode, limits)
                    base = trace_job(request).limits
                    assert base is not None  # a tracing job always carries its limits
                    requests.append(_with_engine_limits(request, base.with_(wall_time=wall_limit)))
            results = iter(trace_many(engine, requests))
            # One record per run holds both of its rows, so the two files can never
            # disagree on which runs are done.
            pairs = [(item, None if item.problem.skip_reason else next(results)) for item in chunk]
            return [
                {
                    "execution": execution_record(item, t),
                    "states": states_record(item, t),
                    **({"cwm": _cwm_record(item, t)} if fmt == "cwm" else {}),
                }
                for item, t in pairs
            ]

        try:
            executor = traced_in_shards(
                run_dir, "traces", chunks, work, progress=progress, label="tracing"
            )
        finally:
            if engine is not None:
                engine.__exit__(None, None, None)
        # The REval layout: each file streamed from the shards in run order.
        total = write_jsonl_stream(
            run_dir.file("executions.jsonl"),
            (r["execution"] for r in executor.records("traces")),
            sort_keys=False,
        )
        write_jsonl_stream(
            run_dir.file("states.jsonl"),
            (r["states"] for r in executor.records("traces")),
            sort_keys=False,
        )
        if fmt == "cwm":
            write_jsonl_stream(
                run_dir.file("cwm.jsonl"),
                (r["cwm"] for r in executor.records("traces")),
                sort_keys=False,
            )
        records = [r["execution"] for r in executor.records("traces")]
    statuses = Counter(r["status"] for r in records)
    typer.echo(
        f"{total} executions ({statuses['ok']} ok, {statuses['skipped']} skipped) "
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
