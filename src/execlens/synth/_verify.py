"""Verify predictions as CodeI/O does, on the one judge path.

A prediction is an ``execlens.tasks.Task`` (:func:`prediction_task`): kind ``output`` or
``input``, the function behind CodeI/O's import prefix, its ground-truth pair and
``compare="tolerant"`` (CodeI/O's rule: equal JSON text or close floats).  The answer is
extracted from the response's final part here (CodeI/O's JSON extraction), then judged
by ``execlens.judge.plan_task`` like every other task: output predictions compared in the
host, input predictions re-executed in the engine through the judge's
:class:`~execlens.judge.Executor`: the checks of several functions travel together, but
each function's code runs in a forked child of its own (its inputs may share it; no two
functions ever share a process, so one cannot change another's verdict).
The verdicts become CodeI/O's labels and feedback texts (ANCHORS §4): ``success``,
``mismatch``, ``no answer``, ``exception`` (with its type), ``timeout``; an engine failure
other than an exception (crash, memory, output flood) is its own named label.
``sys.exit`` and ``os._exit`` end the call before a value exists, so they are never a
success.

Reasoning models: a response is read with :func:`execlens.tasks.prompts.read_response`
and the answer is extracted from its *final part* only -- a draft JSON inside a
``<think>`` block or harmony's analysis channel is never verified.  :func:`read_turn`
stores a model turn with its reasoning and final text apart; :func:`turn_response` reads
one back.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from execlens.synth._extract import extract_answer
from execlens.synth._programs import codeio_program
from execlens.tasks import Task
from execlens.tasks.prompts import ModelResponse, read_response

if TYPE_CHECKING:
    from execlens.engine import Engine, Limits
    from execlens.judge import EngineGetter, JudgePlan, JudgePool, Verdict

__all__ = [
    "prediction_task",
    "read_turn",
    "turn_response",
    "verify_predictions",
    "verify_shard",
]

#: CodeI/O's entry point: every unified-format function is ``main_solution``.
FUNCTION = "main_solution"
_KINDS = {"o": "output", "i": "input"}


def read_turn(completion: Any) -> dict[str, Any]:
    """A model turn as a record stores it: the raw ``text`` beside its read parts
    (``final``, ``reasoning``, ``finish_reason``, ``status``, ``shape``).  ``completion``
    is an ``execlens.models`` completion (text, separate reasoning, finish reason)."""
    response = read_response(
        completion.text, reasoning=completion.reasoning, finish_reason=completion.finish_reason
    )
    return {"text": completion.text, **response.to_record()}


def turn_response(turn: dict[str, Any]) -> ModelResponse:
    """The read response of a stored turn (a turn stored before reasoning was read apart
    is read from its text now)."""
    if "status" in turn:
        return ModelResponse.from_record(turn)
    return read_response(
        turn.get("text"), reasoning=turn.get("reasoning"), finish_reason=turn.get("finish_reason")
    )


def _final(text: str | None) -> str | None:
    """The final part of a response text (the whole text when it holds no thought)."""
    return read_response(text).final if text else text


def prediction_task(kind: str, refcode: str, given: Any, output: Any) -> Task:
    """The task of one CodeI/O prediction: ``kind`` ``"o"``/``"i"`` (or ``output``/
    ``input``), the function's code (run behind CodeI/O's import prefix), its ground-truth
    input (keyword dict) and JSON output, compared with CodeI/O's ``tolerant`` rule."""
    return Task(
        kind=_KINDS.get(kind, kind),
        program=codeio_program(refcode),
        function=FUNCTION,
        input=given,
        reference=output,
        compare="tolerant",
    )


def _safe_dumps(value: Any) -> str:
    try:
        return json.dumps(value)
    except (TypeError, ValueError):
        return repr(value)


def _timeout_message(seconds: float) -> str:
    shown = int(seconds) if float(seconds).is_integer() else seconds
    return (
        f"Code execution time exceeded the limit of {shown} seconds; may have "
        "encountered an infinite loop."
    )


def feedback(task: Task, predicted: Any, verdict: Verdict, seconds: float) -> dict[str, Any]:
    """CodeI/O's label and feedback message for the judge's verdict on ``predicted``
    (the answer extracted from the response); ``seconds``: the wall limit a timeout hit."""
    if verdict.passed:
        return {
            "label": "success",
            "message": "Correct output!" if task.kind == "output" else "Feasible input!",
        }
    if task.kind == "output":
        given = _safe_dumps(task.input)
        return {
            "label": "mismatch",
            "message": (
                f"[Mismatch] Your output is not correct! Given the input {given}, "
                f"your predicted output is {_safe_dumps(predicted)} which is wrong!"
            ),
        }
    data = verdict.data
    if "returned" in data:
        return {
            "label": "mismatch",
            "message": (
                f"[Mismatch] Your input is not feasible! Given the output "
                f"{_safe_dumps(task.reference)}, your predicted input is {_safe_dumps(predicted)}, "
                f"which actually gets a wrong output as {data['returned']}"
            ),
        }
    status = data.get("engine_status")
    if status is None:  # the judge's own failure (an undecodable result, a bug): named
        return {"label": verdict.status.value, "message": verdict.detail or verdict.label}
    if status == "timeout":
        return {"label": "timeout", "message": _timeout_message(seconds)}
    if status == "exception" and verdict.reason:
        return {
            "label": "exception",
            "exception_type": verdict.reason,
            "message": data.get("exception_message") or verdict.reason,
        }
    return {
        "label": status,
        "message": data.get("message") or f"Code execution ended abnormally ({status}).",
    }


