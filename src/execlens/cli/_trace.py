"""``execlens trace DATASET --mode reval|exact --out DIR``: trace every input of REval."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console


def trace(
    dataset: Annotated[Path, typer.Argument(
        help="REval data: a directory holding DREval_data.jsonl, or that file.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Directory for executions.jsonl "
                                      "and states.jsonl (JetBrains REval layout).")],
    mode: Annotated[str, typer.Option(help="reval (the reference tracer's behaviour) or "
                                      "exact (per-frame, corrected).")] = "exact",
    workers: Annotated[Optional[int], typer.Option(help="Fork servers (default: cores).")] = None,
    max_steps: Annotated[int, typer.Option(help="Cap on recorded steps per run.")] = 200_000,
    progress: Annotated[bool, typer.Option(help="Show a progress bar.")] = True,
) -> None:
    """Trace every input of an REval dataset and export the traces."""
    from execlens.trace import MODES, TraceLimits, export_reval, load_reval, trace_engine, trace_reval

    console = Console(stderr=True)
    if mode not in MODES:
        raise typer.BadParameter(f"mode must be one of {', '.join(MODES)}", param_hint="--mode")
    try:
        problems = load_reval(dataset)
    except (FileNotFoundError, ValueError) as exc:
        console.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from exc
    for problem in problems:
        if problem.skip_reason:
            console.print(f"[yellow]skipped[/yellow] {problem.task_id}: {problem.skip_reason}")
    with trace_engine(workers=workers) as engine:
        counts = export_reval(trace_reval(engine, problems, mode,
                                          limits=TraceLimits(max_steps=max_steps),
                                          progress=progress), out)
    console.print(f"{counts['executions']} executions ({counts['ok']} ok, "
                  f"{counts['skipped']} skipped) written to {out}/executions.jsonl and "
                  f"{out}/states.jsonl ({mode} mode)")


def register(app: typer.Typer) -> None:
    """Add the ``trace`` verb."""
    app.command("trace")(trace)
