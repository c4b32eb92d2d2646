"""The ``execlens`` command: one module per verb, each exposing ``register(app)``."""

from __future__ import annotations

import importlib
from typing import Annotated

import typer

__all__ = ["app", "main"]

app = typer.Typer(
    name="execlens",
    help="Code-execution reasoning: run untrusted code safely, trace it, evaluate models.",
    no_args_is_help=True,
    pretty_exceptions_show_locals=False,
    add_completion=False,
)



def _version(value: bool) -> None:
    if value:
        from importlib.metadata import PackageNotFoundError, version

        try:
            typer.echo(f"execlens {version('execlens')}")
        except PackageNotFoundError:  # running from a source tree that was never installed
            typer.echo("execlens (not installed)")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                          help="Print the version and exit.")] = False,
) -> None:
    """Code-execution reasoning: run untrusted code safely, trace it, evaluate models."""


# Verb modules, in help order.  A verb module defines ``register(app: typer.Typer)``.
_VERBS = ("run", "doctor", "demo", "trace", "tasks", "score", "eval", "report", "synth",
          "export", "train")

for _verb in _VERBS:
    try:
        _module = importlib.import_module(f"execlens.cli._{_verb}")
    except ModuleNotFoundError as _exc:  # a verb not built yet
        if _exc.name != f"execlens.cli._{_verb}":
            raise
        continue
    _module.register(app)


def main() -> None:
    """Console-script entry point."""
    app()
