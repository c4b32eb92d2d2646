"""Building a task's truth from its runs: the jobs of a ``tasks.TruthRun`` and their verdict.

A task whose reference is a :class:`~execlens.tasks.TruthRun` is run as the run says:

* ``trace`` kind: one tracing job of the program's call (the exact tracer); the truth is
  the executed lines (``tasks.trace_reference``), none when the run recorded no full
  trace (it failed, or was cut short); with ``TruthRun(coverage=True)`` a coverage
  capture instead, the truth the sorted lines that ran (none only when the run recorded
  nothing: a timeout, a crash -- a call that raised keeps the lines run before it);
* any other kind: one plain run of the call per hash seed; the truth is the returned
  value's envelope, none when the first run fails or another disagrees with it.

These are plain functions over outcomes, so the same jobs serve a benchmark's
``prepare`` (``execlens.bench`` batches and caches them) and a scoring plan that must
build the truth itself (:class:`~execlens.judge.TaskScorer`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from execlens.judge._outcomes import failure_verdict
from execlens.judge._verdict import Verdict, VerdictStatus
from execlens.tasks import NoTruth, TruthRun

if TYPE_CHECKING:
    from execlens.engine import Job, Outcome

__all__ = ["no_truth_verdict", "truth_from_runs", "truth_jobs"]

_COUNTS = {2: "two", 3: "three"}


def no_truth_verdict(missing: NoTruth) -> Verdict:
    """The verdict of every answer to a task with no truth."""
    return Verdict.failing(VerdictStatus.REFERENCE_ERROR, "no_truth", missing.reason)


def _run_of(task: Any) -> TruthRun:
    run = task.reference
    if not isinstance(run, TruthRun):
        raise TypeError(f"task {task.id!r} has no truth to build")
    if not task.call:
        raise ValueError(f"task {task.id!r} has no call to run for its truth")
    if run.coverage and task.kind != "trace":
        raise ValueError(f"task {task.id!r}: a coverage truth run is for trace tasks only")
    return run


def truth_jobs(task: Any) -> list[Job]:
    """The engine jobs building the truth of ``task`` (its reference a ``TruthRun``)."""
    run = _run_of(task)
    if task.kind == "trace":
        from execlens.trace import TraceRequest, trace_job

        options: dict[str, Any] = {"engine_limits": run.limits} if run.limits else {}
        if run.coverage:
            options["capture"] = "coverage"
        return [
            trace_job(TraceRequest(program=task.program, call=task.call, hash_seed=seed, **options))
            for seed in run.seeds
        ]
    from execlens.engine import Job

    return [
        Job(program=task.program, call=task.call, hash_seed=seed, limits=run.limits)
        for seed in run.seeds
    ]


def _traced(task: Any, run: TruthRun, outcomes: Sequence[Outcome]) -> Any:
    from execlens.tasks import trace_reference
    from execlens.trace import TraceRequest, trace_from_outcome

    mode = TraceRequest(program=task.program).mode
    lines = []
    for outcome in outcomes:
        trace = trace_from_outcome(outcome, mode)
        if run.coverage:
            if not trace.recorded:
                return NoTruth(f"the run recorded no coverage ({trace.message or trace.status})")
            lines.append([line + 1 for line in trace.coverage])
            continue
        found = trace_reference(trace) if trace.recorded else None
        if found is None:
            cut = ", truncated" if trace.truncated else ""
            return NoTruth(f"the run recorded no full trace ({trace.status}{cut})")
        lines.append(found)
    if any(other != lines[0] for other in lines[1:]):
        return NoTruth(_disagree(run.seeds))
    return lines[0]


def _disagree(seeds: Sequence[int]) -> str:
    count = _COUNTS.get(len(seeds), str(len(seeds)))
    named = " and ".join(map(str, seeds))
    return f"nondeterministic: {count} runs (hash seeds {named}) disagree"


def truth_from_runs(task: Any, outcomes: Sequence[Outcome]) -> Any:
    """The truth the outcomes of :func:`truth_jobs` give -- executed lines (``trace``) or a
    value envelope -- or the :class:`~execlens.tasks.NoTruth` saying why there is none."""
    run = _run_of(task)
    if len(outcomes) != len(run.seeds):
        raise ValueError(f"expected {len(run.seeds)} truth runs, got {len(outcomes)}")
    if task.kind == "trace":
        return _traced(task, run, outcomes)
    first = outcomes[0]
    if not first.ok:
        return NoTruth(f"{run.subject} fails here: {failure_verdict(first).detail}")
    if any(
        not other.ok
        or json.dumps(other.value, sort_keys=True) != json.dumps(first.value, sort_keys=True)
        for other in outcomes[1:]
    ):
        return NoTruth(_disagree(run.seeds))
    return first.value
