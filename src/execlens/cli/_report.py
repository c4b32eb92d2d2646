"""``execlens report RUN_DIR...``: one self-contained HTML report comparing runs."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console

from execlens.bench._report import write_report


def report(
    run_dirs: Annotated[list[Path], typer.Argument(help="Run directories (each with results.json).")],
    out: Annotated[Optional[Path], typer.Option(help="Where to write the HTML report.")] = None,
) -> None:
    """Render (or re-render) the HTML report for one or more runs."""
    for path in run_dirs:
        if not (path / "results.json").is_file():
            raise typer.BadParameter(f"{path} has no results.json: not a run directory")
    target = out or (run_dirs[0] / "report.html" if len(run_dirs) == 1
                     else Path("execlens-report.html"))
    written = write_report(run_dirs, target)
    Console().print(f"report: [bold]{written.resolve()}[/bold]")


def register(app: typer.Typer) -> None:
    """Add the ``report`` verb."""
    app.command("report")(report)
