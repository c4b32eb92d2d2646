"""``execlens doctor``: which isolation layers are active here, and why not."""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from execlens.engine import Engine, Job, Status


def doctor(
    isolation: Annotated[str, typer.Option(help="full | auto | none")] = "auto",
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """Start one execution server and report each isolation layer on this machine."""
    with Engine(workers=1, isolation=isolation) as engine:
        report = engine.isolation_report()
        probe = engine.run(Job("def f(x):\n    return x + 1\n", call="f(41)"))
        preload_errors = engine.preload_errors
    healthy = probe.status is Status.OK and probe.decoded() == 42
    if as_json:
        typer.echo(json.dumps({**report.to_dict(), "self_test": healthy,
                               "preload_errors": preload_errors}))
        raise typer.Exit(0 if healthy else 1)
    console = Console()
    table = Table(title="execlens sandbox layers")
    table.add_column("layer", style="bold")
    table.add_column("active")
    table.add_column("detail")
    for layer in report.layers:
        mark = "[green]yes[/green]" if layer.active else "[red]no[/red]"
        table.add_row(layer.name, mark, layer.detail)
    console.print(table)
    console.print(f"Python {report.python}, kernel {report.kernel}, sandbox uid {report.uid}")
    for module, error in preload_errors.items():
        console.print(f"[yellow]preload {module} failed:[/yellow] {error}")
    console.print("self-test: " + ("[green]ok[/green]" if healthy else
                                   f"[red]{probe.status.value}: {probe.message}[/red]"))
    raise typer.Exit(0 if healthy else 1)


def register(app: typer.Typer) -> None:
    """Add the ``doctor`` verb."""
    app.command("doctor")(doctor)
