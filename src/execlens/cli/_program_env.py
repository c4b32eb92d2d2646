"""The program environment as the verbs that compute ground truth see it: one
``warning:`` line on stderr when the program interpreter lacks what a benchmark's
published numbers need (each benchmark declares that as ``program_requirements``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import typer

__all__ = [
    "benchmark_requirements",
    "program_source",
    "warn_program_environment",
]


def benchmark_requirements(names: Iterable[str] | None = None) -> dict[str, tuple[str, ...]]:
    """``{benchmark: program_requirements}`` of the named benchmarks (default: every
    registered one), leaving out those that declare none."""
    from execlens.bench import BenchmarkError, benchmark_names, get_benchmark

    needs: dict[str, tuple[str, ...]] = {}
    for name in benchmark_names() if names is None else names:
        try:
            bench = get_benchmark(name)
        except BenchmarkError:
            continue  # an unknown name: the verb reports it as the usage error it is
        requirements = bench.program_requirements
        if requirements:
            needs[name] = requirements
    return needs


def program_source(python: str | None = None) -> str:
    """Where the program interpreter comes from, as doctor prints it: ``--program-python``,
    ``$EXECLENS_PROGRAM_PYTHON``, ``recorded by make install (<file>)`` or ``this
    interpreter``."""
    from execlens.engine import locate_program_python

    located = locate_program_python(python)
    if python:
        return "--program-python"
    return f"{located.source} ({located.origin})" if located.origin else located.source


def warn_program_environment(
    needs: Mapping[str, Iterable[str]], python: str | None = None
) -> str | None:
    """Print (and return) one ``warning:`` line when the program interpreter (``python``,
    else the engine's default) does not meet ``needs``; a warning, never an error: the
    run goes on, its numbers just will not match the published ones."""
    from execlens.engine import program_environment_warning

    message = program_environment_warning(needs, python) if needs else None
    if message is not None:
        typer.echo(f"warning: {message}", err=True)
    return message
