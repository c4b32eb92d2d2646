"""``execlens synth run CONFIG.yaml`` and ``execlens synth status OUT_DIR``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

synth_app = typer.Typer(
    help="CodeI/O and CodeI/O++ synthesis: verified training data from code.", no_args_is_help=True
)


def _fail(console: Console, message: str) -> None:
    console.print(f"error: {message}", markup=False, highlight=False, soft_wrap=True)
    raise typer.Exit(2)


@synth_app.command("run")
def run(
    config_path: Annotated[
        Path, typer.Argument(metavar="CONFIG.yaml", help="The run's YAML config.")
    ],
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Override the config's out.")
    ] = None,
    executor: Annotated[
        str | None, typer.Option(help="Override the executor: local or ray.")
    ] = None,
    overwrite: Annotated[
        bool, typer.Option(help="Clear a run directory holding a different run.")
    ] = False,
    quiet: Annotated[bool, typer.Option(help="No progress bars.")] = False,
) -> None:
    """Run (or resume) a synthesis pipeline."""
    from execlens.cli._program_env import warn_program_environment
    from execlens.store import StoreError
    from execlens.synth import (
        PROGRAM_REQUIREMENTS,
        ConfigError,
        ModelRequestsFailed,
        load_config,
        run_pipeline,
    )

    console = Console(stderr=True)
    try:
        config = load_config(config_path, out=str(out) if out else None, executor=executor)
        warn_program_environment({"synth": PROGRAM_REQUIREMENTS})
        status = run_pipeline(config, overwrite=overwrite, progress=not quiet, console=console)
    except (ConfigError, StoreError) as exc:
        _fail(console, str(exc))
        return
    except ModelRequestsFailed as exc:
        # Not the user's input: the server failed; a rerun asks exactly those again.
        console.print(f"error: {exc}", markup=False, highlight=False, soft_wrap=True)
        raise typer.Exit(1) from None
    rejections = status.get("rejections", {})
    if not status.get("kept", 1):
        # Finished and kept (a rerun redoes nothing), but the dataset is empty: not a success.
        named = ", ".join(f"{n} {reason}" for reason, n in rejections.items())
        _fail(
            console,
            f"every record was rejected ({named or 'none reached the end'}); the "
            f"dataset is empty -- {_cut_hint(rejections) or 'see'} `execlens synth status "
            f"{status['out']}` and each record's reject reason",
        )
    hint = _cut_hint(rejections)
    if hint:
        console.print(
            f"warning: {rejections[_CUT]} record(s) were rejected as {_CUT}: {hint}",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
    _print_status(status, console)
    card = Path(status["out"]) / "card.md"
    if card.is_file():
        console.print(f"dataset card: {card}")


_CUT = "truncated_in_reasoning"


def _cut_hint(rejections: dict[str, int]) -> str:
    """What to change when replies were cut off inside their reasoning, or ``""``."""
    if not rejections.get(_CUT):
        return ""
    return (
        "the model was still thinking when even the second ask's budget ran out; raise "
        "sampling.thinking_max_tokens (or serve the model with a longer context) -- see"
    )


@synth_app.command("status")
def status(
    out_dir: Annotated[Path, typer.Argument(metavar="OUT_DIR", help="A run directory.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Progress of a run: shards done per stage, records and rejections."""
    from execlens.store import StoreError
    from execlens.synth import synth_status

    console = Console(stderr=True)
    try:
        summary = synth_status(out_dir)
    except StoreError as exc:
        _fail(console, str(exc))
        return
    if as_json:
        print(json.dumps(summary, sort_keys=True))
        return
    _print_status(summary, Console())


def _print_status(summary: dict, console: Console) -> None:
    table = Table(title=f"synth run {summary['out']}")
    for column in ("stage", "shards", "records", "rejected"):
        table.add_column(column)
    for name, entry in summary["stages"].items():
        if "done" in entry:
            table.add_row(name, "done" if entry["done"] else "pending", "", "")
            continue
        planned = "?" if entry["shards"] is None else str(entry["shards"])
        table.add_row(
            name, f"{entry['shards_done']}/{planned}", str(entry["records"]), str(entry["rejected"])
        )
    console.print(table)


def register(app: typer.Typer) -> None:
    """Add the ``synth`` verb group."""
    app.add_typer(synth_app, name="synth")
