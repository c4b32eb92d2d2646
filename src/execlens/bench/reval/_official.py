"""REval's official judging (``evaluation.py``), quirks included.

* Coverage: the extracted YES/NO (ambiguous, empty or unfinished → NO) against whether
  the line ran.
* Path: the answer's first line matched to code lines by exact stripped text (-2 when
  none matches); correct iff any matched line is a next line.
* State: ``Nil``, or ``value; type``.  The value text is evaluated, and the type located,
  **inside the engine** exactly as REval's ``_postprocess`` does (:mod:`._child`);
  the host compares the returned envelope with the accepted values by REval's ``_eq``:
  the answered type must be the type of an accepted value and of the parsed value, a
  ``float`` matches within 1e-6, anything else by ``==`` membership (numpy ``allclose``
  when ``==`` is ambiguous).  Both Nil is correct.
* Output: the completed snippet (padded with the question's first lines when shorter) is
  rejected unrun if it contains ``assert True``/``assert False``/``assertTrue(True)``/
  ``assertFalse(False)`` or fewer ``assert`` than the question; otherwise it runs in the
  engine (HumanEval: ``exec`` with the function in scope; ClassEval: as a method of the
  test class after ``setUp``).  It passes iff nothing raises.

Deliberate differences: each check has a wall-time limit (REval has none), and runs in a
fresh child instead of the evaluator process (no state leaks between problems).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from execlens.engine import Job, Limits
from execlens.judge import Verdict, VerdictStatus, failure_verdict
from execlens.tasks.prompts import NIL, StateAnswer
from execlens.values import decode, envelope_type_key

from ._extract import (
    extract_reval_coverage,
    extract_reval_output,
    extract_reval_path,
    extract_reval_state,
)
from ._masks import penalised, reval_answer_method
from ._plan import RevalPlan
from ._records import QuestionTruth, RevalContext
from ._values import reval_contains

if TYPE_CHECKING:
    from execlens.engine import Outcome

__all__ = [
    "OUTPUT_LIMITS",
    "STATE_LIMITS",
    "STATE_PROGRAM",
    "official_coverage",
    "official_output",
    "official_path",
    "official_state",
]

STATE_LIMITS = Limits(wall_time=3.0, memory_mb=1024, output_bytes=1 << 20)
# REval runs output checks with no time limit at all; 10 s is far above any of its programs.
OUTPUT_LIMITS = Limits(wall_time=10.0, memory_mb=1024, output_bytes=4 << 20)
# One program for every state answer, so all of them can share forked children.
STATE_PROGRAM = "from execlens.bench.reval._child import state_answer as __execlens_state__\n"
_CHILD = "__import__('execlens.bench.reval._child', fromlist=['_'])"


def _wrong(reason: str, detail: str = "", **data: Any) -> Verdict:
    return Verdict.failing(VerdictStatus.WRONG, reason, detail, **data)


def _extraction_data(failure: str | None) -> dict[str, Any]:
    return {"extraction": failure} if failure else {}


def official_coverage(raw: str, style: str, truth: QuestionTruth) -> Verdict:
    """REval's coverage verdict: the extracted YES/NO (default NO) equals whether it ran."""
    extraction = extract_reval_coverage(raw, style)
    answer = bool(extraction.value)
    data = {"answer": answer, "expected": truth.covered, **_extraction_data(extraction.failure)}
    if answer == truth.covered:
        return Verdict.passing(**data)
    return _wrong("executed" if truth.covered else "not_executed", **data)


def official_path(raw: str, style: str, context: RevalContext, truth: QuestionTruth) -> Verdict:
    """REval's path verdict: any line matching the answer's text is a next line."""
    extraction = extract_reval_path(raw, style, code=context.code)
    lines = list(extraction.value) if isinstance(extraction.value, list) else [-2]
    data = {
        "answer": lines,
        "text": extraction.text,
        "expected": list(truth.next_lines),
        **_extraction_data(extraction.failure),
    }
    if any(line in truth.next_lines for line in lines):
        return Verdict.passing(**data)
    return _wrong("no_match" if lines == [-2] else "line", **data)


def _type_matches(module: str, name: str, envelope: dict[str, Any]) -> bool:
    expected_module, expected_name = envelope_type_key(envelope)
    return expected_name == name and (expected_module is None or expected_module == module)


