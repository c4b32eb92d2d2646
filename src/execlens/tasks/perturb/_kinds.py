"""The perturbation kinds: AST rewrites of a program's surface (see the package docstring)."""

from __future__ import annotations

import ast
import io
import random
import tokenize
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ._common import (
    _FUNCTIONS,
    PerturbError,
    _first_slot,
    _Fresh,
    _function_blocks_of,
    _identifiers,
    _locals_of,
)
from ._flow import deadbranch, invert, loops
from ._lines import anchor_statements, map_lines
from ._rename import _rename, protected_names, spelled_names

__all__ = [
    "KINDS",
    "LAYOUT_KINDS",
    "PerturbError",
    "Perturbed",
    "order_problem",
    "perturb_program",
    "parsed_form",
    "perturb_source",
    "protected_names",
    "spelled_names",
]

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
KINDS: tuple[str, ...] = (
    "rename",
    "garbage",
    "prints",
    "invert",
    "loops",
    "deadbranch",
    "reformat",
    "comments",
)
#: Kinds that write the whole program out again (``ast.unparse``), erasing an earlier
#: kind's layout; and the kinds whose whole effect is layout.
_WRITES_OUT = frozenset(
    {"rename", "garbage", "prints", "invert", "loops", "deadbranch", "reformat"}
)
_LAYOUT = ("reformat", "comments")
#: The layout checks: kinds after which the program parses back to the same tree
#: (:func:`parsed_form` is unchanged), so a model that reads the code's structure sees no
#: change at all -- they test sensitivity to layout only, not robustness to rewrites.
LAYOUT_KINDS: tuple[str, ...] = _LAYOUT
_TREE_EDITS = {"invert": invert, "loops": loops, "deadbranch": deadbranch}


def parsed_form(source: str) -> str | None:
    """``ast.unparse(ast.parse(source))``: the program with its layout and comments gone
    (None when it does not parse); two programs with the same parsed form differ only in
    layout."""
    try:
        return ast.unparse(ast.parse(source))
    except (SyntaxError, ValueError, RecursionError):
        return None


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
    elif kind in _TREE_EDITS:
        _TREE_EDITS[kind](tree, rng)
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
