"""``execlens demo``: the main job on embedded defaults.

1. the sandbox: a handful of hostile programs, one of each outcome status, and the
   isolation layers active on this machine;
2. the evaluation: the embedded local model (SmolLM2-135M, served on 127.0.0.1) on
   execlens's own example programs, CRUXEval-style, scored in official and strict mode,
   ending with the report's path.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from execlens.engine import Engine, Job, Limits

_QUICK = Limits(wall_time=1.0, memory_mb=128, output_bytes=2000)

ENGINE_SHOWCASE: list[tuple[str, Job]] = [
    ("a pure function", Job("def f(xs):\n    return sorted(set(xs))[::-1]\n",
                            call="f([3, 1, 3, 2])")),
    ("a program that raises", Job("def f(d):\n    return d['missing']\n", call="f({})")),
    ("an infinite loop", Job("while True:\n    pass\n", limits=_QUICK)),
    ("a memory bomb", Job("x = bytearray(8 * 1024 ** 3)\n", limits=_QUICK)),
    ("an output flood", Job("while True:\n    print('flood')\n", limits=_QUICK)),
    ("a segfault", Job("import ctypes\nctypes.string_at(0)\n")),
    ("sys.exit(0) pretending success", Job("import sys\nsys.exit(0)\n")),
    ("reading host secrets", Job("import os\ndef f():\n    return open('/root/.bashrc').read()\n",
                                 call="f()")),
    ("phoning home", Job("import socket\nsocket.create_connection(('127.0.0.1', 22), 1)\n")),
    ("writing outside the scratch dir", Job("open('/tmp/pwned', 'w').write('x')\n")),
]


def engine_demo(console: Console) -> None:
    """Run the showcase programs and print outcomes and isolation layers."""
    with Engine(workers=2) as engine:
        outcomes = list(engine.map(job for _, job in ENGINE_SHOWCASE))
        report = engine.isolation_report()
    table = Table(title="execlens engine: one sandboxed child per program")
    table.add_column("program")
    table.add_column("status", style="bold")
    table.add_column("value / reason")
    for (label, _), outcome in zip(ENGINE_SHOWCASE, outcomes):
        detail = repr(outcome.decoded()) if outcome.ok else (
            f"{outcome.exception.type}: {outcome.exception.message}"
            if outcome.exception else outcome.message)
        colour = "green" if outcome.ok else "yellow"
        table.add_row(label, f"[{colour}]{outcome.status.value}[/{colour}]", detail[:70])
    console.print(table)
    layers = Table(title="isolation layers (execlens doctor)")
    layers.add_column("layer")
    layers.add_column("active")
    layers.add_column("detail")
    for layer in report.layers:
        layers.add_row(layer.name, "yes" if layer.active else "[red]no[/red]", layer.detail)
    console.print(layers)


def demo(
    out: Annotated[Path, typer.Option(help="Where the demo's runs and report go.")] = Path("runs/demo"),
    engine_only: Annotated[bool, typer.Option("--engine-only", help="Only the sandbox demo.")] = False,
) -> None:
    """Run the main job on embedded defaults (no network, no model hub needed)."""
    from execlens.bench._demo import run_demo
    from execlens.bench._report import write_report
    from execlens.cli._eval import print_summary

    console = Console()
    engine_demo(console)
    if engine_only:
        return
    console.rule("evaluating the embedded local model on execlens's example programs")
    with Engine(workers=2) as engine:
        results = run_demo(out, engine=engine,
                           on_result=lambda name, result: print_summary(result, console))
    report = write_report([r.out_dir for r in results], out / "report.html")
    console.rule()
    console.print(f"demo report: [bold]{report.resolve()}[/bold]")


def register(app: typer.Typer) -> None:
    """Add the ``demo`` verb."""
    app.command("demo")(demo)
