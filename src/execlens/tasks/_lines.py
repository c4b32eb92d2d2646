"""Which lines and variables to ask about, chosen from the source as REval does.

Lines: the last simple statement of each basic block, in every function and method
(nested ones included) — a block ends before a compound statement (``if``, ``for``,
``while``, ``try``, ``with``) and after ``return``/``raise``/``break``/``continue``.
Variables at a line: its assignment targets, then the names, attributes and subscripts
it reads (for a method call ``x.append(...)``, the receiver ``x``).  A line that names
no variable (``return True``) gets the target of the last assignment above it in the
file — REval's questions do that (measured: these rules cover 96 % of its
(line, var) pairs; see tests/tasks).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

__all__ = ["Candidate", "candidate_lines", "line_variables"]

_COMPOUND = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.Try, ast.With, ast.AsyncWith)
_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_BLOCK_ENDERS = (ast.Return, ast.Raise, ast.Break, ast.Continue)


@dataclass(frozen=True, slots=True)
class Candidate:
    """A question site: a 1-indexed line, its source text, and the variables to ask."""

    line: int
    code_line: str
    variables: tuple[str, ...]


def _blocks(body: list[ast.stmt], out: list[list[ast.stmt]]) -> None:
    current: list[ast.stmt] = []
    for stmt in body:
        if isinstance(stmt, _DEFINITIONS):
            if current:
                out.append(current)
                current = []
            _blocks(stmt.body, out)
            continue
        if isinstance(stmt, _COMPOUND) or type(stmt).__name__ in ("Match", "TryStar"):
            if current:
                out.append(current)
                current = []
            for name in ("body", "orelse", "finalbody"):
                inner = getattr(stmt, name, None)
                if inner:
                    _blocks(inner, out)
            for handler in getattr(stmt, "handlers", []) or []:
                _blocks(handler.body, out)
            for case in getattr(stmt, "cases", []) or []:
                _blocks(case.body, out)
            continue
        current.append(stmt)
        if isinstance(stmt, _BLOCK_ENDERS):
            out.append(current)
            current = []
    if current:
        out.append(current)


def _target_nodes(stmt: ast.stmt) -> list[ast.expr]:
    if isinstance(stmt, (ast.Assign, ast.Delete)):
        return list(stmt.targets)
    if isinstance(stmt, (ast.AugAssign, ast.AnnAssign)):
        return [stmt.target]
    return []


def _targets(stmt: ast.stmt) -> list[str]:
    return [ast.unparse(t) for t in _target_nodes(stmt) if _askable(t)]


# What a state question's variable may be made of: names, attributes, subscripts with
# constant or simple index arithmetic (the tracer evaluates these on recorded values).
_VARIABLE_NODES = (
    ast.Name,
    ast.Attribute,
    ast.Subscript,
    ast.Tuple,
    ast.Constant,
    ast.Load,
    ast.Store,
    ast.Del,
    ast.UnaryOp,
    ast.USub,
    ast.BinOp,
    ast.Add,
    ast.Sub,
    ast.Mult,
    ast.FloorDiv,
    ast.Mod,
)


def _askable(node: ast.AST) -> bool:
    return all(isinstance(sub, _VARIABLE_NODES) for sub in ast.walk(node))


def line_variables(stmt: ast.stmt) -> list[str]:
    """Assignment targets, then what the statement reads (no called function names)."""
    found = [ast.unparse(t) for t in _target_nodes(stmt) if _askable(t)]
    called = {id(node.func) for node in ast.walk(stmt) if isinstance(node, ast.Call)}
    for node in ast.walk(stmt):
        if isinstance(node, ast.Lambda) or id(node) in called:
            if isinstance(node, ast.Attribute) and id(node) in called:
                if _askable(node.value):
                    found.append(ast.unparse(node.value))  # the receiver of a method call
            continue
        if isinstance(node, (ast.Name, ast.Attribute, ast.Subscript)) and _askable(node):
            found.append(ast.unparse(node))
    unique: list[str] = []
    for name in found:
        if name not in unique:
            unique.append(name)
    return unique


def candidate_lines(source: str, fallback: bool = True) -> list[Candidate]:
    """The question sites of a program, in line order.

    ``fallback``: give a line that names no variable the last assignment target above
    it in the file (as REval's questions do); otherwise such lines get no variable.
    """
    tree = ast.parse(source)
    blocks: list[list[ast.stmt]] = []
    for node in tree.body:
        if isinstance(node, _DEFINITIONS):
            _blocks(node.body, blocks)
    last_lines = {block[-1].lineno for block in blocks}
    statements = sorted(
        (n for n in ast.walk(tree) if isinstance(n, ast.stmt)),
        key=lambda n: (n.lineno, n.col_offset),
    )
    lines = source.splitlines()
    sites: dict[int, list[str]] = {}
    last_targets: list[str] = []
    for stmt in statements:
        if (
            stmt.lineno in last_lines
            and not isinstance(stmt, (*_COMPOUND, *_DEFINITIONS))
            and type(stmt).__name__ not in ("Match", "TryStar")
        ):
            names = line_variables(stmt)
            if not names and fallback:
                names = list(last_targets)
            bucket = sites.setdefault(stmt.lineno, [])
            bucket.extend(n for n in names if n not in bucket)
        targets = _targets(stmt)
        if targets:
            last_targets = targets
    return [
        Candidate(line, lines[line - 1].strip() if line <= len(lines) else "", tuple(names))
        for line, names in sorted(sites.items())
    ]
