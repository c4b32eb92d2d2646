"""The strict judge of full-trace answers: the executed lines, in order, as integers.

An answer is a Python list (or tuple) of line numbers, parsed as data
(:func:`~execlens.values.parse_literal`): ``[2, 3, 2, 4]``, however it is spaced.  It
passes iff it equals the reference sequence exactly.  Unlike CoCoNUT's official match
(string equality with ``"[2, 3, 2, 4]"``), formatting never decides a verdict; unlike a
similarity score, nothing short of the whole sequence passes.

Every wrong answer carries its **step credit** in ``data["step_credit"]``: the length
of the longest common *prefix* of answer and reference divided by the longer of the two
lengths.  A step counts only when every step before it was right too -- a trace is a
chain, and a line guessed right after a wrong branch is luck -- and the denominator is
the longer list, so padding an answer never earns more: appending to an answer can at
best keep its prefix and always grows the denominator once past the reference's length.
Credit is 1.0 only for the exact sequence.  The rewards use it for partial credit
(``execlens.rewards.Shaping(step_credit=True)``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from execlens.judge._verdict import Verdict, VerdictStatus
from execlens.values import AnswerParseError, parse_literal

__all__ = ["judge_trace", "parse_trace_answer", "step_credit"]


def parse_trace_answer(answer: str | Sequence[int]) -> list[int]:
    """The line numbers of ``answer``; :class:`~execlens.values.AnswerParseError` when it
    is not a list or tuple of integers (bools are not line numbers)."""
    if isinstance(answer, str):
        value: Any = parse_literal(answer.strip(), allow_json=False)
    else:
        value = answer
    if not isinstance(value, (list, tuple)):
        raise AnswerParseError(
            "type", f"expected a list of line numbers, got {type(value).__name__}"
        )
    if not all(type(n) is int for n in value):
        raise AnswerParseError("type", "every item of a trace must be a line number")
    return list(value)


def step_credit(predicted: Sequence[int], reference: Sequence[int]) -> float:
    """Common-prefix length over the longer length (see the module docstring); 1.0 for
    two empty sequences."""
    longest = max(len(predicted), len(reference))
    if longest == 0:
        return 1.0
    prefix = 0
    for mine, true in zip(predicted, reference):
        if mine != true:
            break
        prefix += 1
    return prefix / longest


def judge_trace(reference: Sequence[int], answer: str | Sequence[int]) -> Verdict:
    """Exact match of the executed-line sequence; a wrong answer's ``step_credit`` and
    the first step where it went wrong (``first_wrong_step``, 0-indexed) are kept."""
    try:
        predicted = parse_trace_answer(answer)
    except AnswerParseError as exc:
        return Verdict.failing(VerdictStatus.UNPARSEABLE, exc.kind, str(exc)[:300])
    expected = [int(n) for n in reference]
    if predicted == expected:
        return Verdict.passing(step_credit=1.0)
    credit = step_credit(predicted, expected)
    first = next(
        (i for i, (a, b) in enumerate(zip(predicted, expected)) if a != b),
        min(len(predicted), len(expected)),
    )
    reason = (
        "length"
        if predicted[: len(expected)] == expected or expected[: len(predicted)] == predicted
        else "steps"
    )
    return Verdict.failing(
        VerdictStatus.WRONG,
        reason,
        f"{len(predicted)} steps answered, {len(expected)} executed; "
        f"first difference at step {first + 1}",
        step_credit=round(credit, 6),
        first_wrong_step=first,
    )
