"""``execlens tasks build SOURCE --out FILE``: runtime-behaviour tasks with ground truth.

The run is resumable: program runs are traced in shards by the store's shard executor
(lock, manifest, completion markers, resume), and the tasks are derived from the stored
traces at the end, so a run killed at any point and rerun writes byte-identical tasks.
"""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from execlens.cli._failures import run_failures
from execlens.cli._program_env import benchmark_requirements, warn_program_environment
from execlens.cli._run import usage_error

if TYPE_CHECKING:
    from execlens.bench import TraceSettings

tasks_app = typer.Typer(
    help="Runtime-behaviour tasks (coverage, path, state, output).", no_args_is_help=True
)

DEFAULT_WALL_LIMIT = 30.0

# The tracing options ``trace`` and ``tasks build`` share (checked by trace_settings).
WorkersOption = Annotated[int | None, typer.Option(help="Fork servers, >= 1 (default: cores).")]
MaxStepsOption = Annotated[int, typer.Option(help="Cap on recorded steps per run (>= 1).")]
WallLimitOption = Annotated[
    float,
    typer.Option("--wall-limit", "--timeout", help="Wall-clock seconds per traced run (> 0)."),
]
ProgressOption = Annotated[bool, typer.Option(help="Show a progress bar.")]


def trace_settings(
    mode: str,
    *,
    workers: int | None,
    max_steps: int,
    wall_limit: float,
    overwrite: bool,
    progress: bool,
) -> TraceSettings:
    """The tracing options shared by ``trace`` and ``tasks build`` (``mode`` already
    checked), as one :class:`~execlens.bench.TraceSettings`; usage errors for bad ones."""
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
    from execlens.bench import TraceSettings

    return TraceSettings(mode, max_steps, wall_limit, workers, overwrite, progress)


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


# ``build``'s own options, one alias each.
_Source = Annotated[
    Path,
    typer.Argument(
        help="REval directory or DREval_data.jsonl, cruxeval.jsonl, or CodeI/O "
        "rawcode_1k_parsed.jsonl."
    ),
]
_Out = Annotated[
    Path,
    typer.Option(
        "--out",
        "-o",
        help="Tasks file (.jsonl, or .parquet: Parquet), or a directory (existing, or a "
        "name without suffix) to write tasks.jsonl / tasks.parquet into.  Resume "
        "state lives in the directory, or beside a file in .<name>.run/.",
    ),
]
_Mode = Annotated[
    str,
    typer.Option(
        help="Tracer mode for the ground truth: exact or "
        "frame-blind (REval's reference tracer; alias: "
        "reval)."
    ),
]
_Selection = Annotated[
    str,
    typer.Option(help="reval (REval's sites), given (the dataset's own questions) or balanced."),
]
_Kinds = Annotated[str, typer.Option(help="Comma-separated task kinds.")]
_Limit = Annotated[int | None, typer.Option(help="Only the first N program runs (N >= 1).")]
_Seed = Annotated[int, typer.Option(help="Seed of the balanced sampling.")]
_Parquet = Annotated[
    bool, typer.Option(help="Write Parquet (pyarrow); implied by an --out ending in .parquet.")
]
_Overwrite = Annotated[
    bool, typer.Option(help="Replace a different earlier run at --out instead of refusing.")
]


@tasks_app.command("build")
def build(
    source: _Source,
    out: _Out,
    mode: _Mode = "exact",
    selection: _Selection = "reval",
    kinds: _Kinds = "coverage,path,state,output",
    limit: _Limit = None,
    seed: _Seed = 0,
    parquet: _Parquet = False,
    workers: WorkersOption = None,
    max_steps: MaxStepsOption = 200_000,
    wall_limit: WallLimitOption = DEFAULT_WALL_LIMIT,
    overwrite: _Overwrite = False,
    progress: ProgressOption = True,
) -> None:
    """Trace every program run of SOURCE and write its tasks (resumable after a kill)."""
    from execlens.bench import TasksRun

    mode = checked_mode(mode)
    wanted = _checked_kinds(kinds, selection)
    if limit is not None and limit < 1:
        usage_error(f"--limit must be at least 1, not {limit} (omit it for every run)")
    settings = trace_settings(
        mode,
        workers=workers,
        max_steps=max_steps,
        wall_limit=wall_limit,
        overwrite=overwrite,
        progress=progress,
    )
    dest, run_path, parquet = _output_paths(out, parquet)
    programs = _programs(source, limit)
    warn_program_environment(benchmark_requirements(["runtime"]))
    run = TasksRun(
        programs,
        dest,
        run_path,
        settings,
        parquet=parquet,
        selection=selection,
        kinds=wanted,
        seed=seed,
    )
    with run_failures():
        built = run.execute()
    _print_built(built)


def _checked_kinds(kinds: str, selection: str) -> tuple[str, ...]:
    """``--kinds`` as a tuple, after checking it and ``--selection``."""
    from execlens.tasks import SELECTIONS, build_kind_names

    wanted = tuple(k.strip() for k in kinds.split(",") if k.strip())
    if selection not in SELECTIONS:
        usage_error(f"--selection must be one of {', '.join(SELECTIONS)}, not {selection!r}")
    known = build_kind_names()  # the registered kinds (execlens.tasks.kinds), plug-ins too
    if not wanted or set(wanted) - set(known):
        usage_error(
            f"--kinds must be a comma-separated list among {', '.join(known)}, not {kinds!r}"
        )
    return wanted


def _programs(source: Path, limit: int | None) -> list[Any]:
    """The program runs of ``source`` (the first ``limit``), with its warnings and the
    runs it skips said on stderr; a usage error for a source that cannot be read."""
    from execlens.bench import load_programs
    from execlens.tasks import SourceError, source_warnings

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
    return programs


def _print_built(built: Any) -> None:
    """The summary on stderr: tasks per kind, then the runs that failed or were cut."""
    from execlens.tasks import failed_runs

    by_kind = Counter(t.kind for t in built.tasks)
    runnable = [p for p in built.programs if p.skip_reason is None]
    typer.echo(
        f"{built.written} tasks ({', '.join(f'{k} {v}' for k, v in sorted(by_kind.items()))}"
        f") from {len(runnable)} runs written to {built.dest}",
        err=True,
    )
    for line in _failure_lines(failed_runs(built.programs, built.traces), built.truncated()):
        typer.echo(line, err=True)


def register(app: typer.Typer) -> None:
    """Add the ``tasks`` verb group."""
    app.add_typer(tasks_app, name="tasks")
