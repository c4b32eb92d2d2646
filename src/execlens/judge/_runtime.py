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
  (:func:`judge_output_literal`); with CodeI/O's ``tolerant`` comparison, the extracted
  JSON value (:func:`judge_output_tolerant`);
* input: one call ``f(<literals>)`` of the task's function; with ``tolerant``, the
  extracted keyword dict.  :func:`plan_input` is the one input-prediction judge: the
  strict scorer, the task judges (rewards, bench/runtime) and CodeI/O verification in
  synthesis all plan through it.
"""

from __future__ import annotations

import json
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
    ParsedCall,
    decode,
    envelope_type_key,
    literal_fingerprint,
    parse_call,
    parse_literal,
    parse_state_value,
    quick_literal_equal,
    strict_equal,
    texts_equal,
    type_names,
    values_equal,
)

if TYPE_CHECKING:
    from execlens.engine import Engine, Job, Limits, Outcome

__all__ = [
    "compare_values",
    "judge_coverage",
    "judge_input",
    "judge_output",
    "judge_output_literal",
    "judge_output_tolerant",
    "judge_path",
    "judge_state",
    "judge_state_value",
    "plan_input",
    "returned_verdict",
    "run_plan",
    "tolerant_match",
]

#: ``Job.origin`` of a job that runs its program alone on literal arguments (an answered
#: call): such jobs of one program are one author's code, and may share a child.
PROGRAM_ORIGIN = "the program"

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
    raise AnswerParseError("no_match", "the answer names no line (a number, -1, or a line's text)")


def judge_path(
    reference: Sequence[int], answer: str | int | Sequence[int], *, code: str | None = None
) -> Verdict:
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
        name,
        name.rsplit(".", 1)[-1],
    )


def _typed(type_text: str, envelope: Mapping[str, Any]) -> bool:
    return type_text in type_names(*envelope_type_key(envelope))


def judge_state_value(
    reference: Sequence[Mapping[str, Any]], value_text: str | None, type_text: str | None = None
) -> Verdict:
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
        return _wrong(
            "nil", "answered Nil, the variable has a value", answer="Nil", expected_types=expected
        )
    kind = _type_text(type_text) if type_text is not None else None
    data: dict[str, Any] = {
        "answer": value_text,
        "answer_type_text": kind,
        "expected_types": expected,
    }
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
            return Verdict.failing(
                VerdictStatus.REFERENCE_ERROR,
                "no_output",
                f"the run ended {reference.get('status')}, with no value",
            )
        data = {"answer": text[:300], "expected_exception": raised}
        if not _DOTTED.match(text):
            return _unparseable(
                "format", "the run raised: answer the exception's class name", **data
            )
        if text.rsplit(".", 1)[-1] == raised.rsplit(".", 1)[-1]:
            return Verdict.passing(**data)
        return _wrong("exception", **data)
    envelope = reference.get("value") if "status" in reference else reference
    if not isinstance(envelope, Mapping):
        return Verdict.failing(
            VerdictStatus.REFERENCE_ERROR, "no_output", "the reference holds no value envelope"
        )
    try:
        value = parse_state_value(text)
    except (AnswerParseError, SyntaxError, ValueError, RecursionError) as exc:
        return _parse_failure(exc, answer=text[:300])
    expected = decode(dict(envelope))
    if strict_equal(value, expected):
        return Verdict.passing(answer=text[:300])
    if values_equal(value, expected, "python"):
        return _wrong(
            "type_mismatch", "equal under Python ==, but not of the same types", answer=text[:300]
        )
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
    return Verdict.failing(
        VerdictStatus.REFERENCE_ERROR,
        error.kind,
        f"the reference output is not a literal: {error.message}",
    )


def compare_values(predicted: Any, reference: Any) -> Verdict:
    """Type-strict comparison of two host values (already decoded / parsed): the one
    rule of the strict output and input judges."""
    if strict_equal(predicted, reference):
        return Verdict.passing()
    if values_equal(predicted, reference, "python"):
        return _wrong("type_mismatch", "equal under Python ==, but not of the same types")
    return _wrong("value", "a different value")


_UNPARSED = object()


def judge_output_literal(
    reference: str, answer: str, *, allow_json: bool = False, expected: Any = _UNPARSED
) -> Verdict:
    """Output prediction against an output literal's text (CRUXEval-style tasks): the
    answer must be a literal (``allow_json``: JSON spellings too), compared type-strictly
    in the host; no code runs.  ``expected``: the reference already parsed."""
    parsed_here = expected is _UNPARSED
    if parsed_here:
        expected = _reference_literal(reference, True)
        if isinstance(expected, AnswerParseError):
            return _bad_reference(expected)
        if len(answer) >= _QUICK_FROM:  # a long answer: compared as text where it can be
            same = texts_equal(answer, reference)
            if same is not None:
                return Verdict.passing() if same else _wrong("value", "a different value")
    try:
        predicted = parse_literal(answer, allow_json=allow_json)
    except AnswerParseError as error:
        return _unparseable(error.kind, error.message)
    if len(answer) >= _QUICK_FROM:  # a long answer: decided at C speed where it can be
        kept = _reference_fingerprint(reference) if parsed_here else None
        quick = quick_literal_equal(predicted, expected, kept)
        if quick is not None:
            return Verdict.passing() if quick else _wrong("value", "a different value")
    return compare_values(predicted, expected)


#: Answers at least this long are compared through ``quick_literal_equal`` first (the
#: fast reader's threshold: the rule is the same, only the walk over the values is not).
_QUICK_FROM = 2_000


@lru_cache(maxsize=1024)
def _reference_fingerprint(text: str) -> bytes | None:
    """The fingerprint of the reference parsed from ``text``, kept per text (rows repeat)."""
    return literal_fingerprint(_reference_literal(text, True))


def tolerant_match(got: Any, reference: Any) -> bool:
    """CodeI/O's pass rule: equal JSON text, or ``tolerant`` equality (ANCHORS §4)."""
    try:
        if json.dumps(got) == json.dumps(reference):
            return True
    except (TypeError, ValueError):
        return False
    return values_equal(got, reference, mode="tolerant")


