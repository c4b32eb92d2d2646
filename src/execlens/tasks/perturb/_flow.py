"""Control-flow kinds (CodeCrash's structural rewrites): the program computes the same,
through differently shaped code.

* ``invert``: ``if c: A else: B`` becomes ``if not c: B else: A`` (``if c: A`` becomes
  ``if not c: pass else: A``; ``if not c`` loses its ``not``); a conditional expression
  ``a if c else b`` becomes ``b if not c else a``;
* ``loops``: ``for x in it: body [else: tail]`` becomes an explicit iterator driven by
  ``while True`` -- ``next`` in a ``try``, ``StopIteration`` running the ``else`` part and
  leaving the loop -- so ``break``, ``continue`` and the ``else`` clause keep their
  meaning;
* ``deadbranch``: a statement is wrapped in ``if <always true>: stmt else: <dead>``, the
  condition made of literals only (``'a' < 'b'``) and the dead branch a misleading
  alternative that reads a local (``return total``) or raises; it never runs.

Each applies to function bodies only, to a seeded random share of the sites (at least
one), and raises :class:`PerturbError` when a program has none.  A function that reads
its own namespace (``locals()``, ``eval``, ...) is left alone by ``loops`` (its new
iterator variable would show), and one that names ``iter``, ``next`` or
``StopIteration`` itself by ``loops`` as a whole (the rewrite calls the builtins).
Whether behaviour really is the same is checked by re-execution, never assumed.
"""

from __future__ import annotations

import ast
import random
from collections.abc import Iterable, Sequence
from typing import TypeVar

from ._common import (
    _FUNCTIONS,
    PerturbError,
    _args,
    _Fresh,
    _function_blocks_of,
    _identifiers,
    _walk_function,
)

_T = TypeVar("_T")

__all__ = ["deadbranch", "invert", "loops"]

_NAMESPACE_READERS = frozenset({"locals", "vars", "eval", "exec", "globals", "dir"})
_LOOP_BUILTINS = frozenset({"iter", "next", "StopIteration"})
#: Always-true conditions of literals only: nothing to shadow, no side effects.
_TRUE = ("'a' < 'b'", "2 ** 3 == 8", "(1, 2) < (1, 3)", "'x' in 'xyz'", "7 % 3 == 1")
_DEAD = (
    "return {name}",
    "return None",
    "raise ValueError('unexpected input')",
    "return {name}",
)


def _chosen(sites: Sequence[_T], rng: random.Random) -> list[_T]:
    """A seeded share (each site with probability 1/2) of ``sites``, at least one."""
    picked = [site for site in sites if rng.random() < 0.5]
    return picked or ([rng.choice(sites)] if sites else [])


def _functions(tree: ast.Module) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    return [node for node in ast.walk(tree) if isinstance(node, _FUNCTIONS)]


# ------------------------------------------------------------------------------ invert
def _negated(test: ast.expr) -> ast.expr:
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return test.operand
    return ast.UnaryOp(op=ast.Not(), operand=test)


def invert(tree: ast.Module, rng: random.Random) -> int:
    """Invert the chosen ``if`` statements and conditional expressions; how many."""
    sites: list[ast.AST] = []
    for function in _functions(tree):
        for node in _walk_function(function):
            if isinstance(node, ast.If):
                sites.append(node)
        sites.extend(
            node
            for statement in _walk_function(function)
            if statement is not function
            for node in _own_expressions(statement)
            if isinstance(node, ast.IfExp)
        )
    chosen = _chosen(sites, rng)
    for node in chosen:
        if isinstance(node, ast.If):
            node.test = _negated(node.test)
            node.body, node.orelse = (node.orelse or [ast.Pass()]), node.body
        elif isinstance(node, ast.IfExp):
            node.test = _negated(node.test)
            node.body, node.orelse = node.orelse, node.body
    if not chosen:
        raise PerturbError("no if statement or conditional expression in a function to invert")
    return len(chosen)


def _own_expressions(statement: ast.AST) -> Iterable[ast.AST]:
    """The expressions of ``statement`` itself (not of the statements nested in it, nor
    inside nested functions, lambdas or classes)."""
    stack: list[ast.AST] = [
        value
        for field, value in ast.iter_fields(statement)
        if field not in ("body", "orelse", "finalbody", "handlers", "cases")
        for value in (value if isinstance(value, list) else [value])
        if isinstance(value, ast.AST)
    ]
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Lambda, *_FUNCTIONS, ast.ClassDef)):
            continue
        yield node
        stack.extend(ast.iter_child_nodes(node))


