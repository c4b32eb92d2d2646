"""The optional format reward: is there an answer, in the asked-for form?

Well-formed means the completion put its answer inside ``[ANSWER]`` … ``[/ANSWER]`` and
that answer parses as its kind requires (a literal, one literal-argument call of the
task's function, YES/NO, a line number or a line's text, a non-empty state).  Whether it
is *right* is the correctness reward's business; this one only parses, never runs code.
"""

from __future__ import annotations

import re

from execlens.rewards._extract import extract_answer, select_answer_text
from execlens.rewards._task import RewardTask
from execlens.values import AnswerParseError, parse_call, parse_literal

__all__ = ["well_formed"]

_COVERAGE_WORDS = frozenset({"YES", "NO", "TRUE", "FALSE"})


def _parses(task: RewardTask, answer: str) -> bool:
    text = answer.strip()
    if not text:
        return False
    try:
        if task.kind == "output":
            parse_literal(text)
        elif task.kind == "input":
            parse_call(text, name=task.function)
        elif task.kind == "coverage":
            return text.rstrip(".").strip().upper() in _COVERAGE_WORDS
        elif task.kind == "path":
            return bool(re.fullmatch(r"[+-]?\d+", text)) or any(
                line.strip() == text for line in task.program.splitlines())
    except (AnswerParseError, SyntaxError, ValueError, RecursionError):
        return False
    return True


def well_formed(task: RewardTask, completion: str, *, answer_format: str = "tagged") -> bool:
    """Whether ``completion`` answers in a parseable form: inside ``[ANSWER]`` tags
    (``tagged``), or on its first line (``first_line``, for direct prompts)."""
    if answer_format != "tagged":
        text = select_answer_text(completion, answer_format)
        return _parses(task, extract_answer(text, task.kind).text)
    extracted = extract_answer(completion, task.kind)
    return extracted.tagged and _parses(task, extracted.text)
