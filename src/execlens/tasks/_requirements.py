"""Which programs can run here: the non-stdlib modules a program imports that are missing.

DREval/117 and /149 import gensim, which execlens does not install: such programs get a
skip reason (the REval benchmark drops them before inference and never scores them;
``tasks build`` leaves them untraced).  The one rule, for every reader of the data.

Programs run under the *program* interpreter (the engine's ``locate_program_python``:
``$EXECLENS_PROGRAM_PYTHON``, else the one ``make install`` recorded), not necessarily
this one: the host may hold torch and NumPy 2 while programs
get NumPy 1 and SciPy.  So the question goes to that interpreter, once per module.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import subprocess
import sys

__all__ = ["missing_modules", "skip_reason"]

_FIND = (
    "import importlib.util, json, sys\n"
    "print(json.dumps([importlib.util.find_spec(n) is not None for n in sys.argv[1:]]))"
)
_installed_cache: dict[tuple[str, str], bool] = {}


def _program_python(python: str | None) -> str:
    # The engine's one resolver (argument, $EXECLENS_PROGRAM_PYTHON, the interpreter make
    # install recorded, this one): the question goes where the programs will run.
    from execlens.engine import locate_program_python

    return locate_program_python(python).path


def _installed(names: list[str], python: str) -> dict[str, bool]:
    """Whether each top-level module can be imported by ``python`` (cached)."""
    todo = [n for n in dict.fromkeys(names) if (python, n) not in _installed_cache]
    if todo:
        found: list[bool] | None = None
        if os.path.abspath(python) != os.path.abspath(sys.executable):
            try:
                result = subprocess.run(
                    [python, "-I", "-c", _FIND, *todo],
                    capture_output=True,
                    text=True,
                    timeout=60,
                    check=True,
                )
                found = [bool(flag) for flag in json.loads(result.stdout)]
            except (OSError, subprocess.SubprocessError, ValueError):
                found = None  # an unusable interpreter: the engine reports it by name
        if found is None or len(found) != len(todo):
            found = [importlib.util.find_spec(n) is not None for n in todo]
        _installed_cache.update({(python, n): ok for n, ok in zip(todo, found)})
    return {n: _installed_cache[(python, n)] for n in names}


def missing_modules(*sources: str | None, python: str | None = None) -> list[str]:
    """Top-level non-stdlib modules the sources import that the program interpreter
    (``python``, else the engine's default: ``$EXECLENS_PROGRAM_PYTHON``, else the one
    ``make install`` recorded, else this one) cannot import."""
    imported: list[str] = []
    for source in sources:
        if not source:
            continue
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue  # the run itself reports the SyntaxError
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            for name in names:
                top = name.split(".")[0]
                if top not in sys.stdlib_module_names and top not in imported:
                    imported.append(top)
    if not imported:
        return []
    installed = _installed(imported, _program_python(python))
    return [name for name in imported if not installed[name]]


def skip_reason(*sources: str | None, python: str | None = None) -> str | None:
    """``"needs gensim (not installed)"`` when the sources import missing modules, else None."""
    missing = missing_modules(*sources, python=python)
    return f"needs {', '.join(missing)} (not installed)" if missing else None
