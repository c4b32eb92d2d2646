"""Coverage labels from executed lines, as CoverageEval's ``coverage annotate`` wrote them.

The dataset's labels are coverage.py's ``annotate`` output (coverage run under Python
3.8): each physical line gets ``> `` or ``! `` from the last *statement* at or above it
(so docstring and continuation lines follow the ``def`` or the statement they belong
to), comment-only and blank lines get no label, and a bare ``else:`` line takes the
label of the statement after it.  :func:`coverage_labels` applies those rules to the
lines our tracer saw run; :func:`branch_mask` marks the lines CoverageEval's
``branch_sequence`` labels (headers and bodies of ``if``/``for``/``while``/``try``,
``except`` clauses and their bodies left out).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable

__all__ = ["branch_mask", "coverage_labels", "is_unlabelled", "statement_lines"]

# coverage.py's annotate.py: blank_re and else_re.
_BLANK = re.compile(r"\s*(#|$)")
_ELSE = re.compile(r"\s*else\s*:\s*(#|$)")


def is_unlabelled(line: str) -> bool:
    """Whether ``coverage annotate`` leaves ``line`` without a label (blank or comment)."""
    return bool(_BLANK.match(line))


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            if ast.get_docstring(node, clean=False) is not None:
                found.add(id(node.body[0]))
    return found


def statement_lines(source: str) -> set[int]:
    """The 1-indexed lines coverage.py counts as statements: every statement's first
    line and every ``except`` clause, docstrings left out (they compile to nothing)."""
    tree = ast.parse(source)
    docstrings = _docstrings(tree)
    return {
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, (ast.stmt, ast.ExceptHandler)) and id(node) not in docstrings
    }


def coverage_labels(source: str, executed: Iterable[int]) -> list[str]:
    """One ``>``/``!`` per labelled line of ``source`` (comment-only lines skipped), given
    the 1-indexed ``executed`` lines: ``coverage annotate``'s rules (module docstring)."""
    statements = sorted(statement_lines(source))
    ran = set(executed)
    missing = [line for line in statements if line not in ran]
    i = j = 0
    covered = True
    labels: list[str] = []
    for number, line in enumerate(source.split("\n"), start=1):
        while i < len(statements) and statements[i] < number:
            i += 1
        while j < len(missing) and missing[j] < number:
            j += 1
        if i < len(statements) and statements[i] == number:
            covered = j >= len(missing) or missing[j] > number
        if _BLANK.match(line):
            continue
        if _ELSE.match(line):
            # Not a statement of its own: labelled by the statement it leads to.
            nothing_missed = j >= len(missing)
            labels.append(
                ">"
                if nothing_missed or i >= len(statements) or statements[i] != missing[j]
                else "!"
            )
        else:
            labels.append(">" if covered else "!")
    return labels


def branch_mask(source: str) -> list[bool]:
    """Per labelled line of ``source``: whether ``branch_sequence`` labels it."""
    tree = ast.parse(source)
    inside: set[int] = set()
    handlers: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.If, ast.For, ast.AsyncFor, ast.While, ast.Try)):
            inside.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
        if isinstance(node, ast.Try):
            for handler in node.handlers:
                handlers.update(range(handler.lineno, (handler.end_lineno or handler.lineno) + 1))
    marked = inside - handlers
    return [
        number in marked
        for number, line in enumerate(source.split("\n"), start=1)
        if not _BLANK.match(line)
    ]
