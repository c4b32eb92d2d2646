"""Verify predictions: output predictions compared in the host (``tolerant``), input
predictions re-executed in the engine, batched per function.

Labels and feedback follow CodeI/O: ``success``, ``mismatch``, ``no answer``,
``exception`` (with its type), ``timeout``; an engine failure other than an exception
(crash, memory, output flood) is its own named label.  ``sys.exit`` and ``os._exit``
end the call before a value exists, so they are never a success.

Reasoning models: a response is read with :func:`execlens.tasks.prompts.read_response`
and the answer is extracted from its *final part* only -- a draft JSON inside a
``<think>`` block or harmony's analysis channel is never verified.  :func:`read_turn`
stores a model turn with its reasoning and final text apart; :func:`turn_response` reads
one back.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from execlens.synth._extract import extract_answer
from execlens.synth._programs import needs_numpy, probe_job
from execlens.tasks.prompts import ModelResponse, read_response
from execlens.values import values_equal

if TYPE_CHECKING:
    from execlens.engine import Engine, Limits, Outcome

__all__ = ["Check", "read_turn", "turn_response", "verdict_from_outcome", "verify_checks"]


def read_turn(completion: Any) -> dict[str, Any]:
    """A model turn as a record stores it: the raw ``text`` beside its read parts
    (``final``, ``reasoning``, ``finish_reason``, ``status``, ``shape``).  ``completion``
    is an ``execlens.models`` completion (text, separate reasoning, finish reason)."""
    response = read_response(completion.text, reasoning=completion.reasoning,
                             finish_reason=completion.finish_reason)
    return {"text": completion.text, **response.to_record()}


def turn_response(turn: dict[str, Any]) -> ModelResponse:
    """The read response of a stored turn (a turn stored before reasoning was read apart
    is read from its text now)."""
    if "status" in turn:
        return ModelResponse.from_record(turn)
    return read_response(turn.get("text"), reasoning=turn.get("reasoning"),
                         finish_reason=turn.get("finish_reason"))


def _final(text: str | None) -> str | None:
    """The final part of a response text (the whole text when it holds no thought)."""
    return read_response(text).final if text else text


@dataclass(frozen=True)
class Check:
    """One prediction to verify: ``kind`` ``"o"`` or ``"i"``, the response text (its
    final part is read: a ``<think>`` block or analysis channel in it is skipped), the
    function and its ground-truth pair."""

    kind: str
    text: str | None
    refcode: str
    input: Any
    output: Any


def _dumps(value: Any) -> str:
    return json.dumps(value)


def matches(got: Any, reference: Any) -> bool:
    """CodeI/O's pass rule: equal JSON text, or ``tolerant`` equality."""
    try:
        if _dumps(got) == _dumps(reference):
            return True
    except (TypeError, ValueError):
        return False
    return values_equal(got, reference, mode="tolerant")


def _timeout_message(seconds: float) -> str:
    shown = int(seconds) if float(seconds).is_integer() else seconds
    return (f"Code execution time exceeded the limit of {shown} seconds; may have "
            "encountered an infinite loop.")


def _output_verdict(check: Check) -> dict[str, Any]:
    answer = extract_answer(_final(check.text), "output")
    if not answer.ok:
        return {"label": "no answer", "message": answer.message}
    if matches(answer.value, check.output):
        return {"label": "success", "message": "Correct output!"}
    return {"label": "mismatch", "message": (
        f"[Mismatch] Your output is not correct! Given the input {_safe_dumps(check.input)}, "
        f"your predicted output is {_safe_dumps(answer.value)} which is wrong!")}


def _safe_dumps(value: Any) -> str:
    try:
        return _dumps(value)
    except (TypeError, ValueError):
        return repr(value)


def verdict_from_outcome(outcome: Outcome, predicted: Any, reference: Any,
                         seconds: float) -> dict[str, Any]:
    """The verdict of one re-executed input prediction."""
    from execlens.engine import Status

    if outcome.status is Status.OK:
        probe = outcome.decoded() or {}
        got = probe.get("output")
        if probe.get("json_ok") and matches(got, reference):
            return {"label": "success", "message": "Feasible input!"}
        return {"label": "mismatch", "message": (
            f"[Mismatch] Your input is not feasible! Given the output {_safe_dumps(reference)}, "
            f"your predicted input is {_safe_dumps(predicted)}, which actually gets a wrong "
            f"output as {got if not probe.get('json_ok') else _safe_dumps(got)}")}
    if outcome.status is Status.TIMEOUT:
        return {"label": "timeout", "message": _timeout_message(seconds)}
    if outcome.status is Status.EXCEPTION and outcome.exception is not None:
        return {"label": "exception", "exception_type": outcome.exception.type,
                "message": outcome.exception.message or outcome.exception.type}
    return {"label": outcome.status.value,
            "message": outcome.message or f"Code execution ended abnormally ({outcome.status.value})."}


def verify_checks(engine: Engine, checks: Sequence[Check], *, limits: Limits | None = None,
                  batch_size: int = 32) -> list[dict[str, Any]]:
    """Verdicts for ``checks``, in order.  Input predictions run as
    ``main_solution(**input)`` behind the import prefix, grouped by function so that
    consecutive inputs of one function share a forked child."""
    verdicts: list[dict[str, Any] | None] = [None] * len(checks)
    runs: list[tuple[int, Any]] = []
    for index, check in enumerate(checks):
        if check.kind == "o":
            verdicts[index] = _output_verdict(check)
            continue
        answer = extract_answer(_final(check.text), "input")
        if not answer.ok:
            verdicts[index] = {"label": "no answer", "message": answer.message}
        else:
            runs.append((index, answer.value))
    # One shared probe program for every function (two: with and without numpy), so
    # inputs of many functions share one forked child; sorted to keep the two apart.
    runs.sort(key=lambda item: needs_numpy(checks[item[0]].refcode))
    jobs = [probe_job(checks[i].refcode, value, limits) for i, value in runs]
    if not jobs:  # output predictions only: no engine needed
        return [v for v in verdicts if v is not None]
    seconds = (limits or engine.limits).wall_time
    for (index, value), outcome in zip(runs, engine.map(jobs, batch_size=batch_size)):
        verdicts[index] = verdict_from_outcome(outcome, value, checks[index].output, seconds)
    return [v for v in verdicts if v is not None]
