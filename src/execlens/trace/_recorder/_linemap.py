"""Statement line map: continuation lines of multi-line statements, computed in the host.

``exact`` mode folds a statement's continuation lines into its first line; the map is
computed before the run (it imports ``ast``, which the sandboxed child never needs) and
handed to the recorder.
"""

from __future__ import annotations

from typing import Any

__all__ = ["statement_line_map"]


def statement_line_map(source: str) -> dict[int, int]:
    """Map each continuation line of a multi-line statement to its first line (1-indexed).

    Used by ``exact`` mode so that a statement spanning lines is one step.  Lines that
    start a statement of their own (a lambda or comprehension body on its own line is not
    one) map to nothing.  Computed outside the tracer (it imports ``ast``).
    """
    import ast

    tree = ast.parse(source)
    mapping: dict[int, int] = {}
    starts: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt):
            starts.add(node.lineno)
    for node in ast.walk(tree):
        if not isinstance(node, ast.stmt):
            continue
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            end = node.body[0].lineno - 1 if node.body else node.lineno
            span_end = max([node.lineno] + [end])
            for line in range(node.lineno + 1, span_end + 1):
                if line not in starts:
                    mapping.setdefault(line, node.lineno)
            continue
        header_end = _header_end(node)
        for line in range(node.lineno + 1, header_end + 1):
            if line not in starts:
                mapping.setdefault(line, node.lineno)
    return mapping


def _header_end(node: Any) -> int:
    """The last line of a statement's own text (for a compound one, of its header)."""
    import ast

    if isinstance(node, (ast.If, ast.While)):
        return node.test.end_lineno or node.lineno
    if isinstance(node, (ast.For, ast.AsyncFor)):
        return max(node.iter.end_lineno or node.lineno, node.target.end_lineno or node.lineno)
    if isinstance(node, (ast.With, ast.AsyncWith)):
        return max((item.context_expr.end_lineno or node.lineno) for item in node.items)
    if isinstance(node, ast.Try) or type(node).__name__ == "TryStar":
        return node.lineno
    if type(node).__name__ == "Match":
        return node.subject.end_lineno or node.lineno
    return node.end_lineno or node.lineno
