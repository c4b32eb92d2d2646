"""The optional format reward: is there an answer, in the asked-for form?

Well-formed means the completion put its answer inside ``[ANSWER]`` … ``[/ANSWER]`` *in
its final part* (a reasoning model's thought does not count: a completion cut off while
thinking, or answering only inside its thought, is not well-formed), gave one answer (no
hedging: see :mod:`execlens.rewards._extract`), and that answer parses as its kind
requires (a literal, one literal-argument call of the task's function, YES/NO, a line
number or a line's text, a non-empty state).  Whether it is *right* is the correctness
reward's business; this one only parses, never runs code.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from execlens.rewards._extract import extract_answer
from execlens.tasks import Task
from execlens.values import AnswerParseError, parse_call, parse_literal

if TYPE_CHECKING:
    from execlens.tasks.prompts import ReasoningMode

__all__ = ["well_formed"]

_COVERAGE_WORDS = frozenset({"YES", "NO", "TRUE", "FALSE"})


def _parses(task: Task, answer: str) -> bool:
    text = answer.strip()
    if not text:
        return False
    try:
        if task.kind == "output" and isinstance(task.reference, str):
            parse_literal(text)  # a runtime output may also be an exception's name
        elif task.kind == "input":
            parse_call(text, name=task.entry)
        elif task.kind == "coverage":
            return text.rstrip(".").strip().upper() in _COVERAGE_WORDS
        elif task.kind == "path":
            return bool(re.fullmatch(r"[+-]?\d+", text)) or any(
                line.strip() == text for line in task.program.splitlines()
            )
    except (AnswerParseError, SyntaxError, ValueError, RecursionError):
        return False
    return True


def well_formed(
    task: Task,
    completion: Any,
    *,
    answer_format: str = "tagged",
    finish_reason: str | None = None,
    reasoning: ReasoningMode = "auto",
) -> bool:
    """Whether ``completion`` (text, messages or a read response) answers in a parseable
    form in its final part: inside ``[ANSWER]`` tags (``tagged``), or on the final part's
    first line (``first_line``, for direct prompts)."""
    extracted = extract_answer(
        completion,
        task.kind,
        answer_format=answer_format,
        finish_reason=finish_reason,
        reasoning=reasoning,
    )
    if extracted.problem or (answer_format == "tagged" and not extracted.tagged):
        return False
    return _parses(task, extracted.text)
