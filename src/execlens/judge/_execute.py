"""Running judging jobs fast without changing a single verdict.

Three things make scoring 16,000 generations quick on a small machine:

1. **Dedupe.**  Generations sampled at low temperature repeat; identical jobs of one
   sample run once and share their outcome.
2. **One request per sample.**  The checks of one sample share their program, so they
   go to the engine as one request.  They share a forked child only where they share an
   origin (``Job.origin``): the answered calls of one program do (a fresh namespace
   each, the child retired as soon as one leaves anything behind); the generations of
   a sample, each code of its own author, never do -- each runs in a child of its own.
3. **Probe, then rerun timeouts alone.**  A batch runs with a short wall limit (the
   *probe*, 0.25 s by default).  A check that finished inside the probe would have
   finished inside the real limit too; one that did not is rerun on its own, with the
   real limit, as a request of its own.  So a sample with six infinite loops costs six
   probes plus one parallel round of 3 s reruns, instead of 18 s on one server; with
   enough servers (16 on 2 cores: a server whose child runs into its deadline only
   waits) the reruns of different samples overlap rather than queue.

Work items complete out of order (a sample waiting on a rerun does not hold up the
rest); at most ``window`` items are in flight, so memory stays bounded.
"""

from __future__ import annotations

import json
import queue
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from execlens.engine import Job, Limits, Outcome, Status
from execlens.judge._scoring import SampleScore, ScorePlan, Scorer

if TYPE_CHECKING:
    from execlens.engine import Engine
    from execlens.tasks import Task

__all__ = [
    "DEFAULT_PROBE",
    "ExecStats",
    "Executor",
    "score_sample",
    "score_samples",
    "scoring_engine",
]

K = TypeVar("K")

DEFAULT_PROBE = 0.25
SCORING_WORKERS = 16
_RERUN_SPACING = 0.01


def scoring_engine(
    workers: int = SCORING_WORKERS, *, preload: Sequence[str] | None = None, **options: Any
) -> Engine:
    """An engine sized for judging: many servers, since a timed-out check only waits.

    16 servers on 2 cores let 3 s timeouts overlap; the servers themselves cost little
    (each is idle while its child runs).  ``preload`` adds modules to the engine's
    default preload (LiveCodeBench checks import numpy and pandas).
    """
    from execlens.engine import DEFAULT_PRELOAD, Engine
    from execlens.judge._limits import JUDGE_LIMITS

    modules = tuple(DEFAULT_PRELOAD) + tuple(m for m in preload or () if m not in DEFAULT_PRELOAD)
    options.setdefault("limits", JUDGE_LIMITS)
    return Engine(workers=workers, preload=modules, **options)


@dataclass
class ExecStats:
    """What an :class:`Executor` did: jobs asked for, run, rerun after a probe."""

    jobs: int = 0
    unique: int = 0
    batches: int = 0
    probe_timeouts: int = 0
    retries: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def to_dict(self) -> dict[str, int]:
        """A JSON-ready form."""
        return {
            "jobs": self.jobs,
            "unique": self.unique,
            "batches": self.batches,
            "probe_timeouts": self.probe_timeouts,
            "retries": self.retries,
        }

    def add(self, **counts: int) -> None:
        with self.lock:
            for name, value in counts.items():
                setattr(self, name, getattr(self, name) + value)


def _identity(job: Job) -> tuple[Any, ...]:
    # repr() of parsed literals tells 1, 1.0 and True apart; equal values that print
    # differently (set order) merely run twice.
    return (
        job.program,
        job.call,
        job.entry_point,
        repr(job.args),
        repr(sorted(job.kwargs.items())),
        job.limits,
        job.hash_seed,
        job.stdin,
        job.module_name,
        job.runner,
        repr(job.runner_options),
        job.seed,
        job.origin,
    )


def _group(job: Job) -> tuple[Any, ...]:
    options = json.dumps(job.runner_options, sort_keys=True) if job.runner_options else None
    return (job.program, job.module_name, job.limits, job.hash_seed, job.stdin, job.runner, options)


def _with_limits(job: Job, limits: Limits) -> Job:
    # replace(), not a new Job: every other field (the origin, the seed) stays the job's.
    return replace(job, limits=limits)


