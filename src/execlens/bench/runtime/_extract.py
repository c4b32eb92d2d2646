"""Reading the answer out of a response: the text of its last ``[ANSWER]`` block.

String and ``ast`` work only -- nothing a model wrote is evaluated.  What comes out is
what the generic judges read: ``YES``/``NO``, a line (text or number), ``value; type``
or ``Nil``, an output value (the right side of a completed assertion) or an input call
(its left side).
"""

from __future__ import annotations

import ast
import re

from execlens.tasks.prompts import Extraction

__all__ = ["answer_block", "extract_runtime"]

_OPEN, _CLOSE = "[ANSWER]", "[/ANSWER]"
_FENCE = re.compile(r"^```[\w-]*\s*\n?|\n?```\s*$")


def answer_block(raw: str, how: list[str]) -> str | None:
    """The text of the last ``[ANSWER]`` block (up to ``[/ANSWER]`` or the end), or the
    text before ``[/ANSWER]`` when the prompt opened the block itself; None when a
    response with reasoning never opened one."""
    text = raw
    if _OPEN in text:
        text = text.rsplit(_OPEN, 1)[1]
        how.append("last [ANSWER] block")
    elif "[THOUGHT]" in raw or "[/THOUGHT]" in raw:
        return None  # reasoning without an answer block: nothing was answered
    if _CLOSE in text:
        text = text.split(_CLOSE, 1)[0]
        how.append("cut at [/ANSWER]")
    text = text.strip()
    if _FENCE.search(text):
        text = _FENCE.sub("", text).strip()
        how.append("code fence removed")
    return text


def _first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def _assertion_side(text: str, side: str) -> str | None:
    """The left or right operand of ``assert a == b`` (or ``a == b``), as written."""
    source = text.strip()
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    if len(tree.body) != 1:
        return None
    node = tree.body[0]
    test = node.test if isinstance(node, ast.Assert) else (
        node.value if isinstance(node, ast.Expr) else None)
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1
            and isinstance(test.ops[0], ast.Eq)):
        return None
    operand = test.left if side == "left" else test.comparators[0]
    return ast.get_source_segment(source, operand)


def extract_runtime(raw: str, kind: str) -> Extraction:
    """The answer to a ``kind`` question in ``raw`` (``failure`` says why there is none)."""
    how: list[str] = []
    block = answer_block(raw, how)
    if block is None:
        return Extraction("", tuple(how), failure="no_answer_block")
    if not block:
        return Extraction("", tuple(how), failure="empty")
    if kind in ("coverage", "path", "state"):
        text = _first_line(block)
        if kind == "path":
            text = text.strip("`").strip()
        return Extraction(text, (*how, "first line"))
    if kind in ("output", "input"):
        side = _assertion_side(block, "right" if kind == "output" else "left")
        if side is not None:
            return Extraction(side.strip(), (*how, f"{'right' if kind == 'output' else 'left'}"
                                                   " side of the assertion"))
        if block.lstrip().startswith("assert"):
            return Extraction(block, tuple(how), failure="assertion")
        return Extraction(block, tuple(how))
    raise ValueError(f"no question kind {kind!r}")
