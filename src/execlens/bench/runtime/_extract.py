"""Reading the answer out of a response: the text of its last ``[ANSWER]`` block.

String and ``ast`` work only -- nothing a model wrote is evaluated.  What comes out is
what the generic judges read: ``YES``/``NO``, a line (text or number), ``value; type``
or ``Nil``, an output value (the right side of a completed assertion), an input call
(its left side) or a full trace (a list of line numbers, on one line or spread over
several).
"""

from __future__ import annotations

import ast
import re

from execlens.tasks.prompts import ANSWER_CLOSE, ANSWER_OPEN, Extraction

__all__ = ["answer_block", "extract_runtime"]

_OPEN, _CLOSE = ANSWER_OPEN, ANSWER_CLOSE
_FENCE = re.compile(r"^```[\w-]*\s*\n?|\n?```\s*$")
# A bracketed list without nested brackets: a trace's line numbers.
_LIST = re.compile(r"\[[^\[\]]*\]")


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


def _prediction(block: str, side: str, how: list[str]) -> Extraction:
    """An output (right side) or input (left side) read from a completed assertion: the
    whole block, else its last ``assert`` line (a model that repeats the program first),
    else a one-line block as it is (a bare value or call)."""
    found = _assertion_side(block, side)
    if found is not None:
        return Extraction(found.strip(), (*how, f"{side} side of the assertion"))
    asserts = [line for line in block.splitlines() if line.lstrip().startswith("assert ")]
    if asserts:
        found = _assertion_side(asserts[-1].strip(), side)
        if found is not None:
            return Extraction(found.strip(), (*how, f"{side} side of the last assert line"))
        return Extraction(block, tuple(how), failure="assertion")
    if len(block.splitlines()) > 1:
        return Extraction(block, tuple(how), failure="no_assertion")
    return Extraction(block, (*how, "the block as it is"))


def _trace_list(block: str, how: list[str]) -> Extraction:
    """A full trace: the block when it is one list (however it wraps), else the last
    bracketed list in it (a model that explains before answering); the judge parses it."""
    if block.startswith("[") and block.endswith("]"):
        return Extraction(" ".join(block.split()), (*how, "the block as a list"))
    found = _LIST.findall(block)
    if found:
        return Extraction(" ".join(found[-1].split()), (*how, "last bracketed list"))
    return Extraction(block, tuple(how), failure="no_list")


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
        return _prediction(block, "right" if kind == "output" else "left", how)
    if kind == "trace":
        return _trace_list(block, how)
    raise ValueError(f"no question kind {kind!r}")
