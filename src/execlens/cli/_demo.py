"""``execlens demo``: the main job on embedded defaults.

1. the sandbox: a handful of hostile programs, one of each outcome status, and the
   isolation layers active on this machine;
2. published generations re-scored: every benchmark that ships its official files (the
   registry says which: CRUXEval's Code Llama 7B generations) scored in official mode,
   reproducing the published pass@k, with strict mode beside it -- in seconds;
3. a plumbing check of a tiny model: the embedded SmolLM2-135M (served on 127.0.0.1) on
   execlens's own example programs through every benchmark's demo runs;
4. a short CodeI/O++ synthesis (a handful of functions through collect, prompts, predict,
   verify, revise and assemble), whose dataset card the report links; ending with the
   report's path.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from execlens.engine import Engine, Job, Limits

_QUICK = Limits(wall_time=1.0, memory_mb=128, output_bytes=2000)

ENGINE_SHOWCASE: list[tuple[str, Job]] = [
    (
        "a pure function",
        Job("def f(xs):\n    return sorted(set(xs))[::-1]\n", call="f([3, 1, 3, 2])"),
    ),
    ("a program that raises", Job("def f(d):\n    return d['missing']\n", call="f({})")),
    ("an infinite loop", Job("while True:\n    pass\n", limits=_QUICK)),
    ("a memory bomb", Job("x = bytearray(8 * 1024 ** 3)\n", limits=_QUICK)),
    ("an output flood", Job("while True:\n    print('flood')\n", limits=_QUICK)),
    ("a segfault", Job("import ctypes\nctypes.string_at(0)\n")),
    ("sys.exit(0) pretending success", Job("import sys\nsys.exit(0)\n")),
    (
        "reading host secrets",
        Job("import os\ndef f():\n    return open('/root/.bashrc').read()\n", call="f()"),
    ),
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
        detail = (
            repr(outcome.decoded())
            if outcome.ok
            else (
                f"{outcome.exception.type}: {outcome.exception.message}"
                if outcome.exception
                else outcome.message
            )
        )
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


def shipped_table(results: list[tuple[Any, Any]]) -> Table:
    """Official and strict pass@k beside the published figures, one row per file."""
    table = Table(
        title="published generations re-scored: official reproduces the paper, strict beside it"
    )
    for column in ("run", "mode", "pass@1", "pass@5", "published pass@1", "published pass@5"):
        table.add_column(column, justify="left" if column in ("run", "mode") else "right")
    for shipped, result in results:
        reference = result.results.get("reference_numbers") or {}
        for mode in ("official", "strict"):
            values = result.results["modes"].get(mode, {})
            published = [
                f"{reference[k]:.2f}" if mode == "official" and k in reference else ""
                for k in ("pass@1", "pass@5")
            ]
            table.add_row(
                shipped.description if mode == "official" else "",
                mode,
                *(f"{values[k]:.2f}" if k in values else "—" for k in ("pass@1", "pass@5")),
                *published,
            )
    return table


def demo(
    out: Annotated[
        Path, typer.Option("--out", "-o", help="Where the demo's runs and report go.")
    ] = Path("runs/demo"),
    engine_only: Annotated[
        bool, typer.Option("--engine-only", help="Only the sandbox demo.")
    ] = False,
    no_model: Annotated[
        bool, typer.Option("--no-model", help="Skip the embedded-model plumbing check.")
    ] = False,
) -> None:
    """Run the main job on embedded defaults (no network, no model hub needed)."""
    from execlens.bench import EvalError, EvalResult, run_demo, run_shipped, write_report
    from execlens.cli._eval import print_summary
    from execlens.cli._failures import fail, run_failures

    if out.exists() and not out.is_dir():
        fail(f"--out {out} is a file; name a directory for the demo's runs")
    console = Console()
    engine_demo(console)
    if engine_only:
        return
    from execlens.cli._program_env import benchmark_requirements, warn_program_environment
    from execlens.synth import PROGRAM_REQUIREMENTS

    # Every benchmark's demo runs plus the synthesis step compute ground truth.
    warn_program_environment({**benchmark_requirements(), "synth": PROGRAM_REQUIREMENTS})
    console.rule("published generations, re-scored in seconds")
    started = time.perf_counter()
    done: list[tuple[Any, Any]] = []
    with run_failures():
        shipped = run_shipped(
            out / "published", on_result=lambda run, result: done.append((run, result))
        )
    console.print(shipped_table(done))
    console.print(
        f"{sum(r.results['samples'] for r in shipped)} samples, "
        f"{sum(r.results['generations'] for r in shipped)} generations scored in "
        f"{time.perf_counter() - started:.1f} s"
    )
    runs = [r.out_dir for r in shipped]
    problem = None
    if not no_model:
        console.rule(
            "plumbing check of a tiny 135M model (the embedded SmolLM2-135M on "
            "execlens's example programs: low scores are expected)"
        )
        finished: list[EvalResult] = []

        def on_result(name: str, result: EvalResult) -> None:
            finished.append(result)
            print_summary(result, console)

        try:
            with Engine(workers=2) as engine:
                run_demo(out / "embedded", engine=engine, on_result=on_result)
        except EvalError as exc:
            problem = f"the plumbing check stopped: {exc}"
        runs += [r.out_dir for r in finished]
    links: list[tuple[str, Path]] = []
    if not no_model and problem is None:
        console.rule("CodeI/O++ synthesis of a few functions (verified by execution)")
        from execlens.synth import run_demo_synthesis

        try:
            card = run_demo_synthesis(out / "synth", console=console)
        except Exception as exc:  # noqa: BLE001 - the report of what ran comes first
            problem = f"the synthesis step stopped: {type(exc).__name__}: {exc}"
        else:
            console.print(f"synthesis dataset card: [bold]{card.resolve()}[/bold]")
            links.append(("CodeI/O++ synthesis: dataset card", card))
    report = write_report(runs, out / "report.html", links=links)
    console.rule()
    console.print(f"demo report: [bold]{report.resolve()}[/bold]")
    if problem is not None:  # the report of what did run is written first
        fail(problem, 1)


def register(app: typer.Typer) -> None:
    """Add the ``demo`` verb."""
    app.command("demo")(demo)