class _Item:
    """One work item in flight: its unique jobs and the outcomes gathered so far."""

    def __init__(
        self, key: Any, jobs: Sequence[Job], done: queue.Queue[Any], dedupe: bool = True
    ) -> None:
        self.key = key
        self.done = done
        self.lock = threading.Lock()
        index: dict[tuple[Any, ...], int] = {}
        self.unique: list[Job] = []
        self.positions: list[int] = []
        for position, job in enumerate(jobs):
            ident = _identity(job) if dedupe else (position,)
            if ident not in index:
                index[ident] = len(self.unique)
                self.unique.append(job)
            self.positions.append(index[ident])
        self.outcomes: list[Outcome | None] = [None] * len(self.unique)
        self.remaining = len(self.unique)

    def settle(self, slot: int, outcome: Outcome) -> None:
        with self.lock:
            if self.outcomes[slot] is not None:
                return
            self.outcomes[slot] = outcome
            self.remaining -= 1
            finished = self.remaining == 0
        if finished:
            final = [self.outcomes[p] for p in self.positions]
            self.done.put((self.key, final))


class Executor:
    """Runs the jobs of many work items on an engine (see the module docstring).

    ``probe`` is the short wall limit of the first, batched attempt (``None``: run
    batches with the jobs' own limits).  ``window`` bounds the items in flight
    (default: 1.5 per engine worker).  ``retries`` reruns a check whose server died.
    ``dedupe=False`` runs identical jobs of an item separately.
    """

    def __init__(
        self,
        engine: Engine,
        *,
        probe: float | None = DEFAULT_PROBE,
        window: int | None = None,
        retries: int = 1,
        dedupe: bool = True,
    ) -> None:
        if probe is not None and probe <= 0:
            raise ValueError("probe must be positive (or None)")
        self.engine = engine
        self.probe = probe
        # Little more than one item per server: a deep engine queue would make reruns
        # wait behind ordinary batches (and pair up on one server).
        self.window = window or max(8, engine.workers * 3 // 2)
        self.retries = retries
        self.dedupe = dedupe
        self.stats = ExecStats()
        self._reruns: queue.Queue[tuple[_Item, int, int] | None] = queue.Queue()
        self._rerun_lock = threading.Lock()
        self._rerun_thread: threading.Thread | None = None

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop the rerun thread (the engine is the caller's, left running)."""
        with self._rerun_lock:
            thread, self._rerun_thread = self._rerun_thread, None
        if thread is not None:
            self._reruns.put(None)
            thread.join(timeout=30)

    # ----------------------------------------------------------------- submit
    def _full_limits(self, job: Job) -> Limits:
        return job.limits or self.engine.limits

    def _batch_limits(self, limits: Limits, size: int) -> tuple[Limits, bool]:
        """Limits for ``size`` checks sharing one child; whether they are a probe."""
        probing = self.probe is not None and limits.wall_time > self.probe
        wall = self.probe if probing and self.probe is not None else limits.wall_time
        # A child's CPU limit covers all its checks: scale it, so only a check's own
        # wall deadline (as in the official scorers) ends it.
        cpu = limits.cpu_time if limits.cpu_time is not None else wall * size + 1.0
        return limits.with_(wall_time=wall, cpu_time=cpu), probing

    def _start(self, item: _Item) -> None:
        groups: dict[tuple[Any, ...], list[int]] = {}
        for slot, job in enumerate(item.unique):
            full = self._full_limits(job)
            groups.setdefault(_group(_with_limits(job, full)), []).append(slot)
        self.stats.add(unique=len(item.unique), batches=len(groups))
        for slots in groups.values():
            full = self._full_limits(item.unique[slots[0]])
            limits, probing = self._batch_limits(full, len(slots))
            jobs = [_with_limits(item.unique[s], limits) for s in slots]
            futures = self.engine.submit_batch(jobs)
            for slot, future in zip(slots, futures):
                future.add_done_callback(self._callback(item, slot, probing, self.retries))

    def _callback(
        self, item: _Item, slot: int, probing: bool, retries: int
    ) -> Callable[[Future[Outcome]], None]:
        def done(future: Future[Outcome]) -> None:
            try:
                outcome = future.result()
                if probing and outcome.status is Status.TIMEOUT:
                    self.stats.add(probe_timeouts=1)
                    self._rerun(item, slot, retries)
                    return
                if outcome.status is Status.SANDBOX_ERROR and retries > 0:
                    self.stats.add(retries=1)
                    self._rerun(item, slot, retries - 1)
                    return
            except BaseException as exc:  # noqa: BLE001 - never lose an item
                outcome = Outcome(Status.SANDBOX_ERROR, message=f"judging failed: {exc!r}")
            item.settle(slot, outcome)

        return done

    def _rerun(self, item: _Item, slot: int, retries: int) -> None:
        with self._rerun_lock:
            if self._rerun_thread is None:
                self._rerun_thread = threading.Thread(
                    target=self._submit_reruns, name="execlens-judge-reruns", daemon=True
                )
                self._rerun_thread.start()
        self._reruns.put((item, slot, retries))

    def _submit_reruns(self) -> None:
        # Reruns are the checks that may well run their whole 3 s.  An engine worker
        # pipelines two requests, so two reruns that sit in the engine's queue together
        # can land on one server back to back.  Fed one at a time, a moment apart, into
        # a queue the window keeps short, each lands on a server of its own.
        while True:
            entry = self._reruns.get()
            if entry is None:
                return
            item, slot, retries = entry
            job = item.unique[slot]
            try:
                future = self.engine.submit(_with_limits(job, self._full_limits(job)))
            except BaseException as exc:  # noqa: BLE001 - e.g. the engine was closed
                item.settle(
                    slot,
                    Outcome(Status.SANDBOX_ERROR, message=f"could not rerun the check: {exc!r}"),
                )
                continue
            future.add_done_callback(self._callback(item, slot, False, retries))
            time.sleep(_RERUN_SPACING)

    # -------------------------------------------------------------------- run
    def run(self, work: Iterable[tuple[K, Sequence[Job]]]) -> Iterator[tuple[K, list[Outcome]]]:
        """Run each item's jobs; yields ``(key, outcomes in job order)`` as items finish."""
        done: queue.Queue[tuple[K, list[Outcome]]] = queue.Queue()
        inflight = 0
        source = iter(work)
        exhausted = False
        while True:
            while not exhausted and inflight < self.window:
                try:
                    key, jobs = next(source)
                except StopIteration:
                    exhausted = True
                    break
                self.stats.add(jobs=len(jobs))
                if not jobs:
                    yield key, []
                    continue
                self._start(_Item(key, jobs, done, self.dedupe))
                inflight += 1
            if inflight == 0:
                return
            key, outcomes = done.get()
            inflight -= 1
            yield key, outcomes


#: The item type scorers plan on (see :class:`Scorer`), handed back as given.
Item = TypeVar("Item")


@dataclass
class _Pending(Generic[Item]):
    item: Item
    plans: list[tuple[str, ScorePlan]]


def score_samples(
    scorers: Sequence[Scorer[Item]],
    items: Iterable[tuple[Item, Sequence[str]]],
    engine: Engine | None = None,
    *,
    probe: float | None = DEFAULT_PROBE,
    window: int | None = None,
    executor: Executor | None = None,
) -> Iterator[tuple[Item, dict[str, SampleScore]]]:
    """Score every sample with every scorer; yields ``(item, {mode: score})`` as done.

    An item is what the scorers plan on (an :class:`execlens.tasks.Task`; a benchmark's
    own scorers may take its own record type) and is handed back as given.

    The jobs of all scorers for one sample travel together (they usually share the
    program, hence one child).  Samples come back in completion order.  ``engine`` may
    be ``None`` when no scorer needs execution (strict output prediction).
    """
    names = [s.name for s in scorers]
    if len(set(names)) != len(names):
        raise ValueError(f"scorers need distinct names, got {names}")

    def work() -> Iterator[tuple[_Pending[Item], list[Job]]]:
        for item, generations in items:
            plans = [(s.name, s.plan(item, generations)) for s in scorers]
            yield _Pending(item, plans), [job for _, plan in plans for job in plan.jobs]

    def finish(pending: _Pending[Item], outcomes: list[Outcome]) -> dict[str, SampleScore]:
        scores: dict[str, SampleScore] = {}
        start = 0
        for name, plan in pending.plans:
            stop = start + len(plan.jobs)
            scores[name] = plan.finish(outcomes[start:stop])
            start = stop
        return scores

    if executor is None and engine is None:
        for pending, jobs in work():
            if jobs:
                raise ValueError("these scorers execute code: pass an engine")
            yield pending.item, finish(pending, [])
        return
    runner = executor or Executor(engine, probe=probe, window=window)  # type: ignore[arg-type]
    try:
        for pending, outcomes in runner.run(work()):
            yield pending.item, finish(pending, outcomes)
    finally:
        if executor is None:
            runner.close()


def score_sample(
    scorer: Scorer[Task],
    task: Task,
    generations: Sequence[str],
    engine: Engine | None = None,
    *,
    probe: float | None = DEFAULT_PROBE,
) -> SampleScore:
    """Score one sample's generations with one scorer."""
    for _, scores in score_samples([scorer], [(task, generations)], engine, probe=probe):
        return scores[scorer.name]
    raise RuntimeError("no score produced")  # pragma: no cover