def _state_finish(answer: StateAnswer, truth: QuestionTruth, data: dict[str, Any]):  # noqa: ANN202
    def finish(outcomes: Sequence[Outcome]) -> Verdict:
        outcome = outcomes[0]
        if not outcome.ok:
            failed = failure_verdict(outcome)
            return Verdict.failing(failed.status, failed.reason, failed.detail, **data)
        try:
            result = outcome.decoded()
        except Exception as exc:  # noqa: BLE001 - a malformed envelope is the engine's fault
            return Verdict.failing(VerdictStatus.SANDBOX_ERROR, "decode", str(exc), **data)
        if not isinstance(result, tuple) or not result:
            return Verdict.failing(
                VerdictStatus.SANDBOX_ERROR, "result", repr(result)[:200], **data
            )
        if result[0] != "ok":
            return Verdict.failing(
                VerdictStatus.UNPARSEABLE,
                "reval_error",
                str(result[1] if len(result) > 1 else ""),
                **data,
            )
        _, value, module, name, value_has_type, is_class = result
        data["answer_type"] = f"{module}.{name}" if module else name
        if not is_class or not any(_type_matches(module, name, e) for e in truth.state):
            return _wrong("type", "the answered type is not the type of an accepted value", **data)
        if not value_has_type:
            return _wrong("value_type", "the value is not of the answered type", **data)
        actual = [decode(e) for e in truth.state]
        is_float = module == "builtins" and name == "float"
        if reval_contains(value, actual, is_float):
            return Verdict.passing(**data)
        return _wrong("value", **data)

    return finish


def official_state(raw: str, style: str, truth: QuestionTruth) -> RevalPlan:
    """REval's state verdict; needs one engine job when a non-Nil answer meets non-Nil truth."""
    extraction = extract_reval_state(raw, style)
    data: dict[str, Any] = {
        "expected_types": list(truth.state_types) or ["Nil"],
        **_extraction_data(extraction.failure),
    }
    answer = extraction.value
    if answer is None:
        return RevalPlan.done(
            Verdict.failing(
                VerdictStatus.UNPARSEABLE,
                extraction.failure or "error",
                "REval reads this answer as ERROR",
                **data,
            )
        )
    if answer is NIL:
        data["answer"] = "Nil"
        if truth.nil:
            return RevalPlan.done(Verdict.passing(**data))
        return RevalPlan.done(_wrong("nil", "answered Nil, the variable has a value", **data))
    assert isinstance(answer, StateAnswer)
    data.update(answer=answer.value, answer_type_text=answer.type)
    if truth.nil:
        return RevalPlan.done(_wrong("expected_nil", "the expected answer is Nil", **data))
    job = Job(
        program=STATE_PROGRAM,
        entry_point="__execlens_state__",
        args=(answer.value, answer.type),
        limits=STATE_LIMITS,
    )
    return RevalPlan([job], _state_finish(answer, truth, data))


def _output_job(context: RevalContext, snippet: str) -> Job:
    if context.kind == "classeval":
        if not context.test or not context.test_class:
            raise ValueError("a ClassEval output question needs its test source and class")
        method = reval_answer_method(snippet)
        call = (
            f"{_CHILD}.classeval_check(globals(), {context.test!r}, "
            f"{context.test_class!r}, {method!r})"
        )
    else:
        call = f"{_CHILD}.humaneval_check({snippet!r}, {context.entry_point!r}, globals())"
    return Job(program=context.code, call=call, limits=OUTPUT_LIMITS)


def _output_finish(data: dict[str, Any]):  # noqa: ANN202
    def finish(outcomes: Sequence[Outcome]) -> Verdict:
        outcome = outcomes[0]
        if outcome.ok:
            return Verdict.passing(**data)
        if outcome.exception is not None and outcome.exception.type == "AssertionError":
            return Verdict.failing(
                VerdictStatus.WRONG, "assertion", outcome.exception.message[:300], **data
            )
        failed = failure_verdict(outcome)
        return Verdict.failing(failed.status, failed.reason, failed.detail, **data)

    return finish


def official_output(raw: str, style: str, context: RevalContext) -> RevalPlan:
    """REval's output verdict: the padded snippet, unless penalised, must run cleanly."""
    extraction = extract_reval_output(raw, style, question=context.template)
    snippet = extraction.value if isinstance(extraction.value, str) else "assert False"
    data: dict[str, Any] = {"snippet": snippet[:2000], **_extraction_data(extraction.failure)}
    penalty = penalised(snippet, context.template)
    if penalty is not None:
        return RevalPlan.done(_wrong("penalty", penalty, **data))
    return RevalPlan([_output_job(context, snippet)], _output_finish(data))
