"""The core's strict mode for a benchmark of its own item type: items -> ``Task``, truth
built and cached here, answers judged by ``judge.TaskScorer``.

A benchmark says what its item asks (:meth:`BenchmarkBase.strict_task`: a ``tasks.Task``
whose reference is the truth, a ``tasks.TruthRun`` -- run the task's program and call
under these hash seeds -- or a ``tasks.NoTruth`` with why) and, where its strict mode
reads answers its own way, :meth:`BenchmarkBase.strict_answer`.  The rest is here:

* :func:`prepare_strict` (``BenchmarkBase.prepare``'s default): every ``TruthRun``'s jobs
  batched through the engine once, the truths kept in the one
  :class:`~execlens.bench.TruthCache` (keyed by the task's program, call, kind, seeds and
  limits, the host's Python and the *program* interpreter's fingerprint), so a rerun
  runs nothing; a run that gave no truth is not kept (a timeout on a loaded machine must
  not stick);
* :func:`strict_scorer`: the judge's scorer over the items' tasks, their prepared truth
  where ``prepare`` built it, else built in the scoring plan itself.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING, Any

from ._kit import ProblemScorer
from ._truth_cache import TruthCache, truth_cache_dir

if TYPE_CHECKING:
    from execlens.engine import Engine
    from execlens.judge import Scorer
    from execlens.tasks import Task

    from ._base import BenchmarkBase

__all__ = ["StrictTasks", "build_truths", "prepare_strict", "strict_scorer"]

#: The version of the truth documents :func:`build_truths` keeps.
TRUTH_RUN_VERSION = 1


class StrictTasks(dict[str, "Task"]):
    """What :func:`prepare_strict` returns: ``{sample id: task with its truth}``."""


def _content(task: Task) -> dict[str, Any]:
    return {
        "version": TRUTH_RUN_VERSION,
        "kind": task.kind,
        "program": task.program,
        "call": task.call,
        **task.reference.content(),
    }


def _truth_document(document: Any) -> Any:
    if not isinstance(document, dict) or document.get("version") != TRUTH_RUN_VERSION:
        raise ValueError("another truth version")
    return document["truth"]


def build_truths(
    tasks: Sequence[Task],
    engine: Engine | None = None,
    *,
    cache: TruthCache | None = None,
    workers: int = 2,
) -> list[Task]:
    """``tasks`` with every ``TruthRun`` reference replaced by the truth its runs give
    (or the ``NoTruth`` saying why there is none), cached in ``cache`` (default: the
    ``truth`` cache, ``$EXECLENS_TRUTH_CACHE_DIR``).

    With no ``engine``, a tracing engine of ``workers`` servers under the default program
    interpreter is started only when some truth is not cached (a rerun starts none).
    """
    from execlens.tasks import TruthRun

    cache = cache or TruthCache("run", truth_cache_dir())
    program = TruthCache.program_of(engine)
    out = list(tasks)
    pending: list[tuple[int, str]] = []
    for index, task in enumerate(out):
        if not isinstance(task.reference, TruthRun):
            continue
        key = TruthCache.key(_content(task), program)
        known = cache.get(key, _truth_document)
        if known is None:
            pending.append((index, key))
        else:
            out[index] = replace(task, reference=known)
    if not pending:
        return out
    if engine is None:
        from execlens.trace import trace_engine

        with trace_engine(workers=workers) as own:
            _run_pending(out, pending, own, cache)
    else:
        _run_pending(out, pending, engine, cache)
    return out


def _run_pending(
    out: list[Task], pending: Sequence[tuple[int, str]], engine: Engine, cache: TruthCache
) -> None:
    """Run the truth jobs of ``out[index]`` for each pending (index, key); keep the truths."""
    from execlens.judge import truth_from_runs, truth_jobs
    from execlens.tasks import NoTruth

    jobs = [truth_jobs(out[index]) for index, _ in pending]
    outcomes = iter(engine.map([job for group in jobs for job in group]))
    for (index, key), group in zip(pending, jobs):
        truth = truth_from_runs(out[index], [next(outcomes) for _ in group])
        if not isinstance(truth, NoTruth):  # a missing truth is retried, never kept
            # Through JSON, as a cache hit reads it: a first run and a rerun agree.
            truth = json.loads(json.dumps(truth))
            cache.put(key, {"version": TRUTH_RUN_VERSION, "truth": truth})
        out[index] = replace(out[index], reference=truth)


def prepare_strict(
    bench: BenchmarkBase[Any], items: Sequence[Any], task: str, engine: Engine | None
) -> StrictTasks | None:
    """The strict tasks of ``items`` with their truth built (:func:`build_truths`); None
    when the benchmark declares none.  With no engine the truth stays to be built (the
    scoring plan then builds it)."""
    from execlens.tasks import TruthRun

    tasks: dict[str, Task] = {}
    for item in items:
        # Asked first: items of a benchmark with no strict task need no sample id.
        asked = bench.strict_task(item, task)
        if asked is not None:
            tasks[item.sample_id] = asked
    if not tasks:
        return None
    if engine is None or not any(isinstance(t.reference, TruthRun) for t in tasks.values()):
        return StrictTasks(tasks)
    return StrictTasks(zip(tasks, build_truths(list(tasks.values()), engine)))


def strict_scorer(bench: BenchmarkBase[Any], task: str, context: Any) -> Scorer[Any]:
    """The core's strict scorer of ``task``: ``judge.TaskScorer`` over each item's
    :meth:`~BenchmarkBase.strict_task` (its truth from ``context``, a
    :class:`StrictTasks`, where ``prepare`` built it), answers read by
    :meth:`~BenchmarkBase.strict_answer`, input runs under
    :attr:`~BenchmarkBase.strict_limits`."""
    from execlens.judge import TaskScorer

    prepared = context if isinstance(context, StrictTasks) else StrictTasks()

    def to_task(item: Any) -> Task:
        found = prepared.get(item.sample_id) or bench.strict_task(item, task)
        if found is None:
            raise ValueError(f"{bench.name} asks no strict task of {item.sample_id!r}")
        return found

    reader = partial(bench.strict_answer, task=task)
    return ProblemScorer(TaskScorer(read=reader, limits=bench.strict_limits), to_task)