def judge_output_tolerant(reference: Any, answer: Any) -> Verdict:
    """CodeI/O output prediction: ``answer`` is the value extracted from the response (its
    JSON ``output`` field), compared with the JSON ``reference`` by
    :func:`tolerant_match`; no code runs."""
    if tolerant_match(answer, reference):
        return Verdict.passing()
    return _wrong("value", "a different value")


# The program of every tolerant (CodeI/O) input check: the task's program travels as
# data and is compiled and run inside the call, in the job's own module (``__main__``:
# what it defines pickles, for multiprocessing), so the checks of many functions share
# one program and travel to the engine together.  They share no process: each job's
# origin is its function's code, and the engine gives every origin a child of its own
# (the 1-3 inputs of one function may share one).  The return value goes back JSON
# round-tripped as CodeI/O compares it (tuples become lists, int keys strings), or as
# its repr when it is not JSON; the comparison itself happens in the host.
_JSON_CALL_DRIVER = '''
def __judge_json_call__(code, function, given):
    """function(**given) of `code` (positional when `given` is not a dict); its JSON."""
    import json as _json
    namespace = globals()
    exec(compile(code, "<program>", "exec"), namespace)
    if function not in namespace:
        raise NameError(f"name {function!r} is not defined")
    result = (namespace[function](**given) if isinstance(given, dict)
              else namespace[function](given))
    try:
        return {"output": _json.loads(_json.dumps(result, allow_nan=False)), "json_ok": True}
    except Exception:
        return {"output": repr(result)[:2000], "json_ok": False}
'''


def _json_text(value: Any) -> str:
    try:
        return json.dumps(value)
    except (TypeError, ValueError):
        return repr(value)


def _call_job(
    program: str, function: str, args: Any, kwargs: Any, limits: Limits | None, compare: str
) -> Job:
    """The engine job of a predicted call: the program's own function on the answered
    arguments (``exact``), or the shared JSON driver calling it (``tolerant``: keyword
    arguments, else the one positional argument)."""
    from execlens.engine import Job

    if compare == "tolerant":
        given = args[0] if args else kwargs
        # No limits of its own: the engine's (synthesis runs CodeI/O's 5 s there).
        return Job(
            program=_JSON_CALL_DRIVER,
            entry_point="__judge_json_call__",
            kwargs={"code": program, "function": function, "given": given},
            limits=limits,
            origin=("code", program),
        )
    # The answer is data (literal arguments): every answered call of this task runs the
    # task's program alone, one origin, so a batch of answers may share a child.
    return Job(
        program=program,
        entry_point=function,
        args=args,
        kwargs=kwargs,
        limits=limits or JUDGE_LIMITS,
        origin=PROGRAM_ORIGIN,
    )


