"""``execlens run FILE --call "f(1, 2)"``: run one program in the sandbox."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, NoReturn

import typer
from rich.console import Console
from rich.table import Table

from execlens.engine import (
    MAX_OUTPUT_BYTES,
    Engine,
    EngineError,
    IsolationUnavailable,
    Job,
    Limits,
    Outcome,
)


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
    for name, text, truncated in (
        ("stdout", outcome.stdout, outcome.stdout_truncated),
        ("stderr", outcome.stderr, outcome.stderr_truncated),
    ):
        if text:
            note = " (truncated)" if truncated else ""
            console.rule(f"{name}{note}")
            console.print(text, markup=False, highlight=False, end="")


_LIMIT_OPTIONS = {
    "wall_time": "--timeout",
    "memory_mb": "--memory",
    "output_bytes": "--output-limit",
}
_ISOLATION_MODES = ("full", "auto", "degraded", "none")
#: The ``--isolation`` help, shared by the verbs that take it.
ISOLATION_HELP = (
    "full | auto | degraded | none (default: $EXECLENS_ISOLATION, else auto). auto refuses "
    "to run without the filesystem and PID layers; degraded runs with what this machine "
    "offers and warns on every run."
)


def usage_error(message: str) -> NoReturn:
    """End the command as a user's mistake: one ``error:`` line on stderr, exit code 2."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(2)


def read_source_file(path: Path, what: str) -> str:
    """The UTF-8 text of ``path``, or a usage error naming the problem and the fix."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        usage_error(f"{what} {path} does not exist; give the path of an existing file")
    except IsADirectoryError:
        usage_error(f"{what} {path} is a directory; give the path of a file")
    except OSError as exc:
        usage_error(f"cannot read {what} {path}: {exc.strerror}; check its permissions")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        usage_error(
            f"{what} {path} is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset "
            f"{exc.start}); save it as UTF-8"
        )


def build_limits(timeout: float, memory: int, output_limit: int) -> Limits:
    """``Limits`` from the CLI's options, or a usage error naming the offending option."""
    try:
        return Limits(wall_time=timeout, memory_mb=memory, output_bytes=output_limit)
    except ValueError as exc:
        text = str(exc)
        for field_name, option in _LIMIT_OPTIONS.items():
            if text.startswith(field_name):
                text = option + text[len(field_name) :]
        usage_error(text)


def check_program_python(program_python: Path | None) -> str | None:
    """The ``--program-python`` path if it names an executable, else a usage error."""
    if program_python is None:
        return None
    if not program_python.exists():
        usage_error(
            f"--program-python {program_python} does not exist; give the path of a "
            "Python >= 3.11 interpreter (e.g. .venv-programs/bin/python)"
        )
    if program_python.is_dir() or not os.access(program_python, os.X_OK):
        usage_error(
            f"--program-python {program_python} is not an executable file; give the "
            "path of a Python >= 3.11 interpreter (e.g. .venv-programs/bin/python)"
        )
    return str(program_python)


def check_isolation(isolation: str | None) -> None:
    """A usage error unless ``isolation`` is one of the engine's modes (or unset)."""
    if isolation is not None and isolation not in _ISOLATION_MODES:
        usage_error(f"--isolation must be one of {', '.join(_ISOLATION_MODES)}, not {isolation!r}")


@contextmanager
def engine_start_failures(isolation: str | None) -> Iterator[None]:
    """Within the block, an engine that cannot start (or whose server failed) ends the
    command with a usage error naming the fix: the missing isolation layer and its
    opt-in, or the interpreter programs run under."""
    try:
        yield
    except IsolationUnavailable as exc:  # names what is missing and the opt-in
        usage_error(str(exc))
    except EngineError as exc:
        fix = (
            "use --isolation auto"
            if isolation == "full"
            else "check --program-python / $EXECLENS_PROGRAM_PYTHON"
        )
        usage_error(f"{exc}; {fix}")


