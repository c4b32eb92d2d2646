"""The ``rename`` kind: misleading names for the locals and parameters in use, Python's
scoping rules followed closely enough to know which function owns each occurrence."""

from __future__ import annotations

import ast
import random
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from ._common import PerturbError, _args, _Fresh, _identifiers, _set_attr, _set_item

__all__ = ["protected_names", "spelled_names"]

# A function reading its own namespace by name sees the renaming: leave it alone.
_NAMESPACE_READERS = frozenset({"locals", "vars", "eval", "exec", "globals", "dir"})
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)


def protected_names(texts: Iterable[str]) -> frozenset[str]:
    """Names a rename must keep because code outside the program spells them.

    ``texts`` are calls (``f(nums=[1, 2])``, LiveCodeBench's inputs) or whole modules (a
    unittest file driving the program): their keyword-argument names, and the string keys
    of a ``**{...}`` literal (CodeI/O's ``f(**{'nums': [1, 2]})``), name parameters from
    outside.  Text that does not parse protects nothing.
    """
    names: set[str] = set()
    for text in texts:
        tree: ast.AST | None = None
        for mode in ("eval", "exec"):
            try:
                tree = ast.parse(text, mode=mode)
                break
            except (SyntaxError, ValueError):
                continue
        if tree is None:
            continue
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            for keyword in node.keywords:
                if keyword.arg:
                    names.add(keyword.arg)
                elif isinstance(keyword.value, ast.Dict):
                    names.update(
                        key.value
                        for key in keyword.value.keys
                        if isinstance(key, ast.Constant) and isinstance(key.value, str)
                    )
    return frozenset(names)


_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def spelled_names(texts: Iterable[str]) -> frozenset[str]:
    """Every identifier ``texts`` spell: what a rename must keep so that an expression
    asked about from outside (a state question's ``self.total`` or ``(i, j)``) still
    names the same variables.  Attribute names and string keys come along (harmless:
    a rename never touches them)."""
    return frozenset(name for text in texts for name in _WORD.findall(text))


# ------------------------------------------------------------------------------ rename
@dataclass(eq=False)
class _Scope:
    kind: str  # module | function | class | comprehension
    parent: _Scope | None
    bound: set[str] = field(default_factory=set)
    fixed: set[str] = field(default_factory=set)  # bound by import/def/class/match
    globals: set[str] = field(default_factory=set)
    nonlocals: set[str] = field(default_factory=set)
    reads_namespace: bool = False


@dataclass
class _Use:
    scope: _Scope
    name: str
    set_name: Callable[[str], None]


