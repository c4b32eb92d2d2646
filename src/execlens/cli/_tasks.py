"""``execlens tasks build SOURCE --out FILE``: runtime-behaviour tasks with ground truth."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console

tasks_app = typer.Typer(help="Runtime-behaviour tasks (coverage, path, state, output).",
                        no_args_is_help=True)


@tasks_app.command("build")
def build(
    source: Annotated[Path, typer.Argument(
        help="REval directory or DREval_data.jsonl, cruxeval.jsonl, or CodeI/O "
             "rawcode_1k_parsed.jsonl.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Output file (.jsonl, or .parquet "
                                      "with --parquet).")],
    mode: Annotated[str, typer.Option(help="Tracer mode for the ground truth: exact or "
                                      "reval.")] = "exact",
    selection: Annotated[str, typer.Option(help="reval (REval's sites), given (the "
                                           "dataset's own questions) or balanced.")] = "reval",
    kinds: Annotated[str, typer.Option(help="Comma-separated task kinds.")] =
        "coverage,path,state,output",
    limit: Annotated[Optional[int], typer.Option(help="Only the first N program runs.")] = None,
    seed: Annotated[int, typer.Option(help="Seed of the balanced sampling.")] = 0,
    parquet: Annotated[bool, typer.Option(help="Write Parquet (pyarrow).")] = False,
    workers: Annotated[Optional[int], typer.Option(help="Fork servers (default: cores).")] = None,
) -> None:
    """Trace every program run of SOURCE and write its tasks."""
    from execlens.tasks import KINDS, SELECTIONS, SourceError, build_tasks, load_programs, write_tasks
    from execlens.trace import MODES, trace_engine

    console = Console(stderr=True)
    wanted = tuple(k.strip() for k in kinds.split(",") if k.strip())
    if mode not in MODES:
        raise typer.BadParameter(f"mode must be one of {', '.join(MODES)}", param_hint="--mode")
    if selection not in SELECTIONS:
        raise typer.BadParameter(f"selection must be one of {', '.join(SELECTIONS)}",
                                 param_hint="--selection")
    if not wanted or set(wanted) - set(KINDS):
        raise typer.BadParameter(f"kinds must be among {', '.join(KINDS)}", param_hint="--kinds")
    try:
        programs = load_programs(source)
    except (SourceError, FileNotFoundError, ValueError) as exc:
        console.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from exc
    if limit is not None:
        programs = programs[:limit]
    for reason in sorted({p.skip_reason for p in programs if p.skip_reason}):
        skipped = sorted({p.problem_id for p in programs if p.skip_reason == reason})
        console.print(f"[yellow]skipped[/yellow] {', '.join(skipped)}: {reason}")
    with trace_engine(workers=workers) as engine:
        tasks = build_tasks(programs, engine=engine, mode=mode, selection=selection,
                            kinds=wanted, seed=seed, progress=True)
    count = write_tasks(tasks, out, parquet=parquet)
    by_kind = Counter(t.kind for t in tasks)
    console.print(f"{count} tasks ({', '.join(f'{k} {v}' for k, v in sorted(by_kind.items()))}) "
                  f"from {len(programs)} runs written to {out}")


def register(app: typer.Typer) -> None:
    """Add the ``tasks`` verb group."""
    app.add_typer(tasks_app, name="tasks")
