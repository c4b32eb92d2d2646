"""How jobs travel to a server: grouping jobs of one program, and the request they share."""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from concurrent.futures import Future
from typing import Any

from execlens.engine._types import Job, Limits, Outcome
from execlens.values import encode

__all__ = [
    "HELD_PER_WINDOW",
    "REQUEST_GROUP",
    "build_request",
    "chunk_groups",
    "group_key",
    "host_timeout",
    "origin_ids",
    "stream_in_groups",
]

REQUEST_GROUP = 16  # jobs of one program sent to a server in one request


def group_key(job: Job, limits: Limits, seed: int) -> tuple[Any, ...]:
    """What jobs must share to travel in one request (and so run in one server).

    Not their origin: jobs of one program travel together whatever their origins, and
    the server gives each run of consecutive jobs of one origin its own child
    (:func:`origin_ids`), so one-job-per-child traffic still saves host round trips."""
    return (
        job.program,
        job.module_name,
        limits,
        seed,
        job.stdin,
        job.runner,
        json.dumps(job.runner_options, sort_keys=True) if job.runner_options else None,
    )


def _limits_dict(limits: Limits) -> dict[str, Any]:
    data = limits.to_dict()
    data["cpu_seconds"] = (
        limits.cpu_time if limits.cpu_time is not None else (limits.wall_time + 1.0)
    )
    return data


def origin_ids(jobs: Sequence[Job]) -> list[int]:
    """A small integer per job, equal exactly where the jobs share an origin; a job
    without one (``origin=None``) gets a number of its own."""
    ids: dict[Any, int] = {}
    numbers = []
    for position, job in enumerate(jobs):
        key = ("job", position) if job.origin is None else ("origin", job.origin)
        numbers.append(ids.setdefault(key, len(ids)))
    return numbers


def _call_spec(job: Job) -> dict[str, Any]:
    if job.entry_point is not None:
        spec: dict[str, Any] = {
            "entry_point": job.entry_point,
            "args": [encode(a) for a in job.args],
            "kwargs": {k: encode(v) for k, v in job.kwargs.items()},
        }
    else:
        spec = {"call": job.call}
    if job.seed is not None:  # per call: jobs with different seeds still share a batch
        spec["seed"] = job.seed
    return spec


def build_request(
    jobs: Sequence[Job], limits: Limits, request_id: int, per_child: int | None
) -> dict[str, Any]:
    """The ``run`` request for ``jobs`` (one group: the first job speaks for all)."""
    first = jobs[0]
    return {
        "op": "run",
        "id": request_id,
        "program": first.program,
        "module_name": first.module_name,
        "limits": _limits_dict(limits),
        "stdin": first.stdin,
        "runner": first.runner,
        "runner_options": dict(first.runner_options) if first.runner_options else None,
        "calls": [dict(_call_spec(job), o=origin) for job, origin in zip(jobs, origin_ids(jobs))],
        "per_child": per_child or len(jobs),
    }


def host_timeout(jobs: Sequence[Job], limits: Limits) -> float:
    """How long the host waits for a request's answer before calling its server hung.

    The server enforces every deadline; this bound only catches a hung server (it covers
    every input running to its limit, plus fork slack).
    """
    return 30.0 + len(jobs) * (limits.wall_time + 1.0) * 2


#: How many outcomes ``stream_in_groups`` may hold (finished, waiting for an earlier
#: one), as a multiple of its window.
HELD_PER_WINDOW = 8


def stream_in_groups(
    jobs: Iterable[Job],
    key: Callable[[Job], Hashable],
    dispatch: Callable[[list[Job], list[Future[Outcome]]], None],
    group_size: int,
    window: int,
    callback: Callable[[Outcome], None],
) -> Iterator[Outcome]:
    """Dispatch consecutive jobs of one ``key`` together (up to ``group_size``), keep at
    most ``window`` unfinished, and yield the outcomes in input order.

    A slow job does not hold the rest back: while it runs, later jobs keep being
    dispatched and their outcomes are held (up to ``HELD_PER_WINDOW`` windows) until it
    is yielded.  Counting every job not yet yielded against the window instead left the
    servers idle behind one function whose inputs compute for seconds."""
    pending: deque[Future[Outcome]] = deque()
    group_jobs: list[Job] = []
    group_futures: list[Future[Outcome]] = []
    current: Hashable | None = None
    held_limit = window * HELD_PER_WINDOW
    finished = threading.Condition()
    unfinished = 0

    def settled(_: Future[Outcome]) -> None:
        nonlocal unfinished
        with finished:
            unfinished -= 1
            finished.notify()

    def flush() -> None:
        nonlocal group_jobs, group_futures
        if group_jobs:
            dispatch(group_jobs, group_futures)
            group_jobs, group_futures = [], []

    def next_outcome() -> Outcome:
        if group_futures and pending[0] is group_futures[0]:
            flush()  # never block on a job still sitting in a partial group
        outcome = pending.popleft().result()
        callback(outcome)
        return outcome

    for job in jobs:
        job_key = key(job)
        if job_key != current or len(group_jobs) >= group_size:
            flush()
            current = job_key
        future: Future[Outcome] = Future()
        with finished:
            unfinished += 1
        future.add_done_callback(settled)
        pending.append(future)
        group_jobs.append(job)
        group_futures.append(future)
        while pending and (pending[0].done() or len(pending) >= held_limit):
            yield next_outcome()  # ready (or too many held: wait for the oldest)
        while unfinished >= window:
            if unfinished <= len(group_jobs):
                flush()  # only the partial group is unfinished: it must run
            with finished:
                if window <= unfinished > len(group_jobs):
                    finished.wait()  # a dispatched job will finish
    flush()
    while pending:
        yield next_outcome()


def chunk_groups(
    jobs: Sequence[Job], key: Callable[[Job], Hashable], group_size: int
) -> list[list[int]]:
    """Indices of ``jobs`` grouped by ``key`` (wherever they stand), cut into chunks of
    at most ``group_size``: one request each."""
    groups: dict[Hashable, list[int]] = {}
    for index, job in enumerate(jobs):
        groups.setdefault(key(job), []).append(index)
    return [
        indices[i : i + group_size]
        for indices in groups.values()
        for i in range(0, len(indices), group_size)
    ]
