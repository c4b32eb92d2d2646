"""``execlens tasks build SOURCE --out FILE``: runtime-behaviour tasks with ground truth.

The run is resumable: program runs are traced in shards by the store's shard executor
(lock, manifest, completion markers, resume), and the tasks are derived from the stored
traces at the end, so a run killed at any point and rerun writes byte-identical tasks.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Annotated, Any

import typer

from execlens.cli._program_env import (
    benchmark_requirements,
    program_identity,
    warn_program_environment,
)
from execlens.cli._run import usage_error

tasks_app = typer.Typer(
    help="Runtime-behaviour tasks (coverage, path, state, output).", no_args_is_help=True
)

# Program runs per shard: small enough that a kill costs little, big enough that the
# engine's servers stay busy.
SHARD_RUNS = 32
DEFAULT_WALL_LIMIT = 30.0

# The tracing options ``trace`` and ``tasks build`` share (checked by check_run_options).
WorkersOption = Annotated[int | None, typer.Option(help="Fork servers, >= 1 (default: cores).")]
MaxStepsOption = Annotated[int, typer.Option(help="Cap on recorded steps per run (>= 1).")]
WallLimitOption = Annotated[
    float,
    typer.Option("--wall-limit", "--timeout", help="Wall-clock seconds per traced run (> 0)."),
]
ProgressOption = Annotated[bool, typer.Option(help="Show a progress bar.")]


def check_run_options(*, workers: int | None, max_steps: int, wall_limit: float) -> None:
    """Usage errors for the tracing options shared by ``trace`` and ``tasks build``."""
    if workers is not None and workers < 1:
        usage_error(f"--workers must be at least 1, not {workers} (omit it for one per core)")
    if max_steps < 1:
        usage_error(f"--max-steps must be at least 1, not {max_steps}")
    if not math.isfinite(wall_limit) or wall_limit <= 0:
        usage_error(f"--wall-limit must be a finite number of seconds > 0, not {wall_limit}")
    from execlens.engine import Limits

    try:
        Limits(wall_time=wall_limit)
    except ValueError as exc:
        usage_error(f"--wall-limit: {exc}")


def checked_mode(mode: str) -> str:
    """``--mode`` as the tracer names it (``reval`` → ``frame-blind``), or a usage error.

    The canonical name goes into the run identity, so ``--mode reval`` resumes a
    ``--mode frame-blind`` run and back.
    """
    from execlens.trace import MODE_ALIASES, MODES, canonical_mode

    if canonical_mode(mode) not in MODES:
        aliases = ", ".join(f"{alias} = {name}" for alias, name in MODE_ALIASES.items())
        usage_error(f"--mode must be one of {', '.join(MODES)} ({aliases}), not {mode!r}")
    return canonical_mode(mode)


def named_runs(runs: list[str]) -> str:
    """The first eight runs, comma-separated, and how many more there are."""
    return ", ".join(runs[:8]) + (f" and {len(runs) - 8} more" if len(runs) > 8 else "")


def open_run(path: Path, identity: dict[str, Any], overwrite: bool) -> Any:
    """``RunDir.open`` with every store refusal turned into a usage error."""
    from execlens.store import RunDir, StoreError

    try:
        return RunDir.open(path, identity, overwrite=overwrite)
    except StoreError as exc:
        usage_error(str(exc))


def traced_in_shards(
    run: Any,
    name: str,
    chunks: list[list[Any]],
    work: Callable[[list[Any]], list[dict[str, Any]]],
    *,
    progress: bool,
    label: str,
) -> Any:
    """Run ``work`` over every unfinished chunk through the store's executor (the one
    resume loop: a chunk whose shard ``name`` is finished is skipped); the executor."""
    from execlens._progress import StageProgress
    from execlens.store import InlineBackend, ShardExecutor, Step

    # Inline: a chunk's programs already run in parallel on the engine's servers.
    executor = ShardExecutor(
        run,
        [Step(name, fed=len(chunks), feed=chunks)],
        InlineBackend(lambda step, chunk, index, total: (work(chunk), {})),
    )
    with StageProgress(progress) as display:
        done = len(executor.done(name))
        update = display.stage(label, len(chunks), done)

        def advanced(step: str, index: int, records: int, stats: dict[str, Any]) -> None:
            nonlocal done
            done += 1
            update(done)

        executor.run(on_shard=advanced)
    return executor


def _output_paths(out: Path, parquet: bool) -> tuple[Path, Path, bool]:
    """(tasks file, run directory, parquet) for ``--out`` (see ``build``'s help)."""
    if out.is_dir() or (not out.exists() and out.suffix == ""):
        name = "tasks.parquet" if parquet else "tasks.jsonl"
        return out / name, out, parquet
    if out.suffix == ".parquet":
        return out, out.with_name(f".{out.name}.run"), True
    if out.suffix == ".jsonl":
        if parquet:
            usage_error(
                f"--parquet writes Parquet, but --out {out} ends in .jsonl; use "
                f"--out {out.with_suffix('.parquet')}"
            )
        return out, out.with_name(f".{out.name}.run"), False
    usage_error(f"--out {out} must end in .jsonl or .parquet, or name a directory")


def _failure_lines(failed: dict[str, list[str]], truncated: list[tuple[str, str]]) -> list[str]:
    lines = []
    for status, runs in sorted(failed.items()):
        lines.append(f"{len(runs)} runs {status} (no tasks): {named_runs(runs)}")
    by_cap: dict[str, list[str]] = {}
    for run, cap in truncated:
        by_cap.setdefault(cap, []).append(run)
    for cap, runs in sorted(by_cap.items()):
        lines.append(
            f"{len(runs)} runs hit the {cap} limit (recording cut short): {named_runs(runs)}"
        )
    return lines


@tasks_app.command("build")
def build(
    source: Annotated[
        Path,
        typer.Argument(
            help="REval directory or DREval_data.jsonl, cruxeval.jsonl, or CodeI/O "
            "rawcode_1k_parsed.jsonl."
        ),
    ],
    out: Annotated[
        Path,
        typer.Option(
            "--out",
            "-o",
            help="Tasks file (.jsonl, or .parquet: Parquet), or a directory (existing, or a "
            "name without suffix) to write tasks.jsonl / tasks.parquet into.  Resume "
            "state lives in the directory, or beside a file in .<name>.run/.",
        ),
    ],
    mode: Annotated[
        str,
        typer.Option(
            help="Tracer mode for the ground truth: exact or "
            "frame-blind (REval's reference tracer; alias: "
            "reval)."
        ),
    ] = "exact",
    selection: Annotated[
        str,
        typer.Option(
            help="reval (REval's sites), given (the dataset's own questions) or balanced."
        ),
    ] = "reval",
    kinds: Annotated[
        str, typer.Option(help="Comma-separated task kinds.")
    ] = "coverage,path,state,output",
    limit: Annotated[
        int | None, typer.Option(help="Only the first N program runs (N >= 1).")
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed of the balanced sampling.")] = 0,
    parquet: Annotated[
        bool, typer.Option(help="Write Parquet (pyarrow); implied by an --out ending in .parquet.")
    ] = False,
    workers: WorkersOption = None,
    max_steps: MaxStepsOption = 200_000,
    wall_limit: WallLimitOption = DEFAULT_WALL_LIMIT,
    overwrite: Annotated[
        bool, typer.Option(help="Replace a different earlier run at --out instead of refusing.")
    ] = False,
    progress: ProgressOption = True,
) -> None:
    """Trace every program run of SOURCE and write its tasks (resumable after a kill)."""
    from execlens.bench import load_programs, records_digest
    from execlens.tasks import (
        SELECTIONS,
        SourceError,
        build_kind_names,
        build_tasks,
        failed_runs,
        source_warnings,
        trace_from_record,
        trace_programs,
        trace_record,
        write_tasks,
    )
    from execlens.trace import TraceLimits, trace_engine

    wanted = tuple(k.strip() for k in kinds.split(",") if k.strip())
    mode = checked_mode(mode)
    if selection not in SELECTIONS:
        usage_error(f"--selection must be one of {', '.join(SELECTIONS)}, not {selection!r}")
    known = build_kind_names()  # the registered kinds (execlens.tasks.kinds), plug-ins too
    if not wanted or set(wanted) - set(known):
        usage_error(
            f"--kinds must be a comma-separated list among {', '.join(known)}, not {kinds!r}"
        )
    if limit is not None and limit < 1:
        usage_error(f"--limit must be at least 1, not {limit} (omit it for every run)")
    check_run_options(workers=workers, max_steps=max_steps, wall_limit=wall_limit)
    dest, run_path, parquet = _output_paths(out, parquet)
    try:
        programs = load_programs(source)
    except SourceError as exc:
        usage_error(str(exc))
    if limit is not None:
        programs = programs[:limit]
    for warning in source_warnings(programs):
        typer.echo(f"warning: {warning}", err=True)
    for reason in sorted({p.skip_reason for p in programs if p.skip_reason}):
        skipped = sorted({p.problem_id for p in programs if p.skip_reason == reason})
        typer.echo(f"skipped {', '.join(skipped)}: {reason}", err=True)

    warn_program_environment(benchmark_requirements(["runtime"]))
    identity = {
        "verb": "tasks build",
        # The loaded runs, not one file: REval's questions live in a second file.
        "data": records_digest(programs),
        "runs": len(programs),
        "mode": mode,
        "max_steps": max_steps,
        "wall_limit": wall_limit,
        "program": program_identity(),
    }
    limits = TraceLimits(max_steps=max_steps)
    chunks = [programs[i : i + SHARD_RUNS] for i in range(0, len(programs), SHARD_RUNS)]
    with open_run(run_path, identity, overwrite) as run:
        engine = None
        try:

            def work(chunk: list[Any]) -> list[dict[str, Any]]:
                nonlocal engine
                if engine is None:  # started only when something is left to trace
                    engine = trace_engine(workers=workers).__enter__()
                traced = iter(
                    trace_programs(chunk, engine, mode=mode, limits=limits, wall_time=wall_limit)
                )
                return [
                    {
                        "run": f"{p.problem_id}#{p.input_index}",
                        "trace": None if p.skip_reason else trace_record(next(traced)),
                    }
                    for p in chunk
                ]

            executor = traced_in_shards(
                run, "traces", chunks, work, progress=progress, label="tracing"
            )
        finally:
            if engine is not None:
                engine.__exit__(None, None, None)
        records = list(executor.records("traces"))
        traces = [
            None if r["trace"] is None else trace_from_record(r["trace"], program)
            for r, program in zip(records, programs)
        ]
        tasks = build_tasks(
            programs, traces=traces, mode=mode, selection=selection, kinds=wanted, seed=seed
        )
        if dest.parent == run.path:
            run.file(dest.name)  # store-managed: --overwrite clears it with the run
        written = write_tasks(tasks, dest, parquet=parquet)
    by_kind = Counter(t.kind for t in tasks)
    runnable: Sequence[Any] = [p for p in programs if p.skip_reason is None]
    truncated = [
        (f"{p.problem_id}#{p.input_index}", t.truncated)
        for p, t in zip(programs, traces)
        if t is not None and t.truncated
    ]
    typer.echo(
        f"{written} tasks ({', '.join(f'{k} {v}' for k, v in sorted(by_kind.items()))}"
        f") from {len(runnable)} runs written to {dest}",
        err=True,
    )
    for line in _failure_lines(failed_runs(programs, traces), truncated):
        typer.echo(line, err=True)


def register(app: typer.Typer) -> None:
    """Add the ``tasks`` verb group."""
    app.add_typer(tasks_app, name="tasks")
