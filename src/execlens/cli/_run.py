"""``execlens run FILE --call "f(1, 2)"``: run one program in the sandbox."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.table import Table

from execlens.engine import Engine, Job, Limits, Outcome


def _value_text(outcome: Outcome) -> str:
    if outcome.value is None:
        return "—"
    return repr(outcome.decoded())


def _print_outcome(outcome: Outcome, console: Console) -> None:
    table = Table(show_header=False, box=None, pad_edge=False)
    table.add_column(style="bold")
    table.add_column()
    colour = "green" if outcome.ok else "red"
    table.add_row("status", f"[{colour}]{outcome.status.value}[/{colour}]")
    table.add_row("value", _value_text(outcome))
    if outcome.exception is not None:
        table.add_row("exception", f"{outcome.exception.type}: {outcome.exception.message}")
        for line in outcome.exception.traceback:
            table.add_row("", line)
    if outcome.message and outcome.exception is None:
        table.add_row("message", outcome.message)
    table.add_row("duration", f"{outcome.duration * 1000:.2f} ms")
    if outcome.peak_memory_mb is not None:
        table.add_row("peak memory", f"{outcome.peak_memory_mb:.1f} MB")
    console.print(table)
    for name, text, truncated in (("stdout", outcome.stdout, outcome.stdout_truncated),
                                  ("stderr", outcome.stderr, outcome.stderr_truncated)):
        if text:
            note = " (truncated)" if truncated else ""
            console.rule(f"{name}{note}")
            console.print(text, markup=False, highlight=False, end="")


def run(
    file: Annotated[Path, typer.Argument(help="Python source file to run ('-' for stdin).")],
    call: Annotated[Optional[str], typer.Option(
        "--call", help='Source run after the module, e.g. "f(1, 2)"; its value is reported.')
    ] = None,
    timeout: Annotated[float, typer.Option(help="Wall-time limit in seconds.")] = 5.0,
    memory: Annotated[int, typer.Option(help="Memory limit in MB on top of the interpreter.")] = 512,
    output_limit: Annotated[int, typer.Option(help="stdout+stderr limit in characters.")] = 65536,
    stdin: Annotated[Optional[Path], typer.Option(help="File fed to the program's stdin.")] = None,
    isolation: Annotated[str, typer.Option(help="full | auto | none")] = "auto",
    hash_seed: Annotated[int, typer.Option(help="PYTHONHASHSEED of the run.")] = 0,
    as_json: Annotated[bool, typer.Option("--json", help="Print the outcome as one JSON object.")] = False,
) -> None:
    """Run a program (and optionally a call) in the sandbox and report its outcome."""
    source = sys.stdin.read() if str(file) == "-" else file.read_text(encoding="utf-8")
    limits = Limits(wall_time=timeout, memory_mb=memory, output_bytes=output_limit)
    job = Job(program=source, call=call, limits=limits,
              stdin=stdin.read_text(encoding="utf-8") if stdin else None)
    with Engine(workers=1, limits=limits, isolation=isolation, hash_seed=hash_seed) as engine:
        outcome = engine.run(job)
    if as_json:
        typer.echo(json.dumps(outcome.to_dict(), ensure_ascii=False))
    else:
        _print_outcome(outcome, Console())
    raise typer.Exit(0 if outcome.ok else 1)


def register(app: typer.Typer) -> None:
    """Add the ``run`` verb."""
    app.command("run")(run)
