"""Which interpreter the fork servers (and so the programs) run under."""

from __future__ import annotations

import os

from execlens.engine._errors import EngineError
from execlens.engine._program_env import locate_program_python

__all__ = ["resolve_program_python"]


def resolve_program_python(python: str | None = None) -> str:
    """The interpreter fork servers run under: ``python``, else ``$EXECLENS_PROGRAM_PYTHON``,
    else the one ``make install`` recorded, else this interpreter
    (:func:`locate_program_python`).  Raises :class:`EngineError` unless it is an
    executable file, naming where it came from."""
    located = locate_program_python(python)
    chosen = located.path
    if not os.path.isfile(chosen) or not os.access(chosen, os.X_OK):
        raise EngineError(
            f"program interpreter ({located.describe()}) is not an executable "
            "file; give a Python >= 3.11 interpreter (e.g. "
            ".venv-programs/bin/python, built by make install)"
        )
    # Absolute (symlinks kept: a venv's python is a link to its base): the servers start
    # in their own working directory, where a relative path would name nothing.
    return os.path.abspath(chosen)
