"""Decontamination: keep evaluation programs out of training sets.

Programs are compared after normalisation, so cosmetic edits do not hide a benchmark
program: parsed with ``ast`` (comments and formatting gone), docstrings dropped, and the
top-level functions and classes renamed in order of definition (LiveCodeBench renames
its functions; ``f`` vs ``main_solution`` is not a new program).  Source that does not
parse is compared with its whitespace collapsed.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from pathlib import Path

from execlens.store import iter_jsonl

__all__ = ["Decontaminator", "normalize_program"]


class _Rename(ast.NodeTransformer):
    def __init__(self, names: dict[str, str]) -> None:
        self.names = names

    def visit_Name(self, node: ast.Name) -> ast.AST:  # noqa: N802 - ast's naming
        if node.id in self.names:
            node.id = self.names[node.id]
        return node

    def _named(self, node: ast.AST) -> ast.AST:
        self.generic_visit(node)
        name = getattr(node, "name", None)
        if name in self.names:
            node.name = self.names[name]  # type: ignore[attr-defined]
        return node

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = _named  # noqa: N815


def _drop_docstrings(tree: ast.AST) -> None:
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if ast.get_docstring(node, clean=False) is not None:
                node.body = node.body[1:] or [ast.Pass()]


def normalize_program(code: str) -> str:
    """The normal form two programs are compared in (see the module docstring)."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return re.sub(r"\s+", " ", code).strip()
    _drop_docstrings(tree)
    top = [
        n.name
        for n in tree.body
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
    ]
    tree = _Rename({name: f"_def{i}" for i, name in enumerate(top)}).visit(tree)
    return ast.unparse(tree)


class Decontaminator:
    """Holds the normal forms of the evaluation programs; tells which others match."""

    def __init__(self, programs: Iterable[str] = (), *, sources: Iterable[str] = ()) -> None:
        self._forms: set[str] = {normalize_program(p) for p in programs}
        self.sources = list(sources)

    def __len__(self) -> int:
        return len(self._forms)

    def add(self, programs: Iterable[str], source: str) -> int:
        """Add evaluation programs from ``source``; how many were added."""
        before = len(self._forms)
        self._forms.update(normalize_program(p) for p in programs)
        self.sources.append(source)
        return len(self._forms) - before

    def add_jsonl(self, path: str | Path, *, field: str = "code") -> int:
        """Add the ``field`` of every record of a JSONL file (CRUXEval, REval data); a
        bad line raises :class:`execlens.store.JsonlError` naming file and line."""
        programs = [
            record[field] for record in iter_jsonl(path) if isinstance(record.get(field), str)
        ]
        return self.add(programs, str(path))

    def contaminated(self, program: str) -> bool:
        """Whether ``program`` matches an evaluation program after normalisation."""
        return normalize_program(program) in self._forms