# ------------------------------------------------------------------------------- loops
def _reads_namespace(function: ast.AST) -> bool:
    return any(
        isinstance(node, ast.Name) and node.id in _NAMESPACE_READERS for node in ast.walk(function)
    )


class _Loops(ast.NodeTransformer):
    """Rewrites the chosen ``for`` statements of function bodies (innermost first)."""

    def __init__(self, chosen: set[int], fresh: _Fresh) -> None:
        self.chosen = chosen
        self.fresh = fresh
        self.rewritten = 0

    def visit_For(self, node: ast.For) -> ast.AST | list[ast.stmt]:
        self.generic_visit(node)
        if id(node) not in self.chosen:
            return node
        self.rewritten += 1
        iterator = self.fresh()
        on_end: list[ast.stmt] = [*node.orelse, ast.Break()]
        step = ast.Try(
            body=[
                ast.Assign(
                    targets=[node.target],
                    value=ast.parse(f"next({iterator})", mode="eval").body,
                )
            ],
            handlers=[
                ast.ExceptHandler(
                    type=ast.Name("StopIteration", ast.Load()), name=None, body=on_end
                )
            ],
            orelse=[],
            finalbody=[],
        )
        start = ast.parse(f"{iterator} = iter(0)").body[0]
        assert isinstance(start, ast.Assign) and isinstance(start.value, ast.Call)
        start.value.args = [node.iter]
        loop = ast.While(test=ast.Constant(True), body=[step, *node.body], orelse=[])
        return [start, loop]


def loops(tree: ast.Module, rng: random.Random) -> int:
    """Rewrite the chosen ``for`` loops as ``while`` loops over an explicit iterator."""
    taken = _identifiers(tree)
    if taken & _LOOP_BUILTINS:
        raise PerturbError("the program names iter, next or StopIteration itself")
    sites: list[ast.AST] = [
        node
        for function in _functions(tree)
        if not _reads_namespace(function)
        for node in _walk_function(function)
        if isinstance(node, ast.For)
    ]
    chosen = _chosen(sites, rng)
    if not chosen:
        raise PerturbError("no for loop in a function to rewrite")
    rewriter = _Loops({id(node) for node in chosen}, _Fresh(rng, taken))
    rewriter.visit(tree)
    return rewriter.rewritten


# -------------------------------------------------------------------------- deadbranch
def _wrappable(statement: ast.stmt, index: int, block: list[ast.stmt]) -> bool:
    if isinstance(statement, (ast.Global, ast.Nonlocal, *_FUNCTIONS, ast.ClassDef)):
        return False
    is_docstring = (
        index == 0
        and isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Constant)
        and isinstance(statement.value.value, str)
    )
    return not is_docstring


def deadbranch(tree: ast.Module, rng: random.Random) -> int:
    """Wrap the chosen statements of (non-async) function bodies in an always-true ``if``
    whose ``else`` is a dead, misleading alternative."""
    sites: list[tuple[list[ast.stmt], ast.stmt, list[str]]] = []
    for function in _functions(tree):
        if isinstance(function, ast.AsyncFunctionDef):
            continue  # `return value` is a SyntaxError in an async generator
        names = sorted({a.arg for a in _args(function.args)} | _stored_names(function)) or ["None"]
        for block in _function_blocks_of(function):
            for index, statement in enumerate(block):
                if _wrappable(statement, index, block):
                    sites.append((block, statement, names))
    chosen = _chosen(sites, rng)
    if not chosen:
        raise PerturbError("no statement in a function to wrap in a dead branch")
    for block, statement, names in chosen:
        dead = ast.parse(rng.choice(_DEAD).format(name=rng.choice(names))).body
        wrapper = ast.If(
            test=ast.parse(rng.choice(_TRUE), mode="eval").body, body=[statement], orelse=dead
        )
        block[block.index(statement)] = wrapper
    return len(chosen)


def _stored_names(function: ast.AST) -> set[str]:
    """Names the function's own statements assign (dead code only reads them)."""
    return {
        node.id
        for statement in _walk_function(function)
        if statement is not function
        for node in _own_expressions(statement)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)
    }
