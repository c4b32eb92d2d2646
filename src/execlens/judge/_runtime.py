"""Generic judges for every task kind: coverage, path, state, output, input.

Each judge takes a task's *reference* (the shapes of ``execlens.tasks.RuntimeTask``) and
a model's *answer*, parses the answer strictly as data and returns a
:class:`~execlens.judge.Verdict`; only input prediction runs code (the program on the
answered arguments, in the engine), so it comes as a plan (:func:`plan_input`) as well as
a one-call form (:func:`judge_input`).  Nothing a model wrote is ever evaluated in the
host.  REval's strict mode, the runtime benchmark and the RL rewards all judge with these.

Answer forms (after any benchmark-specific extraction):

* coverage: ``YES``/``NO`` (``TRUE``/``FALSE``; case and a trailing ``.`` ignored) or a bool;
* path: a line number (1-indexed, ``-1`` = nothing runs next), or several when an answer's
  text matched several lines (any acceptable one is right, as in REval);
* state: ``Nil``, ``value; type`` (the type must name an accepted value's type) or a bare
  ``value``; values as :func:`~execlens.values.parse_state_value` reads them;
* output: a value (same reader), or the exception's class name when the run raised;
  against an output literal's text (CRUXEval-style tasks), a literal only
  (:func:`judge_output_literal`);
* input: one call ``f(<literals>)`` of the task's function.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from execlens.judge._limits import JUDGE_LIMITS
from execlens.judge._outcomes import failure_verdict
from execlens.judge._plan import JudgePlan
from execlens.judge._verdict import Verdict, VerdictStatus
from execlens.values import (
    AnswerParseError,
    OpaqueRecord,
    decode,
    envelope_type_key,
    parse_call,
    parse_literal,
    parse_state_value,
    strict_equal,
    type_names,
    values_equal,
)

if TYPE_CHECKING:
    from execlens.engine import Engine, Job, Limits, Outcome

__all__ = [
    "judge_coverage",
    "judge_input",
    "judge_output",
    "judge_output_literal",
    "judge_path",
    "judge_state",
    "judge_state_value",
    "plan_input",
    "run_plan",
]

_YES = frozenset({"YES", "TRUE"})
_NO = frozenset({"NO", "FALSE"})
_CLASS_TEXT = re.compile(r"^<class '(.*)'>$")
_DOTTED = re.compile(r"^[A-Za-z_][\w.]*$")


def _wrong(reason: str, detail: str = "", **data: Any) -> Verdict:
    return Verdict.failing(VerdictStatus.WRONG, reason, detail, **data)


def _unparseable(reason: str, detail: str = "", **data: Any) -> Verdict:
    return Verdict.failing(VerdictStatus.UNPARSEABLE, reason, detail, **data)


def _parse_failure(exc: Exception, **data: Any) -> Verdict:
    kind = exc.kind if isinstance(exc, AnswerParseError) else "syntax"
    return _unparseable(kind, str(exc)[:300], **data)


# ------------------------------------------------------------------ coverage
def judge_coverage(reference: bool, answer: str | bool) -> Verdict:
    """Is the line executed?  ``answer`` is a bool or ``YES``/``NO`` text; anything else is
    ``unparseable`` (no default answer)."""
    if isinstance(answer, bool):
        said: bool | None = answer
    else:
        word = str(answer).strip().rstrip(".").strip().upper()
        said = True if word in _YES else False if word in _NO else None
    if said is None:
        return _unparseable("format", "expected YES or NO", expected=reference)
    if said == reference:
        return Verdict.passing(answer=said, expected=reference)
    return _wrong("executed" if reference else "not_executed", answer=said, expected=reference)


# ------------------------------------------------------------------ path
def _path_lines(answer: str | int | Sequence[int], code: str | None) -> list[int]:
    if isinstance(answer, bool):
        raise AnswerParseError("type", "a line number, not a bool")
    if isinstance(answer, int):
        return [answer]
    if not isinstance(answer, str):
        lines = list(answer)
        if not lines or not all(isinstance(x, int) and not isinstance(x, bool) for x in lines):
            raise AnswerParseError("type", "expected line numbers")
        return lines
    text = answer.strip()
    if re.fullmatch(r"[+-]?\d+", text):
        return [int(text)]
    if code is not None and text:
        # As REval reads a path answer: the exact stripped line text; duplicates all count.
        found = [n for n, line in enumerate(code.splitlines(), 1) if line.strip() == text]
        if found:
            return found
    raise AnswerParseError("no_match", "the answer names no line (a number, -1, or a line's "
                                       "text)")


def judge_path(reference: Sequence[int], answer: str | int | Sequence[int], *,
               code: str | None = None) -> Verdict:
    """Which line runs next?  ``reference``: the acceptable next lines (``-1``: none).

    ``answer``: a line number, several (a text that matched several lines: any acceptable
    one is right), or text -- a number, or with ``code`` a line's exact stripped text.
    """
    expected = [int(x) for x in reference]
    try:
        lines = _path_lines(answer, code)
    except AnswerParseError as exc:
        return _unparseable(exc.kind, exc.message, expected=expected)
    data: dict[str, Any] = {"answer": lines, "expected": expected}
    if any(line in expected for line in lines):
        return Verdict.passing(**data)
    return _wrong("line", **data)


# ------------------------------------------------------------------ state
def _not_nil(reference: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    return [e for e in reference if e.get("__type__") != "Nil"]


def _type_text(text: str) -> str:
    text = text.strip()
    match = _CLASS_TEXT.match(text)
    return (match.group(1) if match else text).strip().lower()


def _class_match(value_text: str, envelope: Mapping[str, Any]) -> bool:
    """A ``type`` value (a class) answered by its name (``int`` or ``<class 'int'>``);
    class names are case-sensitive."""
    text = value_text.strip()
    match = _CLASS_TEXT.match(text)
    name = match.group(1) if match else text
    expected = decode(dict(envelope))
    return isinstance(expected, OpaqueRecord) and expected.description in (
        name, name.rsplit(".", 1)[-1])


def _typed(type_text: str, envelope: Mapping[str, Any]) -> bool:
    return type_text in type_names(*envelope_type_key(envelope))


def judge_state_value(reference: Sequence[Mapping[str, Any]], value_text: str | None,
                      type_text: str | None = None) -> Verdict:
    """The state judge on an answer already split: ``value_text`` None means ``Nil``.

    ``reference``: the accepted value envelopes (none, or only Nil envelopes, = Nil).
    ``type_text`` (lower-case, as ``float``, ``numpy.matrix``, ``<class 'int'>``) must name
    an accepted value's type when given; the value must equal that value type-strictly.
    """
    accepted = _not_nil(reference)
    expected = [str(e.get("__type__")) for e in accepted] or ["Nil"]
    if value_text is None:
        if not accepted:
            return Verdict.passing(answer="Nil", expected_types=expected)
        return _wrong("nil", "answered Nil, the variable has a value", answer="Nil",
                      expected_types=expected)
    kind = _type_text(type_text) if type_text is not None else None
    data: dict[str, Any] = {"answer": value_text, "answer_type_text": kind,
                            "expected_types": expected}
    if kind is None:
        del data["answer_type_text"]
    if not accepted:
        return _wrong("expected_nil", "the expected answer is Nil", **data)
    if kind == "type":
        if any(_class_match(value_text, e) for e in accepted):
            return Verdict.passing(**data)
        return _wrong("value", **data)
    try:
        value = parse_state_value(value_text)
    except (AnswerParseError, SyntaxError, ValueError, RecursionError) as exc:
        return _parse_failure(exc, **data)
    candidates = [e for e in accepted if kind is None or _typed(kind, e)]
    if any(strict_equal(value, decode(dict(e))) for e in candidates):
        return Verdict.passing(**data)
    return _wrong("value" if candidates else "type", **data)


def judge_state(reference: Sequence[Mapping[str, Any]], answer: str) -> Verdict:
    """A variable's value after a line: ``Nil``, ``value; type`` or a bare ``value``.

    The text is split at its last ``;`` (values may hold ``;`` inside strings); see
    :func:`judge_state_value` for the comparison.
    """
    text = str(answer).strip()
    if not text:
        return _unparseable("empty", "expected `value; type`, a value, or Nil")
    if text == "Nil":
        return judge_state_value(reference, None)
    value_text, sep, type_text = text.rpartition(";")
    if sep and value_text.strip() and type_text.strip():
        try:  # a bare value with a ';' in it (a string) reads whole
            parse_state_value(text)
        except (AnswerParseError, SyntaxError, ValueError, RecursionError):
            return judge_state_value(reference, value_text.strip(), type_text)
    return judge_state_value(reference, text)


# ------------------------------------------------------------------ output
def _exception_name(reference: Mapping[str, Any]) -> str | None:
    if "status" in reference and reference.get("status") != "ok":
        return str(reference.get("exception") or "")
    return None


def judge_output(reference: Mapping[str, Any], answer: str) -> Verdict:
    """The value a run returned.  ``reference``: its envelope, or a runtime task's output
    reference ``{"status", "value", "exception"}``; when the run raised, the answer is
    the exception's class name (``ZeroDivisionError``)."""
    raised = _exception_name(reference)
    text = str(answer).strip()
    if raised is not None:
        if not raised:
            return Verdict.failing(VerdictStatus.REFERENCE_ERROR, "no_output",
                                   f"the run ended {reference.get('status')}, with no value")
        data = {"answer": text[:300], "expected_exception": raised}
        if not _DOTTED.match(text):
            return _unparseable("format", "the run raised: answer the exception's class name",
                                **data)
        if text.rsplit(".", 1)[-1] == raised.rsplit(".", 1)[-1]:
            return Verdict.passing(**data)
        return _wrong("exception", **data)
    envelope = reference.get("value") if "status" in reference else reference
    if not isinstance(envelope, Mapping):
        return Verdict.failing(VerdictStatus.REFERENCE_ERROR, "no_output",
                               "the reference holds no value envelope")
    try:
        value = parse_state_value(text)
    except (AnswerParseError, SyntaxError, ValueError, RecursionError) as exc:
        return _parse_failure(exc, answer=text[:300])
    expected = decode(dict(envelope))
    if strict_equal(value, expected):
        return Verdict.passing(answer=text[:300])
    if values_equal(value, expected, "python"):
        return _wrong("type_mismatch", "equal under Python ==, but not of the same types",
                      answer=text[:300])
    return _wrong("value", answer=text[:300])


