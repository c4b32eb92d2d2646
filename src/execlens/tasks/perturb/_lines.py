"""Line maps: where each line of a program sits after a perturbation rewrote it.

Every kind rewrites the program's tree and writes it out again (``ast.unparse``, then the
text edits of ``comments`` and ``reformat``), so lines move.  The map is read from the
statements, never from a text diff:

1. before the rewrite, every statement of the original tree is *anchored* to the line it
   starts on (the nodes themselves: a rewrite edits them in place or inserts new ones);
2. the final text is parsed again; written-out trees parse back to the same statements,
   so the rewritten tree's statements and the final text's, listed in the same order,
   pair up one to one (inserted statements carry no anchor);
3. an original line maps to the new line its statements start on, when that is one line
   holding only statements from that original line, and none of its statements was
   replaced by others (``loops`` replaces a ``for``).  A line that starts no statement
   (a blank, a comment, ``else:``, a continuation), one whose statements were split
   apart (``a = 1; b = 2``) and one that shares its new line maps to nothing.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping

__all__ = ["Anchors", "anchor_statements", "compose_lines", "map_lines"]

#: The original statements and the lines they start on (the nodes are kept alive, so
#: their identities cannot be reused while the map is built).
Anchors = list[tuple[ast.stmt, int]]


def _statements(tree: ast.AST) -> list[ast.stmt]:
    """Every statement of ``tree`` in ``ast.walk``'s order (breadth first: the same order
    for two trees of the same shape)."""
    return [node for node in ast.walk(tree) if isinstance(node, ast.stmt)]


def anchor_statements(tree: ast.AST) -> Anchors:
    """Each statement of the (not yet rewritten) ``tree`` with the line it starts on."""
    return [(node, node.lineno) for node in _statements(tree)]


def map_lines(rewritten: ast.AST, anchors: Anchors, text: str) -> dict[int, int]:
    """``{original line: line in text}`` for the lines that survive as lines of their own.

    ``rewritten`` is the tree after the kind edited it (anchored statements edited in
    place, new ones inserted) and ``text`` the final program written from it.  A text
    that does not parse back to the same statements (never seen; a safety net) maps
    nothing, so every line question about it is refused rather than guessed.
    """
    origin = {id(node): line for node, line in anchors}
    before = _statements(rewritten)
    try:
        after = _statements(ast.parse(text))
    except SyntaxError:
        return {}
    if len(before) != len(after) or any(type(a) is not type(b) for a, b in zip(before, after)):
        return {}
    landed: dict[int, set[int]] = {}  # original line -> new lines its statements start on
    holders: dict[int, set[int | None]] = {}  # new line -> original lines (None: inserted)
    for old, new in zip(before, after):
        line = origin.get(id(old))
        holders.setdefault(new.lineno, set()).add(line)
        if line is not None:
            landed.setdefault(line, set()).add(new.lineno)
    # A line one of whose statements the rewrite replaced (a for header turned into a
    # while loop) is not the same line any more, even where the rest of it survives.
    present = {id(node) for node in before}
    lost = {line for node, line in anchors if id(node) not in present}
    out: dict[int, int] = {}
    for line, targets in landed.items():
        if line in lost:
            continue
        if len(targets) == 1:
            (target,) = targets
            if holders[target] == {line}:
                out[line] = target
    return out


def compose_lines(first: Mapping[int, int] | None, second: Mapping[int, int]) -> dict[int, int]:
    """The map of two perturbations applied in turn (``first`` None: the identity)."""
    if first is None:
        return dict(second)
    return {line: second[middle] for line, middle in first.items() if middle in second}
