"""The perturbation kinds: AST rewrites of a program's surface (see the package docstring)."""

from __future__ import annotations

import ast
import builtins
import io
import random
import re
import tokenize
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ._lines import anchor_statements, map_lines

__all__ = [
    "KINDS",
    "PerturbError",
    "Perturbed",
    "order_problem",
    "perturb_program",
    "perturb_source",
    "protected_names",
    "spelled_names",
]


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
# A function reading its own namespace by name sees the renaming: leave it alone.
_NAMESPACE_READERS = frozenset({"locals", "vars", "eval", "exec", "globals", "dir"})
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
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


def _args(args: ast.arguments) -> list[ast.arg]:
    return [
        *args.posonlyargs,
        *args.args,
        *([args.vararg] if args.vararg else []),
        *args.kwonlyargs,
        *([args.kwarg] if args.kwarg else []),
    ]


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


# ------------------------------------------------------------------- statement edits
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


_DEAD = (
    "if False:\n    {fresh} = {name} * 2",
    "while False:\n    {fresh} = len({name})",
    "for {fresh} in []:\n    pass",
    "if {number} < 0 and {number} > 0:\n    {fresh} = {name}",
    "{fresh} = {number}",
    "{fresh} = [{fresh} for {fresh} in range(0)]",
)


def _garbage(tree: ast.Module, rng: random.Random) -> int:
    fresh = _Fresh(rng, _identifiers(tree))
    inserted = 0
    functions = [n for n in ast.walk(tree) if isinstance(n, _FUNCTIONS)]
    for function in functions:
        blocks = _function_blocks_of(function)
        names = _locals_of(function) or ["0"]
        for _ in range(rng.randint(1, 2)):
            block = rng.choice(blocks)
            # A dead store to an existing name would make a global local: only fresh
            # names are ever assigned; ``{name}`` (a local) is read only where it never runs.
            text = rng.choice(_DEAD).format(
                fresh=fresh(), name=rng.choice(names), number=rng.randint(1, 99)
            )
            statements = ast.parse(text).body
            slot = rng.randint(_first_slot(block), len(block))
            block[slot:slot] = statements
            inserted += 1
    if not inserted:
        raise PerturbError("no function body to put dead code in")
    return inserted


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


# Misleading claims about a statement, by its type (CodeCrash's comments and prints).
_CLAIMS: dict[str, tuple[str, ...]] = {
    "Return": (
        "The function returns an empty result at this point.",
        "Returns the original input unchanged.",
        "The return value is always None here.",
    ),
    "For": (
        "This loop never runs because the sequence is empty.",
        "The loop body executes exactly once.",
        "Iterates in reverse order over the items.",
    ),
    "While": (
        "This loop terminates immediately.",
        "The condition is false on the first check, so the body is skipped.",
    ),
    "If": (
        "This condition is always true.",
        "This branch is never taken.",
        "The check below always fails for valid inputs.",
    ),
    "Assign": (
        "This value is overwritten before it is used.",
        "The variable is set to its default and never changes.",
        "Stores a sorted copy of the input.",
    ),
    "AugAssign": ("This update has no effect on the result.", "The value is decremented here."),
    "Expr": ("This call does not modify anything.", "No side effects happen here."),
}
_GENERIC_CLAIMS = (
    "This statement has no effect on the output.",
    "The result of this step is discarded.",
)


def _claim(stmt: ast.stmt, rng: random.Random) -> str:
    return rng.choice(_CLAIMS.get(type(stmt).__name__, _GENERIC_CLAIMS))


def _prints(tree: ast.Module, rng: random.Random) -> int:
    inserted = 0
    for function in [n for n in ast.walk(tree) if isinstance(n, _FUNCTIONS)]:
        for block in _function_blocks_of(function):
            start = _first_slot(block)
            slots = [i for i in range(start, len(block)) if rng.random() < 0.4]
            if not slots and block is function.body and start < len(block):
                slots = [start]
            for index in reversed(slots):
                call = ast.parse(f"print({_claim(block[index], rng)!r})").body
                block[index:index] = call
                inserted += 1
    if not inserted:
        raise PerturbError("no function body to print in")
    return inserted