# ------------------------------------------------------------------ input
@lru_cache(maxsize=65536)
def _reference_literal(text: str, allow_json: bool) -> Any:
    """An output literal's text as a value, parsed once per text (rows repeat per
    generation); the parse error itself when it is not a literal."""
    try:
        return parse_literal(text, allow_json=allow_json)
    except AnswerParseError as error:
        return error


def _bad_reference(error: AnswerParseError) -> Verdict:
    return Verdict.failing(VerdictStatus.REFERENCE_ERROR, error.kind,
                           f"the reference output is not a literal: {error.message}")


def judge_output_literal(reference: str, answer: str) -> Verdict:
    """Output prediction against an output literal's text (CRUXEval-style tasks): the
    answer must be a literal, compared type-strictly in the host (the strict scorer's
    rule); no code runs."""
    from execlens.judge._strict import StrictScorer

    expected = _reference_literal(reference, True)
    if isinstance(expected, AnswerParseError):
        return _bad_reference(expected)
    return StrictScorer("output").judge_output(answer, expected)


def plan_input(program: str, function: str, reference: Mapping[str, Any] | str, answer: str,
               *, limits: Limits | None = None) -> JudgePlan:
    """Input prediction: ``answer`` must be one call of ``function`` with literal arguments;
    the plan runs ``function`` on them (one engine job) and compares what it returns with
    the ``reference`` -- an output envelope, a runtime output reference, or an output
    literal's text (compared as the strict scorer compares) -- in the host."""
    from execlens.engine import Job

    try:
        call = parse_call(str(answer), name=function)
    except AnswerParseError as exc:
        return JudgePlan.done(_unparseable(exc.kind, exc.message))
    if isinstance(reference, str):
        literal = _reference_literal(reference, False)
        if isinstance(literal, AnswerParseError):
            return JudgePlan.done(_bad_reference(literal))
        envelope: Any = None
    else:
        envelope = reference.get("value") if "status" in reference else reference
        if not isinstance(envelope, Mapping):
            return JudgePlan.done(Verdict.failing(VerdictStatus.REFERENCE_ERROR, "no_output",
                                                  "the reference holds no value envelope"))
    job: Job = Job(program=program, entry_point=function, args=call.args, kwargs=call.kwargs,
                   limits=limits or JUDGE_LIMITS)

    def finish(outcomes: Sequence[Outcome]) -> Verdict:
        outcome = outcomes[0]
        if envelope is None:
            from execlens.judge._strict import StrictScorer

            return StrictScorer.judge_returned(outcome, literal)
        if not outcome.ok:
            return failure_verdict(outcome)
        returned = outcome.decoded()
        expected = decode(dict(envelope))
        if strict_equal(returned, expected):
            return Verdict.passing()
        if values_equal(returned, expected, "python"):
            return _wrong("type_mismatch", "equal under Python ==, but not of the same types")
        return _wrong("value", "a different value")

    return JudgePlan([job], finish)


def run_plan(plan: JudgePlan, engine: Engine | None) -> Verdict:
    """The plan's verdict, running its jobs in ``engine`` (a one-server judging engine is
    started for the call when ``engine`` is None and the plan needs one)."""
    if not plan.jobs:
        return plan.verdict()
    if engine is None:
        from execlens.judge._execute import scoring_engine

        with scoring_engine(workers=1) as own:
            return plan.verdict([own.run(job) for job in plan.jobs])
    return plan.verdict([engine.run(job) for job in plan.jobs])


def judge_input(program: str, function: str, reference: Mapping[str, Any], answer: str, *,
                engine: Engine | None = None, limits: Limits | None = None) -> Verdict:
    """:func:`plan_input`, run: one engine job (a one-server engine when none is given)."""
    return run_plan(plan_input(program, function, reference, answer, limits=limits), engine)
