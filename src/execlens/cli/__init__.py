"""The ``execlens`` command: one module per verb, each exposing ``register(app)``."""

from __future__ import annotations

import importlib
import sys
import warnings
from typing import TYPE_CHECKING, Annotated, Any

import typer
from typer.core import TyperGroup

if TYPE_CHECKING:
    # The context class Typer (>= 0.26, which vendors Click) builds and hands to
    # ``TyperGroup.invoke``; named for the override's signature only, never imported at
    # run time (Typer keeps the module private).
    from typer._click import Context

__all__ = ["app", "main"]


def _named_failure(error: BaseException) -> str | None:
    """The one-line message of a failure every verb may meet and none can prevent (a full
    disk, a read-only or unwritable output, a store refusal, a model setting the verb did
    not catch, a bad ``EXECLENS_*`` worker setting), or ``None`` for a real bug, which
    keeps its traceback."""
    from execlens.store import StoreError, output_error

    if isinstance(error, StoreError):
        return str(error)
    if isinstance(error, OSError):
        named = output_error(error.filename or "the output", error)
        return None if named is None else str(named)
    errors = sys.modules.get("execlens.engine._errors")  # a refused isolation mode
    if errors is not None and isinstance(error, errors.IsolationUnavailable):
        return str(error)
    judge = sys.modules.get("execlens.judge._workers")  # a bad EXECLENS_JUDGE_* and the like
    if judge is not None and isinstance(error, judge.EnvSettingError):
        return str(error)
    registry = sys.modules.get("execlens.bench._registry")  # a plug-in that failed to load
    if registry is not None and isinstance(error, registry.PluginError):
        return str(error)
    models = sys.modules.get("execlens.models")  # only a verb that imported it can raise it
    if models is not None and isinstance(error, models.ModelConfigError):
        return str(error)
    return None


_python_showwarning = warnings.showwarning


def _show_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: Any = None,
    line: str | None = None,
) -> None:
    """An engine's isolation warning as one ``warning:`` line; the rest as Python shows them."""
    engine = sys.modules.get("execlens.engine._modes")
    if engine is not None and issubclass(category, engine.IsolationWarning):
        typer.echo(f"warning: {message}", err=True)
        return
    _python_showwarning(message, category, filename, lineno, file, line)


class _Verbs(TyperGroup):
    """The root command: one place that turns the failures above into ``error:`` + exit 2."""

    def invoke(self, ctx: Context) -> Any:
        """Run the verb; a named failure ends it with one ``error:`` line, exit code 2."""
        warnings.showwarning = _show_warning
        try:
            return super().invoke(ctx)
        except (typer.Exit, typer.Abort, typer.TyperException):
            # Typer's own exits and usage errors (its ClickException is a TyperException)
            # keep their exit codes and messages.
            raise
        except Exception as error:
            message = _named_failure(error)
            if message is None:
                raise
            typer.echo(f"error: {' '.join(message.split())}", err=True)
            raise typer.Exit(2) from None


app = typer.Typer(
    name="execlens",
    cls=_Verbs,
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
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """Code-execution reasoning: run untrusted code safely, trace it, evaluate models."""
    from execlens.tasks.kinds import PluginError, load_plugins

    try:  # $EXECLENS_PLUGINS and the entry points, once, before any verb reads a registry
        load_plugins()
    except PluginError as error:
        typer.echo(f"error: {' '.join(str(error).split())}", err=True)
        raise typer.Exit(2) from None


# Verb modules, in help order.  A verb module defines ``register(app: typer.Typer)``.
_VERBS = (
    "run",
    "doctor",
    "demo",
    "trace",
    "tasks",
    "score",
    "eval",
    "report",
    "synth",
    "export",
    "train",
)

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
