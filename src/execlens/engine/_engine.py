"""``Engine``: the sandbox's public face (lifecycle, reports, sync and async APIs).

The work is done elsewhere: ``_process`` starts one fork server, ``_pool`` feeds the
servers of one hash seed from worker threads, ``_batching`` groups jobs into requests,
``_interpreter`` picks the interpreter the servers run under.
"""

from __future__ import annotations

import asyncio
import functools
import itertools
import os
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future
from typing import Any

from execlens.engine._batching import (
    REQUEST_GROUP,
    build_request,
    chunk_groups,
    group_key,
    host_timeout,
    stream_in_groups,
)
from execlens.engine._errors import EngineError, IsolationUnavailable
from execlens.engine._interpreter import resolve_program_python
from execlens.engine._isolation import IsolationReport
from execlens.engine._modes import ISOLATION_ENV, ISOLATION_MODES, warn_degraded
from execlens.engine._pool import Batch, Pool, fail
from execlens.engine._process import ServerProcess
from execlens.engine._progress import progress_hook
from execlens.engine._protocol import encode_frame
from execlens.engine._rootfs import check_mount_ro
from execlens.engine._types import Job, Limits, Outcome

__all__ = ["DEFAULT_PRELOAD", "Engine"]

# Imported once in each server before forking, so children get them for free.  Modules
# that register at-fork hooks (random, threading) or map much memory (numpy) are left
# out: they would make *every* fork slower; programs that need them import them.
DEFAULT_PRELOAD: tuple[str, ...] = (
    "abc",
    "array",
    "bisect",
    "collections",
    "copy",
    "dataclasses",
    "datetime",
    "decimal",
    "enum",
    "fractions",
    "functools",
    "hashlib",
    "heapq",
    "itertools",
    "json",
    "math",
    "operator",
    "re",
    "string",
    "typing",
    "unittest",
)

_MAX_WORKERS = 4096

_PROGRAM_ENV_PROBE = """
import sys
from importlib import metadata

def probe(names):
    found = {}
    for name in names:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = None
    return {"executable": sys.executable, "prefix": sys.prefix,
            "version": sys.version.split()[0], "packages": found}
"""


