"""What the perturbation kinds share: the error, fresh misleading names, a function's
statements, blocks and locals."""

from __future__ import annotations

import ast
import builtins
import random
from collections.abc import Callable, Iterable
from typing import Any

__all__ = ["PerturbError"]


def _set_attr(node: Any, attribute: str) -> Callable[[str], None]:
    """A renamer that writes the new name into ``node.<attribute>``."""
    return lambda new: setattr(node, attribute, new)


def _set_item(names: list[str], index: int) -> Callable[[str], None]:
    """A renamer that writes the new name into ``names[index]``."""
    return lambda new: names.__setitem__(index, new)


class PerturbError(ValueError):
    """A program a kind cannot rewrite: unparseable, or nothing for the kind to change."""


# Plausible variable names, shuffled onto a program's locals: a list called ``count`` or
# an index called ``result`` is exactly the surface cue a pattern-matcher follows.
_NAMES = (
    "result",
    "index",
    "count",
    "total",
    "value",
    "item",
    "items",
    "key",
    "temp",
    "data",
    "text",
    "flag",
    "node",
    "left",
    "right",
    "size",
    "length",
    "answer",
    "output",
    "current",
    "prev",
    "nums",
    "char",
    "word",
    "pos",
    "acc",
    "best",
    "seen",
    "stack",
    "queue",
    "target",
    "idx",
    "res",
    "ans",
    "tmp",
    "lst",
    "num",
    "letters",
    "counter",
    "mapping",
    "string",
    "first",
    "last",
    "step",
    "limit",
    "offset",
)
_BUILTINS = frozenset(dir(builtins))
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def _identifiers(tree: ast.AST) -> set[str]:
    """Every identifier the program spells (fresh names must differ from all of them)."""
    found: set[str] = set()
    for node in ast.walk(tree):
        for attr in ("id", "arg", "attr", "name", "asname", "rest"):
            value = getattr(node, attr, None)
            if isinstance(value, str):
                found.add(value)
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            found.update(node.names)
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and node.value.isidentifier()
        ):
            found.add(node.value)  # getattr(x, "name"), f(**{"name": ...})
    return found


class _Fresh:
    """Fresh names from the misleading pool (shuffled by the seed), then ``v<n>``."""

    def __init__(self, rng: random.Random, taken: set[str]) -> None:
        self._pool = list(_NAMES)
        rng.shuffle(self._pool)
        self._taken = taken
        self._counter = 0

    def __call__(self) -> str:
        while self._pool:
            name = self._pool.pop()
            if name not in self._taken and name not in _BUILTINS:
                self._taken.add(name)
                return name
        while True:
            self._counter += 1
            name = f"v{self._counter}"
            if name not in self._taken:
                self._taken.add(name)
                return name


def _args(args: ast.arguments) -> list[ast.arg]:
    return [
        *args.posonlyargs,
        *args.args,
        *([args.vararg] if args.vararg else []),
        *args.kwonlyargs,
        *([args.kwarg] if args.kwarg else []),
    ]


def _walk_function(function: ast.AST) -> Iterable[ast.AST]:
    """``function`` and its statements, not descending into nested functions/classes."""
    yield function
    stack = list(getattr(function, "body", []))
    while stack:
        node = stack.pop()
        if isinstance(node, (*_FUNCTIONS, ast.ClassDef)):
            continue
        if isinstance(node, ast.stmt):
            yield node
            for attr in ("body", "orelse", "finalbody"):
                stack.extend(getattr(node, attr, []) or [])
            if isinstance(node, ast.Try):
                for handler in node.handlers:
                    stack.extend(handler.body)
            if isinstance(node, ast.Match):
                for case in node.cases:
                    stack.extend(case.body)


def _first_slot(block: list[ast.stmt]) -> int:
    """Where insertions may start: after a docstring (which must stay first to stay one)."""
    first = block[0]
    is_doc = (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    )
    return 1 if is_doc else 0


def _locals_of(function: ast.AST) -> list[str]:
    """Names dead code may read: a name declared ``global``/``nonlocal`` may not appear
    before its declaration (a SyntaxError), so those are left out."""
    names = [a.arg for a in _args(function.args)]  # type: ignore[attr-defined]
    declared: set[str] = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.append(node.id)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            declared.update(node.names)
    return sorted(set(names) - declared)


def _function_blocks_of(function: ast.AST) -> list[list[ast.stmt]]:
    blocks: list[list[ast.stmt]] = []
    for inner in _walk_function(function):
        for attr in ("body", "orelse", "finalbody"):
            value = getattr(inner, attr, None)
            if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
                blocks.append(value)
        if isinstance(inner, ast.Try):
            blocks.extend(h.body for h in inner.handlers)
        if isinstance(inner, ast.Match):
            blocks.extend(c.body for c in inner.cases)
    return blocks