def _comments(text: str, rng: random.Random) -> str:
    """Comments before statements of ``text``, its layout kept (a comment is no AST node:
    this kind edits the text, so a later kind that writes the tree out erases them).

    Only a statement that is the first thing on its line gets one (a line that begins
    inside a multi-line string, or whose statement follows a ``;``, is left alone);
    decorators sit above a def's line, and a comment may sit between them.
    """
    lines = text.split("\n")
    tree = ast.parse(text)
    eligible: list[tuple[ast.stmt, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt) and not isinstance(node, ast.ImportFrom):
            # col_offset counts UTF-8 bytes: anything but spaces before it disqualifies.
            before = lines[node.lineno - 1].encode("utf-8")[: node.col_offset]
            if not before.strip():
                eligible.append((node, before.decode("ascii")))
    if not eligible:
        raise PerturbError("no statement starts a line of its own to comment")
    chosen: dict[int, str] = {}
    for node, indent in eligible:
        if rng.random() < 0.5:
            chosen.setdefault(node.lineno - 1, indent + "# " + _claim(node, rng))
    if not chosen:
        node, indent = eligible[0]
        chosen[node.lineno - 1] = indent + "# " + _claim(node, rng)
    for line in sorted(chosen, reverse=True):
        lines.insert(line, chosen[line])
    return "\n".join(lines)


def _reformat(text: str) -> str:
    """The canonical layout re-laid: one element per line inside every bracket (lines
    inside brackets continue implicitly) and blank lines after every block."""
    text = _split_brackets(text)
    lines = text.split("\n")
    ends = {
        node.end_lineno
        for node in ast.walk(ast.parse(text))
        if isinstance(node, ast.stmt) and hasattr(node, "body") and node.end_lineno
    }
    for end in sorted(ends, reverse=True):
        lines.insert(end, "")
    return "\n".join(lines).rstrip("\n") + "\n"


def _split_brackets(text: str) -> str:
    """A line break after each comma inside brackets (never inside an f-string)."""
    fstring_start = getattr(tokenize, "FSTRING_START", None)
    fstring_end = getattr(tokenize, "FSTRING_END", None)
    breaks: dict[int, list[tuple[int, int]]] = {}  # row -> [(column, depth)]
    depth = fstrings = 0
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == fstring_start:
            fstrings += 1
        elif token.type == fstring_end:
            fstrings -= 1
        elif token.type == tokenize.OP and not fstrings:
            if token.string in "([{":
                depth += 1
            elif token.string in ")]}":
                depth -= 1
            elif token.string == "," and depth:
                breaks.setdefault(token.end[0], []).append((token.end[1], depth))
    lines = text.split("\n")
    for row, cuts in breaks.items():
        line = lines[row - 1]
        indent = len(line) - len(line.lstrip(" "))
        for column, level in sorted(cuts, reverse=True):
            rest = line[column:].lstrip(" ")
            if rest and not rest.startswith(("#", ")", "]", "}")):
                line = line[:column] + "\n" + " " * (indent + 4 * level) + rest
        lines[row - 1] = line
    return "\n".join(lines)


# ------------------------------------------------------------------------------ entry
#: In an order that loses none: the tree rewrites, then the layout kinds (reformat writes
#: the tree out anew; comments are text, which any later rewrite would erase).
KINDS: tuple[str, ...] = ("rename", "garbage", "prints", "reformat", "comments")
#: Kinds that write the whole program out again (``ast.unparse``), erasing an earlier
#: kind's layout; and the kinds whose whole effect is layout.
_WRITES_OUT = frozenset({"rename", "garbage", "prints", "reformat"})
_LAYOUT = ("reformat", "comments")


def order_problem(kinds: Sequence[str]) -> str | None:
    """Why applying ``kinds`` in this order would erase one of them (None: it would not).

    ``reformat`` and ``comments`` are layout: a later kind that writes the program out
    again (any but ``comments``) replaces it with its own.
    """
    for index, first in enumerate(kinds):
        if first not in _LAYOUT:
            continue
        later = next((kind for kind in kinds[index + 1 :] if kind in _WRITES_OUT), None)
        if later is not None:
            fixed = ",".join(kind for kind in KINDS if kind in kinds)
            return (
                f"{later} writes the program out again and would erase what {first} "
                f"did before it; give the layout kinds last, e.g. {fixed}"
            )
    return None


@dataclass(frozen=True)
class Perturbed:
    """A perturbed program and where the original's lines went.

    ``lines`` maps an original 1-indexed line to its line in ``source`` when it survives
    as a line of its own (see ``_lines``): renaming and comments keep every statement's
    line apart, inserted code (garbage, prints, own-line comments) shifts the lines after
    it, and reformatting may split a statement over several lines (its first line is
    mapped) or split a line's statements apart (that line maps to nothing).
    """

    source: str
    kind: str
    lines: dict[int, int]

    def line(self, original: int) -> int | None:
        """Where ``original`` is now, or None when it is no line of its own any more."""
        return self.lines.get(original)


def perturb_program(
    source: str, kind: str, seed: int = 0, *, protect: Iterable[str] = ()
) -> Perturbed:
    """``source`` rewritten by ``kind`` (one of :data:`KINDS`), with its line map.

    Deterministic per ``seed``.  ``protect`` names that must not be renamed (see
    :func:`protected_names`).  Raises :class:`PerturbError` for an unparseable program
    or one the kind finds nothing to change in (no local to rename, no function to
    edit), and ``ValueError`` for an unknown kind.  The result is *not* checked here:
    callers re-execute it.
    """
    if kind not in KINDS:
        raise ValueError(f"unknown perturbation {kind!r} (expected one of {', '.join(KINDS)})")
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError) as exc:
        raise PerturbError(f"the program does not parse: {exc}") from None
    anchors = anchor_statements(tree)
    rng = random.Random(f"{seed}:{kind}:{source}")
    if kind == "rename":
        _rename(tree, rng, frozenset(protect))
    elif kind == "garbage":
        _garbage(tree, rng)
    elif kind == "prints":
        _prints(tree, rng)
    if kind == "comments":  # a text edit: the layout (a reformat's too) is kept
        text = _comments(source, rng)
    else:
        ast.fix_missing_locations(tree)
        try:
            text = ast.unparse(tree)
        except (ValueError, RecursionError) as exc:  # pragma: no cover - unparse limits
            raise PerturbError(f"the rewritten program cannot be written out: {exc}") from None
        if kind == "reformat":
            text = _reformat(text)
    text = text if text.endswith("\n") else text + "\n"
    if text == source:  # already in this layout: counted as not applicable, not as a kept edit
        raise PerturbError(f"{kind} leaves this program as it is")
    return Perturbed(text, kind, map_lines(tree, anchors, text))


def perturb_source(source: str, kind: str, seed: int = 0, *, protect: Iterable[str] = ()) -> str:
    """``source`` rewritten by ``kind``, deterministically per ``seed`` (the text of
    :func:`perturb_program`; the same errors)."""
    return perturb_program(source, kind, seed, protect=protect).source
