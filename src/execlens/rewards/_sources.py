"""Reward tasks from what execlens already has: benchmark problems, runtime tasks, CodeI/O.

* :func:`tasks_from_prediction`: a CRUXEval / LiveCodeBench problem (a prediction task,
  :func:`execlens.tasks.prediction_task`) as output- and input-prediction reward tasks;
* :func:`tasks_from_runtime`: an :class:`execlens.tasks.Task` built from a trace (``execlens tasks
  build``) as a coverage / path / state / output / trace task (or a plug-in kind's);
* :func:`tasks_from_codeio`: a CodeI/O record (``refcode``, ``funcname``, ``ios``) as
  output- and input-prediction tasks on ``main_solution(**input)``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from execlens.tasks import Task, TaskError

__all__ = ["tasks_from_codeio", "tasks_from_prediction", "tasks_from_runtime"]

PREDICTION_KINDS = ("output", "input")


def _runtime_kinds() -> tuple[str, ...]:
    """The kinds a trace builds (``execlens.tasks.build_kind_names``: the built-in site
    and run kinds and plug-ins'); input prediction comes from problems instead."""
    from execlens.tasks import build_kind_names

    return build_kind_names()


def _check_kinds(kinds: Iterable[str]) -> tuple[str, ...]:
    chosen = tuple(kinds)
    bad = [k for k in chosen if k not in PREDICTION_KINDS]
    if bad or not chosen:
        raise TaskError(f"prediction kinds are {PREDICTION_KINDS}, got {list(chosen)}")
    return chosen


def tasks_from_prediction(
    task: Task, *, kinds: Iterable[str] = PREDICTION_KINDS, source: str | None = None
) -> list[Task]:
    """Output- and/or input-prediction reward tasks for one benchmark problem.

    ``task`` is the problem as a prediction task (its ``call``, ``reference`` literal and
    ``function``); ``source`` (default: the task's) prefixes the ids.  An input task keeps
    the reference call out of ``call`` (the prompt would show it) and in
    ``meta["input"]``.
    """
    name = source or task.source
    if not name:
        raise TaskError(f"task {task.id!r} names no source; pass source=")
    if not task.call:
        raise TaskError(f"task {task.id!r} has no reference call to ask about")
    _check_literal(task)
    out = []
    for kind in _check_kinds(kinds):
        out.append(
            Task(
                kind=kind,
                program=task.program,
                reference=task.reference,
                function=task.entry,
                call=task.call if kind == "output" else None,
                id=f"{name}/{task.id}/{kind}",
                source=name,
                meta={**_prelude_of(task), **({"input": task.call} if kind == "input" else {})},
            )
        )
    return out


def _check_literal(task: Task) -> None:
    """A :class:`TaskError` unless the task's reference output is a literal: a reward
    judges every answer against it, and a reference that is none would make each of its
    verdicts a ``reference_error`` (nothing is exported that cannot be judged)."""
    from execlens.values import AnswerParseError, parse_literal

    reference = task.reference
    try:
        parse_literal(reference if isinstance(reference, str) else repr(reference))
    except AnswerParseError as exc:
        raise TaskError(
            f"task {task.id!r}: its output {str(reference)[:80]!r} is not a literal "
            f"({exc.kind}); no answer could be judged against it -- fix or drop the record"
        ) from None


def _prelude_of(task: Task) -> dict[str, Any]:
    # The program runs with its prelude (LiveCodeBench's import block); the prompt shows
    # the code without it (``tasks.prediction_code``), so the split must travel along.
    prelude = (task.meta or {}).get("prelude")
    return {"prelude": prelude} if prelude else {}


def tasks_from_runtime(task: Task) -> Task:
    """A runtime task as a reward task (its ground truth, compact: no trace provenance).

    Tasks about a unittest driver (no call) cannot be asked as one call: they raise
    :class:`TaskError`.
    """
    if task.kind not in _runtime_kinds():
        raise TaskError(f"unknown runtime task kind {task.kind!r}")
    if not task.call:
        raise TaskError(f"runtime task {task.id} drives a test class, not one call")
    return Task(
        kind=task.kind,
        program=task.program,
        reference=task.reference,
        call=task.call,
        line=task.line,
        var=task.var,
        id=f"{task.source}/{task.id}",
        source=task.source,
        meta={k: v for k, v in (("code_line", task.code_line),) if v},
    )


def tasks_from_codeio(
    record: Mapping[str, Any],
    *,
    kinds: Iterable[str] = PREDICTION_KINDS,
    source: str = "codeio",
    record_id: str | None = None,
) -> list[Task]:
    """Prediction tasks for each I/O pair of a CodeI/O record, judged by CodeI/O's own
    rule (``compare="tolerant"``: equal JSON or close floats, ANCHORS §4), as synthesis
    verifies the same pairs: the JSON output is the reference (shown as its Python
    literal), the keyword dict the input."""
    try:
        code, pairs = record["refcode"], record["ios"]
    except KeyError as exc:
        raise TaskError(f"a CodeI/O record lacks {exc}") from None
    if not isinstance(code, str):
        raise TaskError(f"a CodeI/O record's 'refcode' must be text, got {type(code).__name__}")
    if not isinstance(pairs, list):
        raise TaskError(
            f"a CodeI/O record's 'ios' must be a list of {{input, output}} pairs, got "
            f"{type(pairs).__name__} {str(pairs)[:40]}"
        )
    name = str(record.get("funcname") or "main_solution")
    rid = record_id or str(record.get("meta", {}).get("msgidx", "")) or "record"
    chosen = _check_kinds(kinds)
    out = []
    for index, pair in enumerate(pairs):
        if not isinstance(pair, Mapping) or not isinstance(pair.get("input"), dict):
            continue  # CodeI/O's inputs are keyword dicts; anything else cannot be asked
        call = f"{name}(**{pair['input']!r})"
        for kind in chosen:
            out.append(
                Task(
                    kind=kind,
                    program=code,
                    reference=pair.get("output"),
                    function=name,
                    call=call if kind == "output" else None,
                    id=f"{source}/{rid}/{index}/{kind}",
                    source=source,
                    meta={"input": call} if kind == "input" else {},
                    input=pair["input"],
                    compare="tolerant",
                )
            )
    return out
