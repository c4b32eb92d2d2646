"""Answer readers the kinds share: the text of an ``[ANSWER]`` block to the answer the
judge reads (string and ``ast`` work only -- nothing a model wrote is evaluated)."""

from __future__ import annotations

import ast
import re

from execlens.tasks.prompts import Extraction

__all__ = ["assertion_side", "first_line", "line_list", "prediction"]

# A bracketed list without nested brackets: a trace's line numbers.
_LIST = re.compile(r"\[[^\[\]]*\]")


def first_line(block: str, how: list[str]) -> Extraction:
    """The block's first non-blank line."""
    text = next((line.strip() for line in block.splitlines() if line.strip()), "")
    return Extraction(text, (*how, "first line"))


def assertion_side(text: str, side: str) -> str | None:
    """The left or right operand of ``assert a == b`` (or ``a == b``), as written."""
    source = text.strip()
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    if len(tree.body) != 1:
        return None
    node = tree.body[0]
    test = (
        node.test
        if isinstance(node, ast.Assert)
        else (node.value if isinstance(node, ast.Expr) else None)
    )
    if not (
        isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)
    ):
        return None
    operand = test.left if side == "left" else test.comparators[0]
    return ast.get_source_segment(source, operand)


def prediction(block: str, side: str, how: list[str]) -> Extraction:
    """An output (right side) or input (left side) read from a completed assertion: the
    whole block, else its last ``assert`` line (a model that repeats the program first),
    else a one-line block as it is (a bare value or call)."""
    found = assertion_side(block, side)
    if found is not None:
        return Extraction(found.strip(), (*how, f"{side} side of the assertion"))
    asserts = [line for line in block.splitlines() if line.lstrip().startswith("assert ")]
    if asserts:
        found = assertion_side(asserts[-1].strip(), side)
        if found is not None:
            return Extraction(found.strip(), (*how, f"{side} side of the last assert line"))
        return Extraction(block, tuple(how), failure="assertion")
    if len(block.splitlines()) > 1:
        return Extraction(block, tuple(how), failure="no_assertion")
    return Extraction(block, (*how, "the block as it is"))


def line_list(block: str, how: list[str]) -> Extraction:
    """A list of line numbers: the block when it is one list (however it wraps), else the
    last bracketed list in it (a model that explains before answering)."""
    if block.startswith("[") and block.endswith("]"):
        return Extraction(" ".join(block.split()), (*how, "the block as a list"))
    found = _LIST.findall(block)
    if found:
        return Extraction(" ".join(found[-1].split()), (*how, "last bracketed list"))
    return Extraction(block, tuple(how), failure="no_list")