def _failed_run(outcome: Outcome) -> Verdict:
    """A run that did not return: the judges' failure verdict, keeping the engine's status
    and its untruncated message (CodeI/O's feedback quotes them whole)."""
    verdict = failure_verdict(outcome)
    data = {"engine_status": outcome.status.value, "message": outcome.message or ""}
    if outcome.exception is not None:
        data["exception_message"] = outcome.exception.message or ""
    return Verdict(False, verdict.status, verdict.reason, verdict.detail, data)


def returned_verdict(outcome: Outcome, expected: Any, compare: str = "exact") -> Verdict:
    """The verdict of a predicted call's run: what it returned (an envelope, decoded here,
    in the host) compared with ``expected`` under ``compare``.

    ``tolerant`` (CodeI/O): the JSON form the driver returned must pass
    :func:`tolerant_match`; a mismatch keeps that form as text in ``data["returned"]``
    (its repr when not JSON), and a failed run its status and message, for feedback.
    """
    if not outcome.ok:
        return _failed_run(outcome) if compare == "tolerant" else failure_verdict(outcome)
    try:
        returned = outcome.decoded()
    except Exception as exc:  # noqa: BLE001 - a malformed envelope is the engine's fault
        return Verdict.failing(
            VerdictStatus.SANDBOX_ERROR, "decode", f"could not decode the returned value: {exc}"
        )
    if compare != "tolerant":
        return compare_values(returned, expected)
    probe = returned if isinstance(returned, Mapping) else {}
    got, json_ok = probe.get("output"), bool(probe.get("json_ok"))
    if json_ok and tolerant_match(got, expected):
        return Verdict.passing()
    return _wrong(
        "value" if json_ok else "not_json",
        "a different value",
        returned=_json_text(got) if json_ok else str(got),
    )


def plan_input(
    program: str,
    function: str,
    reference: Any,
    answer: Any,
    *,
    limits: Limits | None = None,
    compare: str = "exact",
    allow_json: bool = False,
) -> JudgePlan:
    """Input prediction, the one judge of it: the answered call becomes one engine job
    running ``function`` of ``program``, and what it returns is compared with the
    reference in the host (:func:`returned_verdict`).

    ``compare="exact"``: ``answer`` must be one call of ``function`` with literal arguments
    (text); ``reference`` is an output envelope, a runtime output reference, or an output
    literal's text (parsed, ``allow_json`` as the strict scorer reads it; a reference
    that is no literal is a ``reference_error`` whatever the answer).
    ``compare="tolerant"`` (CodeI/O): ``answer`` is the extracted input, a keyword dict
    (anything else is passed as the one positional argument) or a parsed call (a reward's
    text answer: its arguments), and ``reference`` the JSON output.
    """
    if compare == "tolerant":
        args: tuple[Any, ...] = (answer,)
        kwargs: Mapping[str, Any] = {}
        if isinstance(answer, ParsedCall):  # a call read from text: its own arguments
            args, kwargs = answer.args, answer.kwargs
        elif isinstance(answer, Mapping):
            args, kwargs = (), answer
        return JudgePlan(
            [_call_job(program, function, args, kwargs, limits, compare)],
            lambda outcomes: returned_verdict(outcomes[0], reference, compare),
        )
    if isinstance(reference, str):
        expected = _reference_literal(reference, allow_json)
        if isinstance(expected, AnswerParseError):
            return JudgePlan.done(_bad_reference(expected))
    else:
        envelope = reference.get("value") if "status" in reference else reference
        if not isinstance(envelope, Mapping):
            return JudgePlan.done(
                Verdict.failing(
                    VerdictStatus.REFERENCE_ERROR,
                    "no_output",
                    "the reference holds no value envelope",
                )
            )
        expected = decode(dict(envelope))
    try:
        call = parse_call(str(answer), name=function)
    except AnswerParseError as exc:
        return JudgePlan.done(_unparseable(exc.kind, exc.message))
    job = _call_job(program, function, call.args, call.kwargs, limits, compare)
    return JudgePlan([job], lambda outcomes: returned_verdict(outcomes[0], expected, compare))


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


def judge_input(
    program: str,
    function: str,
    reference: Mapping[str, Any],
    answer: str,
    *,
    engine: Engine | None = None,
    limits: Limits | None = None,
) -> Verdict:
    """:func:`plan_input`, run: one engine job (a one-server engine when none is given)."""
    return run_plan(plan_input(program, function, reference, answer, limits=limits), engine)
