"""Static check: does ``main_solution`` change its arguments in place?

CodeI/O's reference recorded each input *after* ``main_solution`` ran, so a function that
sorts, pops or overwrites its argument left a corrupted input beside the output of the
original one.  Re-execution catches it only when the stored input still changes on a
second call; a consumed input is often a fixed point (a heap popped down to one rope, a
grid whose islands were all sunk), and then only the code tells.  This module reads the
code: a parameter (or a name bound to it, or to one of its items) that is subscript-
assigned, deleted from, given to a mutating method or to ``heapq``/``random.shuffle``/
``bisect.insort``, or passed to a function of the same file that does so.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator

__all__ = ["mutated_parameters"]

# Methods of list, dict, set, deque, bytearray and numpy arrays that change the receiver.
_MUTATING_METHODS = frozenset(
    {
        "append",
        "extend",
        "insert",
        "pop",
        "remove",
        "clear",
        "sort",
        "reverse",
        "update",
        "setdefault",
        "popitem",
        "add",
        "discard",
        "difference_update",
        "intersection_update",
        "symmetric_difference_update",
        "appendleft",
        "popleft",
        "extendleft",
        "rotate",
        "fill",
        "resize",
        "itemset",
        "put",
    }
)
# Functions that change their first argument.
_MUTATING_FUNCTIONS = frozenset(
    {
        "heapify",
        "heappush",
        "heappop",
        "heapreplace",
        "heappushpop",
        "shuffle",
        "insort",
        "insort_left",
        "insort_right",
    }
)

# Calls that return a new object: binding their result ends an alias.
_COPIES = frozenset(
    {
        "list",
        "sorted",
        "dict",
        "set",
        "frozenset",
        "tuple",
        "copy",
        "deepcopy",
        "array",
        "str",
        "int",
        "float",
        "len",
        "sum",
        "range",
        "reversed",
    }
)

_Function = ast.FunctionDef | ast.AsyncFunctionDef


def _root_name(node: ast.expr) -> str | None:
    """The variable at the bottom of ``a[i].b[j]`` (``a``), if any."""
    while isinstance(node, (ast.Subscript, ast.Attribute, ast.Starred)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _alias_root(value: ast.expr) -> str | None:
    """The name ``value`` refers into when binding it makes an alias (``x = a``,
    ``x = a[i]``), not a copy (``a[:]``, ``list(a)``)."""
    if isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Slice):
        return None
    return _root_name(value) if isinstance(value, (ast.Name, ast.Subscript)) else None


def _is_copy(value: ast.expr) -> bool:
    """Whether ``value`` certainly builds a new object."""
    if isinstance(value, ast.Subscript):
        return isinstance(value.slice, ast.Slice)
    if isinstance(value, ast.Call):
        return _callee_name(value) in _COPIES
    return isinstance(
        value,
        (
            ast.Constant,
            ast.List,
            ast.Tuple,
            ast.Dict,
            ast.Set,
            ast.ListComp,
            ast.SetComp,
            ast.DictComp,
            ast.GeneratorExp,
            ast.BinOp,
            ast.BoolOp,
            ast.Compare,
            ast.UnaryOp,
            ast.JoinedStr,
        ),
    )


def _self_attribute(node: ast.expr) -> str | None:
    """``X`` when ``node`` is ``self.X`` or reaches into it (``self.X[i][j]``)."""
    while isinstance(node, (ast.Subscript, ast.Attribute)):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "self"
        ):
            return node.attr
        node = node.value
    return None


def _callee_name(call: ast.Call) -> str | None:
    func = call.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def _parameters(function: _Function) -> list[str]:
    args = function.args
    return [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]


def _walk_body(function: _Function) -> Iterator[ast.AST]:
    """Nodes of the function's own body (nested functions and classes included: they
    close over its names)."""
    for statement in function.body:
        yield from ast.walk(statement)


def _changed_self_attributes(node: ast.AST) -> Iterator[str]:
    targets: list[ast.expr] = []
    if isinstance(node, (ast.Assign, ast.Delete)):
        targets = [t for t in node.targets if isinstance(t, ast.Subscript)]
    elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and isinstance(
        node.target, ast.Subscript
    ):
        targets = [node.target]
    elif (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in _MUTATING_METHODS
    ):
        targets = [node.func.value]
    if isinstance(node, ast.Call) and _callee_name(node) in _MUTATING_FUNCTIONS and node.args:
        targets.append(node.args[0])
    for target in targets:
        attribute = _self_attribute(target)
        if attribute is not None:
            yield attribute


class _Analysis:
    """Which parameters each function of one module mutates, to a fixed point."""

    def __init__(self, tree: ast.Module) -> None:
        self.functions: dict[str, list[_Function]] = {}
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.functions.setdefault(node.name, []).append(node)
        self.mutated: dict[int, set[str]] = {
            id(f): set() for fs in self.functions.values() for f in fs
        }
        # Attributes changed in place somewhere (``self.grid[i][j] = 0`` in any method):
        # a method storing a parameter there (``self.grid = grid``) mutates it.
        self.mutated_attributes = {
            attribute for node in ast.walk(tree) for attribute in _changed_self_attributes(node)
        }

    def run(self) -> None:
        changed = True
        while changed:  # a callee's mutation propagates to its callers
            changed = False
            for functions in self.functions.values():
                for function in functions:
                    found = self._mutated_here(function)
                    if not found <= self.mutated[id(function)]:
                        self.mutated[id(function)] |= found
                        changed = True

    def _aliases(self, function: _Function) -> dict[str, str]:
        """name -> the parameter it refers to (or to an item of), flow-insensitively."""
        # A parameter rebound to a copy (``arr = sorted(arr)``) no longer reaches the
        # caller's object: the analysis is flow-insensitive, so it is dropped outright.
        # Rebinding to any other call keeps it (``a = heapify(a)`` returns ``a``).
        rebound = {
            target.id
            for node in _walk_body(function)
            if isinstance(node, ast.Assign)
            for target in node.targets
            if isinstance(target, ast.Name) and _is_copy(node.value)
        }
        aliases = {name: name for name in _parameters(function) if name not in rebound}
        grew = True
        while grew:
            grew = False
            for node in _walk_body(function):
                pairs: list[tuple[ast.expr, ast.expr]] = []
                if isinstance(node, ast.Assign):
                    pairs = [(target, node.value) for target in node.targets]
                elif isinstance(node, (ast.For, ast.comprehension)):
                    iterated = node.iter
                    if (
                        isinstance(iterated, ast.Call)
                        and _callee_name(iterated) == "enumerate"
                        and iterated.args
                    ):
                        target = node.target
                        if isinstance(target, ast.Tuple) and len(target.elts) == 2:
                            pairs = [(target.elts[1], iterated.args[0])]
                    else:
                        pairs = [(node.target, iterated)]
                for target, value in pairs:
                    root = _alias_root(value)
                    if (
                        isinstance(target, ast.Name)
                        and root in aliases
                        and target.id not in aliases
                    ):
                        aliases[target.id] = aliases[root]
                        grew = True
        return aliases

    def _callee_parameters(self, call: ast.Call) -> list[list[str]]:
        """Parameter lists of the same-file functions ``call`` may reach (``self``
        dropped for method calls)."""
        name = _callee_name(call)
        out = []
        for function in self.functions.get(name or "", []):
            params = _parameters(function)
            if isinstance(call.func, ast.Attribute) and params and params[0] in ("self", "cls"):
                params = params[1:]
            out.append(params)
        return out

    def _mutated_here(self, function: _Function) -> set[str]:
        aliases = self._aliases(function)
        found: set[str] = set()

        def mark(node: ast.expr) -> None:
            root = _root_name(node)
            if root in aliases:
                found.add(aliases[root])

        for node in _walk_body(function):
            if isinstance(node, ast.Assign) and any(
                _self_attribute(t) in self.mutated_attributes
                for t in node.targets
                if isinstance(t, ast.Attribute)
            ):
                mark(node.value)
            if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
                targets = (
                    node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
                )
                for target in targets:
                    for part in target.elts if isinstance(target, ast.Tuple) else [target]:
                        if isinstance(part, ast.Subscript):
                            mark(part)
            elif isinstance(node, ast.Call):
                self._mark_call(node, mark)
        return found

    def _mark_call(self, call: ast.Call, mark: Callable[[ast.expr], None]) -> None:
        name = _callee_name(call)
        if isinstance(call.func, ast.Attribute) and name in _MUTATING_METHODS:
            mark(call.func.value)
        if name in _MUTATING_FUNCTIONS and call.args:
            mark(call.args[0])
        for params, function in zip(
            self._callee_parameters(call), self.functions.get(name or "", [])
        ):
            mutated = self.mutated[id(function)]
            for position, argument in enumerate(call.args):
                if position < len(params) and params[position] in mutated:
                    mark(argument)
            for keyword in call.keywords:
                if keyword.arg in mutated:
                    mark(keyword.value)


def mutated_parameters(code: str, entry_point: str = "main_solution") -> list[str]:
    """Parameters of ``entry_point`` that ``code`` may change in place (sorted); empty
    when the code does not parse or has no such function."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return []
    analysis = _Analysis(tree)
    analysis.run()
    found: set[str] = set()
    for function in analysis.functions.get(entry_point, []):
        found |= analysis.mutated[id(function)]
    return sorted(found)
