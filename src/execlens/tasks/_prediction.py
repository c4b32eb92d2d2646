"""Prediction questions from benchmark rows: a function, a call, its output literal.

CRUXEval's and LiveCodeBench's rows (``code``, ``input``, ``output``) ask output and
input prediction; as :class:`~execlens.tasks.Task` such a question holds

* ``program``: the module a child executes -- an optional ``prelude`` (LiveCodeBench's
  import block) then ``code``; the prelude is kept in ``meta["prelude"]`` so the code
  can be told apart (:func:`prediction_code`, :func:`with_prelude`);
* ``reference``: the output literal's text (``"[(4, 1)]"``);
* ``call``: the reference call's text, ``f(<input>)``, or the row's own call when its
  input is one (LiveCodeBench: ``"countPairs(nums=[1, 2])"``);
* ``input``: the row's input text as given (CRUXEval's argument list ``"'abc', 2"``,
  which its official script pastes into ``f(...)``);
* ``function``: the function the call names (``"f"`` by default).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from execlens.tasks._model import Task, TaskError

__all__ = [
    "ProblemError",
    "input_is_call",
    "prediction_code",
    "prediction_task",
    "prediction_task_from_record",
    "with_prelude",
]

_PREDICTION_KINDS = ("output", "input")
_FIELDS = ("code", "input", "output")


class ProblemError(TaskError):
    """A benchmark record that cannot be judged (a missing or ill-typed field)."""


def prediction_task(
    *,
    id: str,
    code: str,
    input: str,
    output: str,
    kind: str = "output",
    function: str = "f",
    call: str | None = None,
    prelude: str = "",
    source: str = "",
) -> Task:
    """An output- (default) or input-prediction question about ``function`` in ``code``.

    ``call`` defaults to ``f"{function}({input})"`` (``input`` is an argument list);
    pass it when the input is a full call.  ``prelude`` runs before ``code``.
    """
    if kind not in _PREDICTION_KINDS:
        raise TaskError(f"a prediction task is 'output' or 'input', got {kind!r}")
    return Task(
        kind=kind,
        program=f"{prelude}\n{code}" if prelude else code,
        reference=output,
        function=function,
        call=call if call is not None else f"{function}({input})",
        id=id,
        source=source,
        input=input,
        meta={"prelude": prelude} if prelude else {},
    )


def input_is_call(record: Mapping[str, Any]) -> bool:
    """Whether a row's ``input`` is a full call of its ``function_name`` (LiveCodeBench's
    rows) rather than an argument list (CRUXEval's)."""
    name = record.get("function_name")
    return bool(name) and str(record.get("input", "")).lstrip().startswith(f"{name}(")


def prediction_task_from_record(
    record: Mapping[str, Any],
    *,
    kind: str = "output",
    id_key: str = "id",
    call: bool = False,
    prelude: str = "",
    source: str = "",
) -> Task:
    """The question a row with ``code``, ``input``, ``output`` and an id asks.

    ``function`` is the row's ``function_name``, else ``"f"``; with ``call`` the row's
    ``input`` is the full reference call.  Raises :class:`ProblemError` naming the
    missing or ill-typed field.
    """
    for key in (id_key, *_FIELDS):
        if key not in record:
            raise ProblemError(f"record lacks the field {key!r}: {sorted(record)[:8]}")
        if not isinstance(record[key], str):
            raise ProblemError(
                f"record field {key!r} must be a string, got {type(record[key]).__name__}"
            )
    return prediction_task(
        id=record[id_key],
        code=record["code"],
        input=record["input"],
        output=record["output"],
        kind=kind,
        function=str(record.get("function_name") or "f"),
        call=record["input"] if call else None,
        prelude=prelude,
        source=source,
    )


def prediction_code(task: Task) -> str:
    """The task's code without its prelude (``meta["prelude"]``)."""
    prelude = (task.meta or {}).get("prelude") or ""
    if prelude and task.program.startswith(prelude + "\n"):
        return task.program[len(prelude) + 1 :]
    return task.program


def with_prelude(task: Task, prelude: str) -> Task:
    """The task with ``prelude`` in front of its code instead of the prelude it has."""
    if ((task.meta or {}).get("prelude") or "") == prelude:
        return task
    code = prediction_code(task)
    meta = {k: v for k, v in (task.meta or {}).items() if k != "prelude"}
    if prelude:
        meta["prelude"] = prelude
    return replace(task, program=f"{prelude}\n{code}" if prelude else code, meta=meta)
