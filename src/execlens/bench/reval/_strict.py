"""Strict REval judging: answers are data, truth is the corrected tracer's, nothing skipped.

Against official judging:

* Coverage: an ambiguous, empty or unfinished answer is wrong (officially it reads as NO,
  which is right for every line that did not run).
* Path: next lines *within the frame* (a ``return`` is followed by -1, not by the caller's
  next line), from the ``exact`` tracer.
* State: ``value; type`` with the value parsed as a literal or a value constructor with
  literal arguments (:func:`parse_state_value`) -- never executed; the stated type must
  name the accepted value's type; the value must equal it type-strictly (``1`` is not
  ``1.0`` nor ``True``; numpy scalars and arrays compare as the Python values they hold).
* Output: each ``??`` of the question must be filled with a literal, the rest of the
  snippet unchanged (``self.assertX`` may be spelt ``assertX``); each literal is compared
  in the host with the values the masked expression really took (HumanEval: the value the
  call returned), type-strictly; for an equality assertion whose mask hides the expected
  literal, the value of the expression under test is accepted too (``assertAlmostEqual``
  within its own tolerance).  Nothing the model wrote runs, so ``f(x) == f(x)``,
  ``assertTrue(True)``-style fillings and copied expressions fail.

Every question counts: an unreadable answer is a failure with a named reason.  Coverage,
path and state are the generic judges (``execlens.judge.judge_coverage``, ``judge_path``,
``judge_state_value``) applied to REval's reading of the answer.
"""

from __future__ import annotations

import ast
from dataclasses import replace
from typing import Any

from execlens.judge import (
    Verdict,
    VerdictStatus,
    judge_coverage,
    judge_path,
    judge_state_value,
)
from execlens.tasks.prompts import NIL, StateAnswer
from execlens.values import AnswerParseError, decode, parse_state_value, strict_equal

from ._extract import (
    extract_reval_coverage,
    extract_reval_output,
    extract_reval_path,
    extract_reval_state,
)
from ._masks import MASK, MaskError, answer_mask_nodes
from ._records import MaskTruth, OutputTruth, QuestionTruth, RevalContext

__all__ = ["strict_coverage", "strict_output", "strict_path", "strict_state"]


def _wrong(reason: str, detail: str = "", **data: Any) -> Verdict:
    return Verdict.failing(VerdictStatus.WRONG, reason, detail, **data)


def _unparseable(reason: str, detail: str = "", **data: Any) -> Verdict:
    return Verdict.failing(VerdictStatus.UNPARSEABLE, reason, detail, **data)


def strict_coverage(raw: str, style: str, truth: QuestionTruth) -> Verdict:
    """YES/NO against the exact tracer's coverage; no default for unreadable answers."""
    extraction = extract_reval_coverage(raw, style)
    if extraction.failure:
        return _unparseable(extraction.failure, "no clear YES or NO", expected=truth.covered)
    return judge_coverage(truth.covered, bool(extraction.value))


def strict_path(raw: str, style: str, context: RevalContext, truth: QuestionTruth) -> Verdict:
    """The answered line (by its text, or -1) against the next lines within the frame."""
    extraction = extract_reval_path(raw, style, code=context.code)
    lines = list(extraction.value) if isinstance(extraction.value, list) else [-2]
    if lines == [-2]:
        return _unparseable(
            extraction.failure or "no_match",
            "the answer names no line of the code",
            answer=lines,
            text=extraction.text,
            expected=list(truth.next_lines),
        )
    verdict = judge_path(truth.next_lines, lines)
    return replace(
        verdict, data={"answer": lines, "text": extraction.text, "expected": list(truth.next_lines)}
    )


def strict_state(raw: str, style: str, truth: QuestionTruth) -> Verdict:
    """``Nil`` or ``value; type`` against the exact tracer's values, parsed, type-strict
    (the generic state judge on REval's reading of the answer)."""
    extraction = extract_reval_state(raw, style)
    answer = extraction.value
    if answer is NIL:
        return judge_state_value(truth.state, None)
    if not isinstance(answer, StateAnswer):
        return _unparseable(
            extraction.failure or "format",
            "expected `value; type` or Nil",
            expected_types=list(truth.state_types) or ["Nil"],
        )
    return judge_state_value(truth.state, answer.value, answer.type)


def _close(value: Any, expected: Any, mask: MaskTruth) -> bool:
    numbers = (int, float)
    if (
        not (isinstance(value, numbers) and isinstance(expected, numbers))
        or isinstance(value, bool)
        or isinstance(expected, bool)
    ):
        return False
    difference = abs(value - expected)
    if mask.delta is not None:
        return difference <= mask.delta
    return round(difference, mask.places if mask.places is not None else 7) == 0


def _mask_correct(value: Any, mask: MaskTruth) -> bool:
    if mask.hidden and all(strict_equal(value, decode(e)) for e in mask.hidden):
        return True
    if mask.other:
        others = [decode(e) for e in mask.other]
        if all(strict_equal(value, o) for o in others):
            return True
        if mask.assertion.startswith("assertAlmostEqual") and all(
            _close(value, o, mask) for o in others
        ):
            return True
    if mask.assertion.startswith("assertAlmostEqual") and mask.hidden:
        return all(_close(value, decode(e), mask) for e in mask.hidden)
    return False


def strict_output(
    raw: str, style: str, context: RevalContext, truth: OutputTruth | None
) -> Verdict:
    """Literal fillings of every ``??``, compared with the values the masks really take."""
    extraction = extract_reval_output(raw, style, question=context.template)
    snippet = extraction.value if isinstance(extraction.value, str) else ""
    data: dict[str, Any] = {"snippet": snippet[:2000]}
    if truth is None or truth.error or not truth.masks:
        reason = truth.error if truth is not None and truth.error else "no recorded values"
        return Verdict.failing(VerdictStatus.REFERENCE_ERROR, "truth", reason, **data)
    if extraction.failure == "unfinished_cot":
        return _unparseable("unfinished_cot", **data)
    if MASK in snippet:
        return _unparseable("unfilled_mask", "the completed snippet still has a ??", **data)
    try:
        nodes = answer_mask_nodes(context.template, snippet)
    except MaskError as error:
        return _unparseable(error.reason, error.message, **data)
    if len(nodes) != len(truth.masks):
        return Verdict.failing(
            VerdictStatus.REFERENCE_ERROR,
            "masks",
            f"{len(nodes)} masks answered, {len(truth.masks)} recorded",
            **data,
        )
    fillings = []
    for node in nodes:
        text = ast.unparse(node)
        try:
            fillings.append(parse_state_value(text))
        except (AnswerParseError, SyntaxError, ValueError, RecursionError) as exc:
            kind = exc.kind if isinstance(exc, AnswerParseError) else "syntax"
            return _unparseable(kind, f"a ?? is filled with {text[:100]!r}, not a literal", **data)
    wrong = [
        i
        for i, (value, mask) in enumerate(zip(fillings, truth.masks))
        if not _mask_correct(value, mask)
    ]
    data["wrong_masks"] = wrong
    if not wrong:
        return Verdict.passing(**data)
    return _wrong("value", f"{len(wrong)} of {len(truth.masks)} masks wrong", **data)
