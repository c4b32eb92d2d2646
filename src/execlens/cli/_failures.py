"""The one failure exit of the CLI's verbs: one ``error:`` line on stderr, then exit 2
(a user's mistake) or 1 (model requests that failed: a rerun retries them)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import NoReturn

import typer

__all__ = ["fail", "run_failures", "warn"]


def fail(message: str, code: int = 2) -> NoReturn:
    """End the command: one ``error:`` line on stderr naming the fix, then exit ``code``."""
    text = " ".join(str(message).split())  # one line, whatever the message held
    print(f"error: {text}", file=sys.stderr)
    raise typer.Exit(code)


def warn(message: str) -> None:
    """One ``warning:`` line on stderr; the command goes on."""
    typer.echo("warning: " + " ".join(str(message).split()), err=True)


@contextmanager
def run_failures(interrupted: str | None = None) -> Iterator[None]:
    """Within the block, a run that cannot go on (``bench.RunError``: eval's, score's,
    trace's and tasks build's) and the loaders' refusals of a user's input end the
    command through :func:`fail`; ``ModelRequestsFailed`` exits 1.  ``interrupted``:
    the line a Ctrl-C ends with (a run's own interruption, which says what it kept, is
    a ``RunError``)."""
    from execlens.bench import (
        BenchmarkError,
        DataOptionError,
        DatasetError,
        GenerationsError,
        ModelRequestsFailed,
        RunError,
    )
    from execlens.tasks import ProblemError

    try:
        yield
    except ModelRequestsFailed as exc:
        fail(str(exc), 1)
    except (
        RunError,
        BenchmarkError,
        DatasetError,
        DataOptionError,
        GenerationsError,
        ProblemError,
    ) as exc:
        fail(str(exc))
    except KeyboardInterrupt:
        if interrupted is None:
            raise
        fail(interrupted)
