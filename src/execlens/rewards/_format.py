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

from typing import TYPE_CHECKING, Any

from execlens.rewards._extract import extract_answer
from execlens.tasks import Task
from execlens.tasks.kinds import get_kind
from execlens.values import AnswerParseError

if TYPE_CHECKING:
    from execlens.tasks.prompts import ReasoningMode

__all__ = ["well_formed"]


def _parses(task: Task, answer: str) -> bool:
    """Whether the answer parses in its kind's form (the kind's ``well_formed``)."""
    text = answer.strip()
    if not text:
        return False
    try:
        return get_kind(task.kind).well_formed(task, text)
    except (AnswerParseError, SyntaxError, ValueError, RecursionError):
        return False


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