def check_mount_ro(paths: list[str] | list[Path] | None) -> list[str]:
    """The ``--mount-ro`` paths if each exists, else a usage error (the engine refuses the
    paths its own view is built on, e.g. ``/proc``, with a ValueError :func:`run` reports).

    An empty path is refused: ``Path("")`` is the working directory, and ``--mount-ro ""``
    (an unset variable in a script) would show it -- the project, ``.git`` included -- to
    the sandboxed program.
    """
    checked = []
    for given in paths or []:
        if not str(given).strip():
            usage_error(
                "--mount-ro got an empty path; give an existing directory or file to show "
                "read-only in the sandbox (--mount-ro . for the working directory)"
            )
        path = Path(given)
        if not path.exists():
            usage_error(
                f"--mount-ro {path} does not exist; give an existing directory or file "
                "to show read-only in the sandbox"
            )
        checked.append(str(path))
    return checked


def run(
    file: Annotated[Path, typer.Argument(help="Python source file to run ('-' for stdin).")],
    call: Annotated[
        str | None,
        typer.Option(
            "--call", help='Source run after the module, e.g. "f(1, 2)"; its value is reported.'
        ),
    ] = None,
    timeout: Annotated[
        float, typer.Option(help="Wall-time limit in seconds (> 0, at most 86400).")
    ] = 5.0,
    memory: Annotated[
        int, typer.Option(help="Memory limit in MB on top of the interpreter (at least 16).")
    ] = 512,
    output_limit: Annotated[
        int, typer.Option(help=f"stdout+stderr limit in characters (at most {MAX_OUTPUT_BYTES}).")
    ] = 65536,
    stdin: Annotated[Path | None, typer.Option(help="File fed to the program's stdin.")] = None,
    isolation: Annotated[str | None, typer.Option(help=ISOLATION_HELP)] = None,
    hash_seed: Annotated[int, typer.Option(help="PYTHONHASHSEED of the run.")] = 0,
    program_python: Annotated[
        Path | None,
        typer.Option(
            "--program-python",
            help="Interpreter the sandboxed program runs under (its own packages, e.g. NumPy "
            "1.x); default: $EXECLENS_PROGRAM_PYTHON, else this interpreter.",
        ),
    ] = None,
    mount_ro: Annotated[
        list[str] | None,  # text, not Path: Path("") would be the working directory
        typer.Option(
            "--mount-ro",
            help="A host directory or file the program may read (read-only); repeatable. By "
            "default the sandbox sees only what the program interpreter needs.",
        ),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the outcome as one JSON object.")
    ] = False,
) -> None:
    """Run a program (and optionally a call) in the sandbox and report its outcome."""
    check_isolation(isolation)
    visible = check_mount_ro(mount_ro)
    limits = build_limits(timeout, memory, output_limit)
    python = check_program_python(program_python)
    if not 0 <= hash_seed <= 4294967295:
        usage_error(f"--hash-seed must be from 0 to 4294967295, not {hash_seed}")
    if str(file) == "-":
        source = sys.stdin.read()
    else:
        source = read_source_file(file, "program file")
    stdin_text = read_source_file(stdin, "--stdin file") if stdin is not None else None
    job = Job(program=source, call=call, limits=limits, stdin=stdin_text)
    try:
        with (
            engine_start_failures(isolation),
            Engine(
                workers=1,
                limits=limits,
                isolation=isolation,
                hash_seed=hash_seed,
                python=python,
                mount_ro=visible,
            ) as engine,
        ):
            outcome = engine.run(job)
    except ValueError as exc:  # only the engine's checks of --mount-ro reach here
        usage_error(f"--mount-ro: {exc}")
    if as_json:
        typer.echo(json.dumps(outcome.to_dict(), ensure_ascii=False))
    else:
        _print_outcome(outcome, Console())
    raise typer.Exit(0 if outcome.ok else 1)


def register(app: typer.Typer) -> None:
    """Add the ``run`` verb."""
    app.command("run")(run)
