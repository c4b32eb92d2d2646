"""Coverage / path / state / output (and, when asked, full-trace) tasks with ground truth,
for any program and input.

Ground truth comes from traces (``execlens.trace``).  The generator itself works on
traces it is given; :func:`build_tasks` can also run the tracer itself (it imports
``execlens.trace`` only then).

Selections:

* ``"reval"``: REval's question sites (last statement of each basic block, variables
  there) — every (line, var) yields a coverage, a path and a state task, as in REval;
* ``"given"``: only the questions a dataset ships (DREval_tasks.jsonl); runs without
  questions get just their output task;
* ``"balanced"``: REval's sites, with coverage questions sampled so that executed and
  not-executed lines are equally many over the whole build (a constant answer scores
  50 %); path tasks for the executed lines kept, state tasks for each of their variables.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from typing import Any

from execlens.tasks._lines import candidate_lines
from execlens.tasks._model import KINDS, RuntimeTask, task_id
from execlens.tasks._sources import RuntimeProgram
from execlens.tasks.kinds import QuestionKind
from execlens.tasks.kinds import kinds as registered

__all__ = [
    "SELECTIONS",
    "build_kind_names",
    "default_kind_names",
    "build_tasks",
    "failed_runs",
    "tasks_for_trace",
    "trace_from_record",
    "trace_programs",
    "trace_record",
]

SELECTIONS = ("reval", "given", "balanced")


def _sites(program: RuntimeProgram, selection: str) -> list[tuple[int, str | None]]:
    if selection == "given":
        return list(program.questions or ())
    pairs: list[tuple[int, str | None]] = []
    for site in candidate_lines(program.program):
        if site.variables:
            pairs.extend((site.line, var) for var in site.variables)
        else:
            pairs.append((site.line, None))
    return pairs


def _code_line(program: RuntimeProgram, line: int) -> str:
    lines = program.program.splitlines()
    return lines[line - 1].strip() if 0 < line <= len(lines) else ""


def _task(
    program: RuntimeProgram,
    trace: Any,
    kind: str,
    selection: str,
    line: int | None = None,
    var: str | None = None,
    reference: Any = None,
) -> RuntimeTask:
    ident = task_id(
        program.source, program.problem_id, program.input_index, kind, line, var, trace.mode
    )
    return RuntimeTask(
        id=ident,
        kind=kind,
        source=program.source,
        problem_id=program.problem_id,
        input_index=program.input_index,
        program=program.program,
        call=program.call,
        reference=reference,
        mode=trace.mode,
        selection=selection,
        line=line,
        code_line=_code_line(program, line) if line else None,
        var=var,
        test=program.test,
        test_class=program.test_class,
        meta=dict(program.meta),
    )


def _site_kinds(kinds: Sequence[str]) -> list[QuestionKind]:
    return [k for k in registered() if k.scope == "site" and k.name in kinds]


def _run_tasks(
    program: RuntimeProgram, trace: Any, selection: str, kinds: Sequence[str]
) -> list[RuntimeTask]:
    """The run questions of one run (``output``, then ``trace``, then plug-ins')."""
    tasks = []
    for kind in registered():
        if kind.scope != "run" or kind.name not in kinds:
            continue
        reference = kind.run_reference(program, trace)
        if reference is not None:
            tasks.append(_task(program, trace, kind.name, selection, reference=reference))
    return tasks


def tasks_for_trace(
    program: RuntimeProgram, trace: Any, selection: str = "reval", kinds: Sequence[str] = KINDS
) -> list[RuntimeTask]:
    """All tasks of one run under ``"reval"``/``"given"`` selection (no sampling)."""
    if selection not in ("reval", "given"):
        raise ValueError("tasks_for_trace takes 'reval' or 'given'; balanced needs a build")
    tasks: list[RuntimeTask] = []
    site_kinds = _site_kinds(kinds)
    for line, var in _sites(program, selection):
        for kind in site_kinds:
            if kind.per_variable and var is None:
                continue
            reference = kind.site_reference(trace, line, var)
            tasks.append(_task(program, trace, kind.name, selection, line, var, reference))
    return tasks + _run_tasks(program, trace, selection, kinds)


def _rank(ident: str, seed: int) -> str:
    return hashlib.sha256(f"{seed}:{ident}".encode()).hexdigest()


def _balanced_site(
    program: RuntimeProgram,
    trace: Any,
    line: int,
    variables: tuple[str, ...],
    site_kinds: Sequence[QuestionKind],
) -> list[RuntimeTask]:
    """A sampled line's questions: one per kind (``path`` only when the line ran), one per
    variable for ``per_variable`` kinds."""
    tasks = []
    for kind in site_kinds:
        if kind.executed_only and not trace.covered(line):
            continue
        for var in variables if kind.per_variable else (None,):
            reference = kind.site_reference(trace, line, var)
            tasks.append(_task(program, trace, kind.name, "balanced", line, var, reference))
    return tasks


def _balanced(
    pairs: Iterable[tuple[RuntimeProgram, Any]], kinds: Sequence[str], seed: int
) -> list[RuntimeTask]:
    executed: list[tuple[RuntimeProgram, Any, int, tuple[str, ...]]] = []
    skipped: list[tuple[RuntimeProgram, Any, int, tuple[str, ...]]] = []
    outputs: list[RuntimeTask] = []
    for program, trace in pairs:
        for site in candidate_lines(program.program):
            entry = (program, trace, site.line, site.variables)
            (executed if trace.covered(site.line) else skipped).append(entry)
        outputs.extend(_run_tasks(program, trace, "balanced", kinds))
    keep = min(len(executed), len(skipped))

    def sample(entries: list[Any]) -> list[Any]:
        ranked = sorted(
            entries,
            key=lambda e: _rank(f"{e[0].source}|{e[0].problem_id}|{e[0].input_index}|{e[2]}", seed),
        )
        return ranked[:keep]

    tasks: list[RuntimeTask] = []
    site_kinds = _site_kinds(kinds)
    for program, trace, line, variables in sorted(
        sample(executed) + sample(skipped),
        key=lambda e: (e[0].source, e[0].problem_id, e[0].input_index, e[2]),
    ):
        tasks.extend(_balanced_site(program, trace, line, variables, site_kinds))
    return tasks + outputs


def build_kind_names() -> tuple[str, ...]:
    """Every kind ``build_tasks`` builds from traces: the built-in ``site`` and ``run``
    kinds and the plug-ins' (``execlens.tasks.kinds``)."""
    return tuple(k.name for k in registered() if k.scope in ("site", "run"))


def default_kind_names() -> tuple[str, ...]:
    """The buildable kinds built when none are named: :data:`KINDS` and the plug-ins'
    ``default`` ones."""
    return tuple(k.name for k in registered() if k.scope in ("site", "run") and k.default)


def trace_programs(
    programs: Sequence[RuntimeProgram],
    engine: Any,
    *,
    mode: str = "exact",
    limits: Any = None,
    wall_time: float | None = None,
    progress: bool = False,
) -> list[Any]:
    """Trace every program without a ``skip_reason`` (in order); one ``Trace`` each.

    ``limits`` is a ``TraceLimits`` (recording caps); ``wall_time`` replaces the tracer's
    default wall-clock limit per run (30 s).
    """
    from dataclasses import replace

    from execlens.trace import TraceLimits, trace_job, trace_many

    requests = []
    for program in programs:
        if program.skip_reason is not None:
            continue
        request = program.trace_request(mode=mode, limits=limits or TraceLimits(), tag=program)
        if wall_time is not None:
            base = trace_job(request).limits
            assert base is not None  # a tracing job always carries the tracer's limits
            request = replace(request, engine_limits=base.with_(wall_time=wall_time))
        requests.append(request)
    return list(trace_many(engine, requests, progress=progress))


def trace_record(trace: Any) -> dict[str, Any]:
    """A trace as a JSON record (without its tag), for resumable storage."""
    return {
        "mode": trace.mode,
        "status": trace.status,
        "output_envelope": trace.output_envelope,
        "exception_type": trace.exception_type,
        "exception_message": trace.exception_message,
        "stdout": trace.stdout,
        "truncated": trace.truncated,
        "message": trace.message,
        "data": trace.data,
    }


def trace_from_record(record: dict[str, Any], tag: Any = None) -> Any:
    """The ``Trace`` a :func:`trace_record` holds (queries answer exactly as before)."""
    from execlens.trace import Trace

    return Trace(tag=tag, **record)


def failed_runs(programs: Sequence[RuntimeProgram], traces: Sequence[Any]) -> dict[str, list[str]]:
    """Runs that recorded nothing (timeout, crash, limit), by status: ``{status: [run]}``.

    ``traces`` pairs with ``programs`` (``None`` for a skipped program).  These runs
    yield no tasks; a caller names them rather than losing them silently.
    """
    failed: dict[str, list[str]] = {}
    for program, trace in zip(programs, traces):
        if program.skip_reason is None and (trace is None or not trace.recorded):
            status = trace.status if trace is not None else "missing"
            failed.setdefault(status, []).append(f"{program.problem_id}#{program.input_index}")
    return failed


def build_tasks(
    programs: Sequence[RuntimeProgram],
    *,
    traces: Sequence[Any] | None = None,
    engine: Any = None,
    mode: str = "exact",
    selection: str = "reval",
    kinds: Sequence[str] = KINDS,
    seed: int = 0,
    progress: bool = False,
    limits: Any = None,
    wall_time: float | None = None,
) -> list[RuntimeTask]:
    """Tasks with ground truth for every program run.

    Give ``traces`` (one per program, in order), or an ``engine`` to trace with
    (``mode`` = ``"exact"`` or ``"frame-blind"``, alias ``"reval"``; ``limits`` and
    ``wall_time`` as in :func:`trace_programs`).  Programs with a ``skip_reason`` and runs
    that recorded nothing (timeouts, crashes) yield no tasks.  The result is the same
    for the same inputs and ``seed``, whatever the order of ``programs``' runs.
    """
    if selection not in SELECTIONS:
        raise ValueError(f"unknown selection {selection!r}: use one of {SELECTIONS}")
    buildable = build_kind_names()
    unknown = set(kinds) - set(buildable)
    if unknown:
        raise ValueError(f"unknown task kinds {sorted(unknown)}: use {buildable}")
    runnable = [p for p in programs if p.skip_reason is None]
    if traces is None:
        if engine is None:
            raise ValueError("build_tasks needs traces or an engine to trace with")
        traced = trace_programs(
            runnable, engine, mode=mode, limits=limits, wall_time=wall_time, progress=progress
        )
        pairs = [(t.tag, t) for t in traced]
    else:
        if len(traces) != len(programs):
            raise ValueError("give one trace per program")
        pairs = [(p, t) for p, t in zip(programs, traces) if p.skip_reason is None]
    pairs = [(p, t) for p, t in pairs if t is not None and t.recorded]
    if selection == "balanced":
        return _balanced(pairs, kinds, seed)
    tasks: list[RuntimeTask] = []
    for program, trace in pairs:
        tasks.extend(tasks_for_trace(program, trace, selection, kinds))
    return tasks
