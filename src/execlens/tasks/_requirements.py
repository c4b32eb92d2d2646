"""Which programs can run here: the non-stdlib modules a program imports that are missing.

DREval/117 and /149 import gensim, which execlens does not install: such programs get a
skip reason (the REval benchmark drops them before inference and never scores them;
``tasks build`` leaves them untraced).  The one rule, for every reader of the data.
"""

from __future__ import annotations

import ast
import importlib.util
import sys

__all__ = ["missing_modules", "skip_reason"]


def missing_modules(*sources: str | None) -> list[str]:
    """Top-level non-stdlib modules the sources import that are not installed here."""
    missing: list[str] = []
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
                if top in sys.stdlib_module_names or top in missing:
                    continue
                if importlib.util.find_spec(top) is None:
                    missing.append(top)
    return missing


def skip_reason(*sources: str | None) -> str | None:
    """``"needs gensim (not installed)"`` when the sources import missing modules, else None."""
    missing = missing_modules(*sources)
    return f"needs {', '.join(missing)} (not installed)" if missing else None
