"""``execlens report RUN_DIR...``: one self-contained HTML report comparing runs."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from execlens.cli._failures import fail


def report(
    run_dirs: Annotated[
        list[Path], typer.Argument(help="Run directories (each with results.json).")
    ],
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Where to write the HTML report.")
    ] = None,
) -> None:
    """Render (or re-render) the HTML report for one or more runs (any benchmark)."""
    from execlens.bench import ReportError, load_run, write_report

    try:
        for path in run_dirs:
            load_run(path)  # every directory checked before anything is written
    except ReportError as exc:
        fail(str(exc))
    target = out or (
        run_dirs[0] / "report.html" if len(run_dirs) == 1 else Path("execlens-report.html")
    )
    if target.is_dir():
        fail(f"--out {target} is a directory; name the HTML file to write")
    for parent in target.parents:  # a file where a folder of --out must be
        if parent.exists():
            if not parent.is_dir():
                fail(f"--out {target}: {parent} is a file, not a folder; name another path")
            break
    written = write_report(run_dirs, target)
    Console().print(f"report: [bold]{written.resolve()}[/bold]")


def register(app: typer.Typer) -> None:
    """Add the ``report`` verb."""
    app.command("report")(report)