class _Binder(ast.NodeVisitor):
    """Python's scoping rules, enough to know which function owns each name occurrence."""

    def __init__(self) -> None:
        self.module = _Scope("module", None)
        self.scope = self.module
        self.uses: list[_Use] = []

    def _use(self, name: str, setter: Callable[[str], None], scope: _Scope | None = None) -> None:
        self.uses.append(_Use(scope or self.scope, name, setter))

    def _enter(self, kind: str) -> _Scope:
        scope = _Scope(kind, self.scope)
        self.scope = scope
        return scope

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> None:
        # Defaults, annotations and decorators are evaluated in the enclosing scope.
        for expr in [*node.args.defaults, *(d for d in node.args.kw_defaults if d)]:
            self.visit(expr)
        if not isinstance(node, ast.Lambda):
            outer_exprs: list[ast.expr | None] = [
                *node.decorator_list,
                *(a.annotation for a in _args(node.args) if a.annotation),
                node.returns,
            ]
            for outer_expr in outer_exprs:
                if outer_expr is not None:
                    self.visit(outer_expr)
            self.scope.bound.add(node.name)
            self.scope.fixed.add(node.name)
        outer = self.scope
        scope = self._enter("function")
        for arg in _args(node.args):
            scope.bound.add(arg.arg)
            self._use(arg.arg, _set_attr(arg, "arg"))
        for stmt in node.body if isinstance(node.body, list) else [node.body]:
            self.visit(stmt)
        self.scope = outer

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _function

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        for expr in [*node.decorator_list, *node.bases, *(k.value for k in node.keywords)]:
            self.visit(expr)
        self.scope.bound.add(node.name)
        self.scope.fixed.add(node.name)
        outer = self.scope
        self._enter("class")
        for stmt in node.body:
            self.visit(stmt)
        self.scope = outer

    def _comprehension(self, node: ast.AST) -> None:
        generators: list[ast.comprehension] = node.generators  # type: ignore[attr-defined]
        self.visit(generators[0].iter)  # the first iterable runs in the enclosing scope
        outer = self.scope
        self._enter("comprehension")
        for index, gen in enumerate(generators):
            self.visit(gen.target)
            if index:
                self.visit(gen.iter)
            for cond in gen.ifs:
                self.visit(cond)
        if isinstance(node, ast.DictComp):
            self.visit(node.key)
            self.visit(node.value)
        else:
            self.visit(node.elt)  # type: ignore[attr-defined]
        self.scope = outer

    visit_ListComp = visit_SetComp = visit_GeneratorExp = visit_DictComp = _comprehension

    def visit_NamedExpr(self, node: ast.NamedExpr) -> None:
        # The walrus binds in the nearest enclosing non-comprehension scope.
        self.visit(node.value)
        scope = self.scope
        while scope.kind == "comprehension" and scope.parent is not None:
            scope = scope.parent
        scope.bound.add(node.target.id)
        self._use(node.target.id, _set_attr(node.target, "id"), scope)

    def visit_Name(self, node: ast.Name) -> None:
        if not isinstance(node.ctx, ast.Load):
            self.scope.bound.add(node.id)
        elif node.id in _NAMESPACE_READERS:
            scope: _Scope | None = self.scope
            while scope is not None:  # the function and every one around it
                scope.reads_namespace = True
                scope = scope.parent
        self._use(node.id, _set_attr(node, "id"))

    def visit_Global(self, node: ast.Global) -> None:
        self.scope.globals.update(node.names)

    def visit_Nonlocal(self, node: ast.Nonlocal) -> None:
        self.scope.nonlocals.update(node.names)
        for index, name in enumerate(node.names):
            self._use(name, _set_item(node.names, index))

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        if node.name:
            self.scope.bound.add(node.name)
            self._use(node.name, _set_attr(node, "name"))
        self.generic_visit(node)

    def _imports(self, node: ast.Import | ast.ImportFrom) -> None:
        for alias in node.names:
            name = alias.asname or alias.name.split(".")[0]
            self.scope.bound.add(name)
            self.scope.fixed.add(name)

    visit_Import = visit_ImportFrom = _imports

    def _pattern_name(self, node: ast.AST) -> None:
        for attr in ("name", "rest"):
            name = getattr(node, attr, None)
            if isinstance(name, str):
                self.scope.bound.add(name)
                self.scope.fixed.add(name)
        self.generic_visit(node)

    visit_MatchAs = visit_MatchStar = visit_MatchMapping = _pattern_name


def _owner(scope: _Scope, name: str) -> _Scope | None:
    """The scope whose local ``name`` is at ``scope`` (None: a global or builtin)."""
    if name in scope.globals:
        return None
    if name in scope.bound and name not in scope.nonlocals:
        return scope
    current = scope.parent
    while current is not None and current.kind != "module":
        # Class bodies are invisible to the functions nested in them.
        if (
            current.kind != "class"
            and name in current.bound
            and name not in current.globals
            and name not in current.nonlocals
        ):
            return current
        current = current.parent
    return None


def _rename(tree: ast.Module, rng: random.Random, protect: frozenset[str]) -> int:
    binder = _Binder()
    binder.visit(tree)
    # A keyword argument names a parameter from the call site: ``g(b=x)`` pins ``b``.
    protect = protect | {
        kw.arg
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        for kw in node.keywords
        if kw.arg
    }
    fresh = _Fresh(rng, _identifiers(tree))
    mapping: dict[tuple[int, str], str] = {}
    renamed = 0
    for use in binder.uses:
        owner = _owner(use.scope, use.name)
        if owner is None or owner.kind not in ("function", "comprehension"):
            continue
        if (
            use.name in owner.fixed
            or use.name in protect
            or use.name.startswith("__")
            or owner.reads_namespace
        ):
            continue
        key = (id(owner), use.name)
        if key not in mapping:
            mapping[key] = fresh()
        use.set_name(mapping[key])
        renamed += 1
    if not renamed:
        raise PerturbError("no local variable or parameter to rename")
    return renamed
