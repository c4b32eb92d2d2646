"""Reading the answer out of a response: the text of its last ``[ANSWER]`` block, read
by its kind's reader (``execlens.tasks.kinds``).

String and ``ast`` work only -- nothing a model wrote is evaluated.  What comes out is
what the generic judges read: ``YES``/``NO``, a line (text or number), ``value; type``
or ``Nil``, an output value (the right side of a completed assertion), an input call
(its left side) or a full trace (a list of line numbers, on one line or spread over
several).
"""

from __future__ import annotations

import re

from execlens.tasks.kinds import get_kind
from execlens.tasks.prompts import ANSWER_CLOSE, ANSWER_OPEN, Extraction

__all__ = ["answer_block", "extract_runtime"]

_OPEN, _CLOSE = ANSWER_OPEN, ANSWER_CLOSE
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


def extract_runtime(raw: str, kind: str) -> Extraction:
    """The answer to a ``kind`` question in ``raw`` (``failure`` says why there is none)."""
    how: list[str] = []
    block = answer_block(raw, how)
    if block is None:
        return Extraction("", tuple(how), failure="no_answer_block")
    if not block:
        return Extraction("", tuple(how), failure="empty")
    try:
        reader = get_kind(kind).read_answer
    except KeyError:
        raise ValueError(f"no question kind {kind!r}") from None
    return reader(block, how)