class Engine:
    """Run untrusted Python in hardened, warm fork servers.

    ``Engine(workers=None)`` starts one server per core.  Use it as a context manager
    (or call :meth:`close`).  ``run``/``map`` are synchronous; ``arun``/``amap`` are
    their asyncio forms.  ``batch_size`` > 1 lets ``map`` run several jobs of the *same
    program and origin* (``Job.origin``) in one child: each gets a fresh module, and the
    child is retired (a fresh one forked for the rest) as soon as one leaves anything
    behind -- a thread, timer, hook, module attribute, setting, file
    (:mod:`execlens.engine._guard`); a crash only costs the job it hit.  Jobs without an
    origin, or of different origins, never share a process.

    ``isolation``: ``"full"`` (fail unless every layer is active but Landlock and the
    cgroup), ``"auto"`` (every layer this machine offers; refuses to start without the
    filesystem and PID layers, naming what is missing and why), ``"degraded"`` (runs
    with what this machine offers, and warns that it does on every start: the explicit
    opt-in where ``auto`` refuses) or ``"none"`` (rlimits only; trusted code).  Default:
    ``$EXECLENS_ISOLATION``, else ``"auto"``.  Without root the namespaces come from a
    user namespace of each server's own; :meth:`isolation_report` says how each layer
    was had.

    ``python``: the interpreter the servers (and so the programs) run under, e.g. a venv
    with NumPy 1.x while the host runs NumPy 2; default ``$EXECLENS_PROGRAM_PYTHON``, else
    the interpreter ``make install`` recorded, else this one (:func:`resolve_program_python`).
    Any CPython >= 3.11 serves: the server side needs only the
    standard library and execlens's own source, put on its path read-only.

    The sandbox sees a *minimal root*: only what that interpreter needs (its standard
    library and import roots, the shared libraries they load, a shell), no ``/home``, no
    host ``/etc``, no project.  ``mount_ro``: host paths to show as well, read-only
    (e.g. a data directory programs read).  ``filesystem="host"`` shows the whole host
    read-only instead, as before the minimal root existed: for comparisons only (the
    filesystem layer then counts as missing, so ``isolation="full"`` refuses it).
    """

    def __init__(
        self,
        workers: int | None = None,
        *,
        limits: Limits | None = None,
        hash_seed: int = 0,
        preload: Sequence[str] = DEFAULT_PRELOAD,
        isolation: str | None = None,
        batch_size: int = 1,
        python: str | None = None,
        mount_ro: Sequence[str] = (),
        filesystem: str = "minimal",
    ) -> None:
        if isolation is None:
            isolation = os.environ.get(ISOLATION_ENV) or "auto"
            if isolation not in ISOLATION_MODES:  # a setting, named as such (exit 2)
                raise IsolationUnavailable(
                    f"{ISOLATION_ENV} must be one of {', '.join(ISOLATION_MODES)}, "
                    f"not {isolation!r}"
                )
        if isolation not in ISOLATION_MODES:
            raise ValueError(
                f"isolation must be one of {', '.join(ISOLATION_MODES)}, not {isolation!r}"
            )
        if filesystem not in ("minimal", "host"):
            raise ValueError("filesystem must be 'minimal' or 'host'")
        if filesystem == "host" and isolation == "full":
            raise ValueError(
                "isolation='full' needs the minimal root: filesystem='host' shows every host file"
            )
        if isinstance(mount_ro, (str, bytes)):
            raise TypeError("mount_ro must be a list of paths, not one string")
        for path in mount_ro:
            try:
                check_mount_ro(os.fspath(path))
            except (OSError, ValueError) as exc:
                raise ValueError(str(exc)) from exc
        if batch_size < 1:
            raise ValueError("batch_size must be >= 1")
        if workers is not None and (
            isinstance(workers, bool)
            or not isinstance(workers, int)
            or not 1 <= workers <= _MAX_WORKERS
        ):
            raise ValueError(
                f"workers must be an integer from 1 to {_MAX_WORKERS} "
                f"(or None: one per core), not {workers!r}"
            )
        self.workers = workers or os.cpu_count() or 1
        self.limits = limits or Limits()
        self.hash_seed = hash_seed
        self.preload = tuple(preload)
        self.isolation = isolation
        self.batch_size = batch_size
        self.python = resolve_program_python(python)
        self.filesystem = filesystem
        self.mount_ro = tuple(os.path.abspath(os.fspath(p)) for p in mount_ro)
        self._pools: dict[int, Pool] = {}
        self._lock = threading.Lock()
        self._ids = itertools.count()
        self._closed = False
        self._pool(hash_seed)
        if isolation == "degraded":
            warn_degraded(self.isolation_report())

    # ----------------------------------------------------------------- lifecycle
    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop every server and worker thread."""
        with self._lock:
            self._closed = True
            pools = list(self._pools.values())
            self._pools.clear()
        for pool in pools:
            pool.stop()

    def _pool(self, seed: int) -> Pool:
        with self._lock:
            if self._closed:
                raise EngineError("the engine is closed")
            pool = self._pools.get(seed)
            if pool is None:
                # Other hash seeds are rare (determinism checks): one server suffices.
                size = self.workers if seed == self.hash_seed else 1
                pool = Pool(self._spawn, seed, size)
                pool.start()
                self._pools[seed] = pool
            return pool

    def _spawn(self, seed: int) -> ServerProcess:
        return ServerProcess(
            self.python, seed, self.preload, self.isolation, self.filesystem, self.mount_ro
        )

    # ------------------------------------------------------------------- reports
    def isolation_report(self) -> IsolationReport:
        """Which isolation layers the default servers have active, and why not."""
        pool = self._pool(self.hash_seed)
        for server in pool.servers:
            if server is not None:
                return server.report
        raise EngineError("no execution server is running")

    def server_reports(self) -> list[IsolationReport]:
        """The isolation report of every running server (each has its own sandbox uid)."""
        return [
            server.report
            for pool in list(self._pools.values())
            for server in pool.servers
            if server is not None
        ]

    @property
    def preload_errors(self) -> dict[str, str]:
        """Modules from ``preload`` that failed to import in the servers."""
        for server in self._pool(self.hash_seed).servers:
            if server is not None:
                return dict(server.preload_errors)
        return {}

    def program_environment(self, packages: Sequence[str] = ("numpy", "pandas")) -> dict[str, Any]:
        """The interpreter programs run under, as a sandboxed job sees it.

        ``{"executable", "prefix", "version", "packages": {name: version or None}}``;
        versions come from the environment's package metadata (nothing is imported).
        """
        outcome = self.run(
            Job(
                _PROGRAM_ENV_PROBE, call=f"probe({list(packages)!r})", limits=Limits(wall_time=30.0)
            )
        )
        if not outcome.ok:
            raise EngineError(f"could not inspect the program environment: {outcome.message}")
        return dict(outcome.decoded())

    @property
    def restarts(self) -> int:
        """How many servers were replaced after dying."""
        return sum(pool.restarts for pool in self._pools.values())

    @property
    def steals(self) -> int:
        """How many requests an idle worker split, taking inputs another had not started."""
        return sum(pool.steals for pool in self._pools.values())

    # ------------------------------------------------------------------- submit
    def _seed(self, job: Job) -> int:
        return self.hash_seed if job.hash_seed is None else job.hash_seed

    def _group_key(self, job: Job) -> tuple[Any, ...]:
        return group_key(job, job.limits or self.limits, self._seed(job))

    def _dispatch(
        self, jobs: list[Job], futures: list[Future[Outcome]], per_child: int | None = None
    ) -> None:
        batch = self._batch(jobs, futures, per_child)
        if batch is not None:
            self._pool(self._seed(jobs[0])).put(batch)

    def _batch(
        self, jobs: list[Job], futures: list[Future[Outcome]], per_child: int | None = None
    ) -> Batch | None:
        """The request for ``jobs`` (one group), framed; None (and the jobs failed) if
        it cannot be encoded.  Also rebuilds part of a batch for an idle worker."""
        limits = jobs[0].limits or self.limits
        request_id = next(self._ids)
        request = build_request(jobs, limits, request_id, per_child)
        try:
            # Encoded here, in the caller's thread: a value JSON cannot carry (a set in
            # runner_options, a lone surrogate...) fails these jobs, not a worker thread.
            payload = encode_frame(request)
        except (TypeError, ValueError, OverflowError, UnicodeError) as exc:
            fail(
                jobs,
                futures,
                f"the job could not be sent to the sandbox: {type(exc).__name__}: {exc}",
            )
            return None
        return Batch(
            payload,
            jobs,
            futures,
            host_timeout(jobs, limits),
            request_id,
            rebuild=functools.partial(self._batch, per_child=per_child),
        )

    def submit(self, job: Job) -> Future[Outcome]:
        """Queue one job; returns a future of its outcome."""
        future: Future[Outcome] = Future()
        self._dispatch([job], [future])
        return future

    def submit_batch(
        self, jobs: Sequence[Job], per_child: int | None = None
    ) -> list[Future[Outcome]]:
        """Queue jobs that share program, limits, seed, stdin and runner as one request.

        Consecutive jobs of one origin (``Job.origin``) run in one forked child
        (``per_child=None``), or ``per_child`` at a time; every other job in a child of
        its own.
        """
        if not jobs:
            return []
        key = self._group_key(jobs[0])
        for job in jobs[1:]:
            if self._group_key(job) != key:
                raise ValueError("a batch must share program, module, limits, seed, stdin, runner")
        futures: list[Future[Outcome]] = [Future() for _ in jobs]
        self._dispatch(list(jobs), futures, per_child=per_child)
        return futures

    # ---------------------------------------------------------------- sync API
    def run(self, job: Job) -> Outcome:
        """Run one job and wait for its outcome."""
        return self.submit(job).result()

    def map(
        self,
        jobs: Iterable[Job],
        *,
        batch_size: int | None = None,
        window: int | None = None,
        progress: bool | Callable[[Outcome], None] = False,
    ) -> Iterator[Outcome]:
        """Run many jobs; yields outcomes in input order.

        ``batch_size`` is how many jobs of one origin may share one forked child
        (default: the engine's, 1 = a fresh child per job).  Consecutive jobs of the
        same program travel to a server together (up to ``max(batch_size, 16)`` per
        request) whatever the batch size, which saves host round trips.  At most
        ``window`` jobs are in flight
        (default: 8 requests per worker) and at most 8 windows of outcomes wait for an
        earlier, slower one, so millions of jobs stream through in bounded memory.
        ``progress=True`` shows a progress bar; a callable is called with each outcome
        instead.
        """
        size = batch_size or self.batch_size
        group_size = max(size, REQUEST_GROUP)
        window = window or self.workers * group_size * 8
        callback, finish = progress_hook(progress, jobs)
        try:
            yield from stream_in_groups(
                jobs,
                self._group_key,
                functools.partial(self._dispatch, per_child=size),
                group_size,
                window,
                callback,
            )
        finally:
            finish()

    # --------------------------------------------------------------- async API
    async def arun(self, job: Job) -> Outcome:
        """Run one job from asyncio code."""
        return await asyncio.wrap_future(self.submit(job))

    async def amap(
        self, jobs: Iterable[Job], *, batch_size: int | None = None, concurrency: int | None = None
    ) -> list[Outcome]:
        """Run many jobs from asyncio code; outcomes in input order.

        ``concurrency`` bounds the requests in flight (default: 8 per worker).
        """
        size = batch_size or self.batch_size
        limit = asyncio.Semaphore(concurrency or self.workers * 8)
        job_list = list(jobs)
        results: list[Outcome | None] = [None] * len(job_list)

        async def run_chunk(indices: list[int]) -> None:
            async with limit:
                futures = self.submit_batch([job_list[i] for i in indices], per_child=size)
                outcomes = await asyncio.gather(*(asyncio.wrap_future(f) for f in futures))
            for i, outcome in zip(indices, outcomes):
                results[i] = outcome

        chunks = chunk_groups(job_list, self._group_key, max(size, REQUEST_GROUP))
        await asyncio.gather(*(run_chunk(chunk) for chunk in chunks))
        return [r for r in results if r is not None]
