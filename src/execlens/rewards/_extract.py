"""Finding the answer in a completion: strict, and saying when there is none.

A completion may reason first; its answer sits inside ``[ANSWER]`` … ``[/ANSWER]`` (the
CRUXEval convention our exported prompts ask for).  When the tags are there, the answer
is the text of the *last* complete pair; an opened but unclosed ``[ANSWER]`` takes the
rest of the text (a generation stopped at ``[/ANSWER]`` never contains it).  Without
tags the whole completion is the answer -- so post-processed benchmark generations
(``"'abc'"``, ``"f('abc')"``) judge exactly as the strict scorer judges them.

Direct (completion-style) prompts end right where the answer goes (``assert f(3) == ``,
as CRUXEval's direct prompts do before their stop sequence); for those,
:func:`first_line` cuts the completion at its first newline -- the stop a generation
server would apply -- and the judge parses that line as strictly as a tagged answer.

A full assertion ``assert A == B`` is reduced as CRUXEval's post-processing intends: for
output prediction ``B``, for input prediction the call ``A``.
Nothing here decides correctness; the judge parses what this returns as data.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

__all__ = ["ANSWER_CLOSE", "ANSWER_FORMATS", "ANSWER_OPEN", "Extracted", "extract_answer",
           "first_line", "select_answer_text"]

#: How a completion carries its answer: inside tags (chat prompts), or as the first line
#: of a completion of a direct prompt.
ANSWER_FORMATS = ("tagged", "first_line")

ANSWER_OPEN = "[ANSWER]"
ANSWER_CLOSE = "[/ANSWER]"


@dataclass(frozen=True, slots=True)
class Extracted:
    """The answer text, and whether the completion followed the answer format (tags)."""

    text: str
    tagged: bool


def _tagged(completion: str) -> str | None:
    start = completion.rfind(ANSWER_OPEN)
    if start < 0:
        return None
    body = completion[start + len(ANSWER_OPEN):]
    end = body.find(ANSWER_CLOSE)
    return body if end < 0 else body[:end]


def _strip_assertion(text: str, kind: str) -> str:
    """``assert A == B`` -> ``B`` (output kinds) or ``A`` (input); anything else unchanged.

    Read with ``ast`` rather than split at the first ``==`` so that an ``==`` inside a
    string argument does not cut the answer; the sides are returned as source text,
    still to be parsed strictly by the judge.
    """
    stripped = text.strip()
    if not stripped.startswith("assert"):
        return text
    try:
        tree = ast.parse(stripped)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return text
    if (len(tree.body) != 1 or not isinstance(tree.body[0], ast.Assert)
            or tree.body[0].msg is not None):
        return text
    test = tree.body[0].test
    if (not isinstance(test, ast.Compare) or len(test.ops) != 1
            or not isinstance(test.ops[0], ast.Eq)):
        return text
    side = test.comparators[0] if kind in ("output", "output_completion") else test.left
    return ast.get_source_segment(stripped, side) or text


def extract_answer(completion: str, kind: str) -> Extracted:
    """The answer of ``completion`` for a task of ``kind`` (see the module docstring)."""
    inner = _tagged(completion)
    if inner is None:
        return Extracted(completion, tagged=False)
    inner = inner.strip()
    if kind in ("output", "input", "output_completion"):
        inner = _strip_assertion(inner, kind)
    return Extracted(inner, tagged=True)


def first_line(completion: str) -> str:
    """The completion up to its first newline (spaces around it dropped): the answer of a
    direct prompt that ends where the answer goes.  Nothing after the line counts, so
    trailing text can neither help nor hurt; an empty first line is no answer."""
    return completion.split("\n", 1)[0].strip()


def select_answer_text(completion: str, answer_format: str) -> str:
    """The part of ``completion`` holding the answer under ``answer_format`` (one of
    :data:`ANSWER_FORMATS`): the whole text for ``tagged`` (the tags are found later),
    the first line for ``first_line``."""
    if answer_format == "tagged":
        return completion
    if answer_format == "first_line":
        return first_line(completion)
    raise ValueError(f"unknown answer format {answer_format!r}; one of {ANSWER_FORMATS}")
