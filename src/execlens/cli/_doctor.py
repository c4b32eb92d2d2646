"""``execlens doctor``: which isolation layers are active here, and why not; and the
interpreter sandboxed programs run under, with its key packages."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from execlens.cli._program_env import (
    benchmark_requirements,
    program_source,
    warn_program_environment,
)
from execlens.cli._run import (
    ISOLATION_HELP,
    check_isolation,
    check_program_python,
    engine_start_failures,
)
from execlens.engine import Engine, Job, Status

KEY_PACKAGES = ("numpy", "pandas")


def _print_program_environment(console: Console, program: dict[str, Any]) -> None:
    packages = ", ".join(
        f"{name} {version or 'not installed'}" for name, version in program["packages"].items()
    )
    # soft_wrap: paths stay whole on one line, for people and for grep alike.
    console.print(
        f"program interpreter: {program['executable']} (from {program['source']}; "
        f"Python {program['version']}, prefix {program['prefix']})",
        soft_wrap=True,
    )
    console.print(f"program packages: {packages}", soft_wrap=True)


def doctor(
    isolation: Annotated[str | None, typer.Option(help=ISOLATION_HELP)] = None,
    program_python: Annotated[
        Path | None,
        typer.Option(
            "--program-python",
            help="Interpreter programs run under (default: $EXECLENS_PROGRAM_PYTHON, else the "
            "one make install recorded, else this interpreter).",
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """Start one execution server and report each isolation layer on this machine."""
    check_isolation(isolation)
    python = check_program_python(program_python)
    with (
        engine_start_failures(isolation),
        Engine(workers=1, isolation=isolation, python=python) as engine,
    ):
        report = engine.isolation_report()
        probe = engine.run(Job("def f(x):\n    return x + 1\n", call="f(41)"))
        preload_errors = engine.preload_errors
        program = engine.program_environment(KEY_PACKAGES)
    healthy = probe.status is Status.OK and probe.decoded() == 42
    program["source"] = program_source(python)
    warn_program_environment(benchmark_requirements(), python)
    if as_json:
        typer.echo(
            json.dumps(
                {
                    **report.to_dict(),
                    "self_test": healthy,
                    "preload_errors": preload_errors,
                    "program": program,
                }
            )
        )
        raise typer.Exit(0 if healthy else 1)
    console = Console()
    table = Table(title="execlens sandbox layers")
    table.add_column("layer", style="bold")
    table.add_column("active")
    table.add_column("via")
    table.add_column("detail")
    for layer in report.layers:
        mark = "[green]yes[/green]" if layer.active else "[red]no[/red]"
        table.add_row(layer.name, mark, layer.via, layer.detail)
    console.print(table)
    console.print(
        f"isolation {report.mode} (namespaces via {report.method}); Python {report.python}, "
        f"kernel {report.kernel}, sandbox uid {report.uid} (host uid {report.host_uid})"
    )
    if report.visible:
        # The filesystem layer's view: each path bound into the minimal root (["/"] when
        # the host's whole filesystem shows, read-only).
        console.print(
            f"visible in the sandbox ({len(report.visible)} paths, read-only "
            f"except scratch): {' '.join(report.visible)}",
            soft_wrap=True,
        )
    _print_program_environment(console, program)
    for module, error in preload_errors.items():
        console.print(f"[yellow]preload {module} failed:[/yellow] {error}")
    console.print(
        "self-test: "
        + ("[green]ok[/green]" if healthy else f"[red]{probe.status.value}: {probe.message}[/red]")
    )
    raise typer.Exit(0 if healthy else 1)


def register(app: typer.Typer) -> None:
    """Add the ``doctor`` verb."""
    app.command("doctor")(doctor)