def verify_predictions(
    engine: Engine | None,
    tasks: Sequence[Task],
    texts: Sequence[str | None],
    *,
    limits: Limits | None = None,
    batch_size: int = 32,
    judges: JudgePool | None = None,
) -> list[dict[str, Any]]:
    """CodeI/O verdicts (label, message, exception type) of ``texts`` answering ``tasks``
    (:func:`prediction_task`), in order.

    Each answer is extracted from its text's final part and judged by
    ``execlens.judge.plan_task``; the input predictions' jobs run through the judge's
    :class:`~execlens.judge.Executor` in work items of up to ``batch_size`` checks, each
    item one engine request (their jobs share the judge's driver program whatever the
    function), each function's checks in a child of their own.  ``limits``: those of
    every run (default: the engine's).  ``engine`` may be None when no answer needs a
    run (output predictions only).

    ``judges``: judge workers (a :class:`~execlens.judge.JudgePool` whose engine factory
    makes the engine to verify on; ``engine`` is then unused): the checks of one
    function stay together, each worker verifies its shard exactly as this function
    does in process, and this process only deals shards and gathers verdicts.
    """
    from execlens.judge import Executor, plan_task

    if len(tasks) != len(texts):
        raise ValueError(f"{len(tasks)} tasks but {len(texts)} responses")
    if judges is not None:
        return _verify_pooled(judges, tasks, texts, limits, batch_size)
    verdicts: list[dict[str, Any] | None] = [None] * len(tasks)
    pending: list[tuple[int, Any, JudgePlan]] = []
    for index, (task, text) in enumerate(zip(tasks, texts)):
        answer = extract_answer(_final(text), task.kind)
        if not answer.ok:
            verdicts[index] = {"label": "no answer", "message": answer.message}
            continue
        plan = plan_task(task, answer.value)
        if limits is not None:
            plan.jobs = [replace(job, limits=limits) for job in plan.jobs]
        pending.append((index, answer.value, plan))
    seconds = (limits or engine.limits).wall_time if engine is not None else 0.0
    runs = [item for item in pending if item[2].jobs]
    for index, value, plan in pending:
        if not plan.jobs:
            verdicts[index] = feedback(tasks[index], value, plan.verdict(), seconds)
    if runs:
        if engine is None:
            raise ValueError("input predictions are re-executed: pass an engine")
        # probe=None: every batch runs with the checks' own limits, as CodeI/O's
        # checker gives each input its full time.
        items = [
            (start, [job for _, _, plan in runs[start : start + batch_size] for job in plan.jobs])
            for start in range(0, len(runs), max(1, batch_size))
        ]
        with Executor(engine, probe=None) as executor:
            for start, outcomes in executor.run(items):
                offset = 0
                for index, value, plan in runs[start : start + batch_size]:
                    got = outcomes[offset : offset + len(plan.jobs)]
                    offset += len(plan.jobs)
                    verdicts[index] = feedback(tasks[index], value, plan.verdict(got), seconds)
    return [v for v in verdicts if v is not None]


def verify_shard(
    get_engine: EngineGetter,
    shard: tuple[list[Task], list[str | None], Limits | None, int],
) -> list[dict[str, Any]]:
    """A judge worker's part of :func:`verify_predictions`: its shard on its engine
    (made only when an answer there needs a run)."""
    tasks, texts, limits, batch_size = shard
    needs = any(task.kind == "input" for task in tasks)
    return verify_predictions(
        get_engine() if needs else None, tasks, texts, limits=limits, batch_size=batch_size
    )


def _verify_pooled(
    judges: JudgePool,
    tasks: Sequence[Task],
    texts: Sequence[str | None],
    limits: Limits | None,
    batch_size: int,
) -> list[dict[str, Any]]:
    from execlens.judge import pack, shard_sizes

    groups: dict[str, list[int]] = {}
    for index, task in enumerate(tasks):
        groups.setdefault(task.program, []).append(index)
    per_item = judges.per_item or 0.001
    count = shard_sizes([len(g) for g in groups.values()], judges.processes, per_item)
    parts = pack(list(groups.values()), count)
    shards = [
        ([tasks[i] for i in part], [texts[i] for i in part], limits, batch_size) for part in parts
    ]
    verdicts: list[Any] = [None] * len(tasks)
    for part, judged in zip(parts, judges.map(verify_shard, shards, items=len(tasks))):
        for index, verdict in zip(part, judged):
            verdicts[index] = verdict
    return verdicts
