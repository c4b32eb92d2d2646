"""The host side of the engine: warm fork servers, worker threads, sync and async APIs."""

from __future__ import annotations

import asyncio
import functools
import itertools
import json
import os
import queue
import select
import socket
import subprocess
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from execlens.engine._isolation import IsolationReport, compile_seccomp_filters
from execlens.engine._program_env import PROGRAM_PYTHON_ENV, locate_program_python
from execlens.engine._protocol import FrameError, encode_frame
from execlens.engine._rootfs import check_mount_ro
from execlens.engine._types import Job, Limits, Outcome, Status
from execlens.values import encode

__all__ = ["DEFAULT_PRELOAD", "PROGRAM_PYTHON_ENV", "Engine", "EngineError",
           "resolve_program_python"]

# Imported once in each server before forking, so children get them for free.  Modules
# that register at-fork hooks (random, threading) or map much memory (numpy) are left
# out: they would make *every* fork slower; programs that need them import them.
DEFAULT_PRELOAD: tuple[str, ...] = (
    "abc", "array", "bisect", "collections", "copy", "dataclasses", "datetime", "decimal",
    "enum", "fractions", "functools", "hashlib", "heapq", "itertools", "json", "math",
    "operator", "re", "string", "typing", "unittest",
)

_HANDSHAKE_TIMEOUT = 120.0
_PIPELINE_DEPTH = 2
_REQUEST_GROUP = 16  # jobs of one program sent to a server in one request
_SERVER_MODULE = "execlens.engine._server"
_MAX_WORKERS = 4096


class EngineError(RuntimeError):
    """The engine could not start or was used after closing."""


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


def resolve_program_python(python: str | None = None) -> str:
    """The interpreter fork servers run under: ``python``, else ``$EXECLENS_PROGRAM_PYTHON``,
    else the one ``make install`` recorded, else this interpreter
    (:func:`locate_program_python`).  Raises :class:`EngineError` unless it is an
    executable file, naming where it came from."""
    located = locate_program_python(python)
    chosen = located.path
    if not os.path.isfile(chosen) or not os.access(chosen, os.X_OK):
        raise EngineError(f"program interpreter ({located.describe()}) is not an executable "
                          "file; give a Python >= 3.11 interpreter (e.g. "
                          ".venv-programs/bin/python, built by make install)")
    # Absolute (symlinks kept: a venv's python is a link to its base): the servers start
    # in their own working directory, where a relative path would name nothing.
    return os.path.abspath(chosen)


@functools.lru_cache(maxsize=1)
def _execlens_root() -> str:
    """A directory holding execlens and nothing else, for the servers' ``PYTHONPATH``.

    A source checkout's ``src/`` already is one.  Installed into site-packages, execlens
    sits beside the host's packages (NumPy 2, a trainer...), which must not shadow a
    program environment's own: then a private directory with one link to the package.
    """
    package = Path(__file__).resolve().parents[1]
    parent = package.parent
    if all(entry.name.startswith("execlens") for entry in parent.iterdir()):
        return str(parent)
    import atexit
    import shutil
    import tempfile

    root = tempfile.mkdtemp(prefix="execlens-root-")
    os.chmod(root, 0o755)  # the zygote's lazy imports run as root, children's as the sandbox uid
    os.symlink(package, os.path.join(root, "execlens"))
    atexit.register(shutil.rmtree, root, True)
    return root


def _server_env(hash_seed: int) -> dict[str, str]:
    package_parent = _execlens_root()
    return {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "HOME": "/tmp",
        "PYTHONHASHSEED": str(hash_seed),
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONPATH": package_parent,
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        # Resolve every shared-library symbol at load time, in the server: lazily, each
        # forked child would patch its own copy of the tables (copy-on-write faults).
        "LD_BIND_NOW": "1",
    }


@functools.lru_cache(maxsize=1)
def _seccomp_filters() -> dict[str, Any]:
    return compile_seccomp_filters()


def _recv_exact(sock: socket.socket, size: int, timeout: float | None) -> bytes:
    chunks = []
    remaining = size
    while remaining:
        if timeout is not None:
            ready, _, _ = select.select([sock], [], [], timeout)
            if not ready:
                raise TimeoutError("the execution server did not answer in time")
        chunk = sock.recv(min(remaining, 1 << 20))
        if not chunk:
            raise EOFError("the execution server closed the connection")
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


def _recv_frame(sock: socket.socket, timeout: float | None) -> Any:
    header = _recv_exact(sock, 4, timeout)
    body = _recv_exact(sock, int.from_bytes(header, "big"), timeout)
    try:
        return json.loads(body)
    except ValueError as exc:
        raise FrameError(f"server sent a malformed frame: {exc}") from exc


# The minimal root's plan per (interpreter, mount_ro): the first server walks the
# interpreter's import roots for the libraries they load and sends the plan back; every
# later server of this process (other workers, replacements, other hash seeds) reuses it.
_ROOT_PLANS: dict[tuple[str, tuple[str, ...]], dict[str, Any]] = {}


class _ServerProcess:
    """One fork server and its socket."""

    def __init__(self, python: str, hash_seed: int, preload: Sequence[str], isolation: str,
                 filesystem: str = "minimal", mount_ro: tuple[str, ...] = ()) -> None:
        host_sock, server_sock = socket.socketpair()
        self.sock = host_sock
        try:
            self.process = subprocess.Popen(
                [python, "-s", "-B", "-m", _SERVER_MODULE, str(server_sock.fileno())],
                pass_fds=[server_sock.fileno()],
                env=_server_env(hash_seed),
                cwd="/",
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
            )
        finally:
            server_sock.close()
        plan_key = (python, mount_ro)
        self.sock.sendall(encode_frame({"preload": list(preload), "isolation": isolation,
                                        "seccomp": _seccomp_filters(),
                                        "filesystem": filesystem, "mount_ro": list(mount_ro),
                                        "root_plan": _ROOT_PLANS.get(plan_key)}))
        try:
            hello = _recv_frame(self.sock, _HANDSHAKE_TIMEOUT)
        except (EOFError, TimeoutError, OSError, FrameError) as exc:
            self.close()
            raise EngineError(f"execution server failed to start: {exc}") from exc
        if not hello.get("ready"):
            self.close()
            raise EngineError(f"execution server refused to start: {hello.get('error')}")
        if hello.get("root_plan"):
            _ROOT_PLANS.setdefault(plan_key, hello["root_plan"])
        self.report = IsolationReport.from_dict(hello["report"])
        self.preload_errors: dict[str, str] = hello.get("preload_errors", {})
        self.pid: int = hello["pid"]

    def send(self, payload: bytes) -> None:
        self.sock.sendall(payload)

    def receive(self, timeout: float) -> list[dict[str, Any]]:
        reply = _recv_frame(self.sock, timeout)
        if "outcomes" not in reply:
            raise EngineError(f"execution server error: {reply.get('error')}")
        return reply["outcomes"]

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    def close(self) -> None:
        try:
            self.sock.close()
        finally:
            if self.process.poll() is None:
                self.process.kill()
            self.process.wait()


@dataclass
class _Batch:
    payload: bytes  # the request, already framed: encoding errors belong to the caller
    jobs: list[Job]
    futures: list[Future[Outcome]]
    timeout: float


@dataclass
class _Pool:
    """The servers of one hash seed, each driven by its own worker thread."""

    engine: Engine
    hash_seed: int
    size: int
    queue: queue.Queue[_Batch | None] = field(default_factory=queue.Queue)
    threads: list[threading.Thread] = field(default_factory=list)
    servers: list[_ServerProcess | None] = field(default_factory=list)
    restarts: int = 0
    thread_failures: int = 0
    stopping: bool = False

    def start(self) -> None:
        self.servers = [None] * self.size
        first_error: list[BaseException] = []
        ready = threading.Barrier(self.size + 1)
        for slot in range(self.size):
            thread = threading.Thread(target=self._work, args=(slot, ready, first_error),
                                      name=f"execlens-engine-{self.hash_seed}-{slot}",
                                      daemon=True)
            thread.start()
            self.threads.append(thread)
        ready.wait()
        if first_error:
            self.stop()
            raise first_error[0]

    def _spawn(self) -> _ServerProcess:
        engine = self.engine
        return _ServerProcess(engine.python, self.hash_seed, engine.preload, engine.isolation,
                              engine.filesystem, engine.mount_ro)

    def _work(self, slot: int, ready: threading.Barrier, errors: list[BaseException]) -> None:
        # Servers are spawned from this long-lived thread: their parent-death signal
        # follows the thread that created them.
        try:
            self.servers[slot] = self._spawn()
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)
        ready.wait()
        if errors:
            return
        self._run_slot(slot)

    def _run_slot(self, slot: int) -> None:
        inflight: deque[_Batch] = deque()
        try:
            self._serve_slot(slot, inflight)
        except BaseException as exc:  # noqa: BLE001 - no caller may be left waiting
            self._thread_died(slot, inflight, exc)
            return
        server = self.servers[slot]
        if server is not None:
            server.close()

    def _thread_died(self, slot: int, inflight: deque[_Batch], exc: BaseException) -> None:
        """This slot's thread hit an unexpected error: fail its jobs, start a new thread.

        Whatever the error, every job it had taken ends as ``sandbox_error`` (a waiting
        ``run``/``map`` returns instead of hanging), its server is replaced, and a fresh
        thread takes over the slot so jobs still queued are served.
        """
        self.thread_failures += 1
        reason = f"the engine's worker thread failed ({type(exc).__name__}: {exc})"
        for batch in inflight:
            _fail(batch.jobs, batch.futures, reason)
        inflight.clear()
        server = self.servers[slot]
        self.servers[slot] = None
        if server is not None:
            try:
                server.close()
            except BaseException:  # noqa: BLE001 - already failing; the process is gone
                pass
        if self.stopping:
            return
        thread = threading.Thread(target=self._run_slot, args=(slot,),
                                  name=f"execlens-engine-{self.hash_seed}-{slot}",
                                  daemon=True)
        self.threads.append(thread)
        thread.start()

    def _serve_slot(self, slot: int, inflight: deque[_Batch]) -> None:
        # Up to _PIPELINE_DEPTH batches wait in the server's socket, so the server starts
        # the next one the moment it answers, without waiting for this thread.
        stopping = False
        while True:
            while not stopping and len(inflight) < _PIPELINE_DEPTH:
                try:
                    batch = self.queue.get(block=not inflight)
                except queue.Empty:
                    break
                if batch is None:
                    stopping = True
                    break
                inflight.append(batch)
                if not self._send(slot, batch):
                    self._server_lost(slot, inflight, "could not send the job")
            if not inflight:
                if stopping:
                    return
                continue
            self._receive(slot, inflight)

    def _server(self, slot: int) -> _ServerProcess:
        server = self.servers[slot]
        if server is None or not server.alive:
            if server is not None:
                server.close()
                self.restarts += 1
            server = self.servers[slot] = self._spawn()
        return server

    def _send(self, slot: int, batch: _Batch) -> bool:
        try:
            self._server(slot).send(batch.payload)
            return True
        except (OSError, EngineError):
            return False

    def _receive(self, slot: int, inflight: deque[_Batch]) -> None:
        batch = inflight[0]
        server = self.servers[slot]
        try:
            if server is None:
                raise EOFError("no server")
            replies = server.receive(batch.timeout)
        except (EOFError, TimeoutError, OSError, FrameError, EngineError) as exc:
            self._server_lost(slot, inflight, str(exc))
            return
        inflight.popleft()
        for job, future, reply in zip(batch.jobs, batch.futures, replies):
            try:
                future.set_result(Outcome.from_dict(reply, tag=job.tag))
            except (KeyError, ValueError, TypeError) as exc:
                future.set_result(Outcome(Status.SANDBOX_ERROR, tag=job.tag,
                                          message=f"malformed outcome: {exc}"))

    def _server_lost(self, slot: int, inflight: deque[_Batch], reason: str) -> None:
        """The server died: the batch it was running fails, the queued ones move over."""
        server = self.servers[slot]
        if server is not None:
            server.close()
        self.servers[slot] = None
        self.restarts += 1
        failed = inflight.popleft()
        _fail(failed.jobs, failed.futures, f"execution server died and was replaced ({reason})")
        for batch in list(inflight):
            if not self._send(slot, batch):
                self._server_lost(slot, inflight, "the replacement server failed too")
                return

    def stop(self) -> None:
        self.stopping = True
        threads = list(self.threads)
        for _ in threads:
            self.queue.put(None)
        for thread in threads:
            thread.join(timeout=30)
        self.threads.clear()


def _fail(jobs: Sequence[Job], futures: Sequence[Future[Outcome]], message: str) -> None:
    """End every still-pending future as ``sandbox_error`` with ``message``."""
    for job, future in zip(jobs, futures):
        if not future.done():
            future.set_result(Outcome(Status.SANDBOX_ERROR, tag=job.tag, message=message))


def _group_key(job: Job, limits: Limits, seed: int) -> tuple[Any, ...]:
    return (job.program, job.module_name, limits, seed, job.stdin, job.runner,
            json.dumps(job.runner_options, sort_keys=True) if job.runner_options else None)


class Engine:
    """Run untrusted Python in hardened, warm fork servers.

    ``Engine(workers=None)`` starts one server per core.  Use it as a context manager
    (or call :meth:`close`).  ``run``/``map`` are synchronous; ``arun``/``amap`` are
    their asyncio forms.  ``batch_size`` > 1 lets ``map`` run several inputs of the
    *same program* in one child (each input gets a fresh module namespace; builtins and
    ``sys.modules`` are restored between inputs; a crash only costs the input it hit).

    ``isolation``: ``"full"`` (fail unless every layer is active), ``"auto"`` (every
    layer this machine offers) or ``"none"`` (rlimits only; trusted code).

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
        isolation: str = "auto",
        batch_size: int = 1,
        python: str | None = None,
        mount_ro: Sequence[str] = (),
        filesystem: str = "minimal",
    ) -> None:
        if isolation not in ("full", "auto", "none"):
            raise ValueError("isolation must be 'full', 'auto' or 'none'")
        if filesystem not in ("minimal", "host"):
            raise ValueError("filesystem must be 'minimal' or 'host'")
        if filesystem == "host" and isolation == "full":
            raise ValueError("isolation='full' needs the minimal root: filesystem='host' "
                             "shows every host file")
        if isinstance(mount_ro, (str, bytes)):
            raise TypeError("mount_ro must be a list of paths, not one string")
        for path in mount_ro:
            try:
                check_mount_ro(os.fspath(path))
            except (OSError, ValueError) as exc:
                raise ValueError(str(exc)) from exc
        if batch_size < 1:
            raise ValueError("batch_size must be >= 1")
        if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int)
                                    or not 1 <= workers <= _MAX_WORKERS):
            raise ValueError(f"workers must be an integer from 1 to {_MAX_WORKERS} "
                             f"(or None: one per core), not {workers!r}")
        self.workers = workers or os.cpu_count() or 1
        self.limits = limits or Limits()
        self.hash_seed = hash_seed
        self.preload = tuple(preload)
        self.isolation = isolation
        self.batch_size = batch_size
        self.python = resolve_program_python(python)
        self.filesystem = filesystem
        self.mount_ro = tuple(os.path.abspath(os.fspath(p)) for p in mount_ro)
        self._pools: dict[int, _Pool] = {}
        self._lock = threading.Lock()
        self._ids = itertools.count()
        self._closed = False
        self._pool(hash_seed)

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

    def _pool(self, seed: int) -> _Pool:
        with self._lock:
            if self._closed:
                raise EngineError("the engine is closed")
            pool = self._pools.get(seed)
            if pool is None:
                # Other hash seeds are rare (determinism checks): one server suffices.
                size = self.workers if seed == self.hash_seed else 1
                pool = _Pool(self, seed, size)
                pool.start()
                self._pools[seed] = pool
            return pool

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
        return [server.report for pool in list(self._pools.values())
                for server in pool.servers if server is not None]

    @property
    def preload_errors(self) -> dict[str, str]:
        """Modules from ``preload`` that failed to import in the servers."""
        for server in self._pool(self.hash_seed).servers:
            if server is not None:
                return dict(server.preload_errors)
        return {}

    def program_environment(self, packages: Sequence[str] = ("numpy", "pandas")
                            ) -> dict[str, Any]:
        """The interpreter programs run under, as a sandboxed job sees it.

        ``{"executable", "prefix", "version", "packages": {name: version or None}}``;
        versions come from the environment's package metadata (nothing is imported).
        """
        outcome = self.run(Job(_PROGRAM_ENV_PROBE, call=f"probe({list(packages)!r})",
                               limits=Limits(wall_time=30.0)))
        if not outcome.ok:
            raise EngineError(f"could not inspect the program environment: {outcome.message}")
        return dict(outcome.decoded())

    @property
    def restarts(self) -> int:
        """How many servers were replaced after dying."""
        return sum(pool.restarts for pool in self._pools.values())

    # ------------------------------------------------------------------- submit
    def _limits_dict(self, limits: Limits) -> dict[str, Any]:
        data = limits.to_dict()
        data["cpu_seconds"] = limits.cpu_time if limits.cpu_time is not None else (
            limits.wall_time + 1.0)
        return data

    @staticmethod
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

    def _dispatch(self, jobs: list[Job], futures: list[Future[Outcome]],
                  per_child: int | None = None) -> None:
        first = jobs[0]
        limits = first.limits or self.limits
        seed = self.hash_seed if first.hash_seed is None else first.hash_seed
        request = {
            "op": "run",
            "id": next(self._ids),
            "program": first.program,
            "module_name": first.module_name,
            "limits": self._limits_dict(limits),
            "stdin": first.stdin,
            "runner": first.runner,
            "runner_options": dict(first.runner_options) if first.runner_options else None,
            "calls": [self._call_spec(job) for job in jobs],
            "per_child": per_child or len(jobs),
        }
        # The server enforces every deadline; this host-side bound only catches a hung
        # server (it covers every input running to its limit, plus fork slack).
        timeout = 30.0 + len(jobs) * (limits.wall_time + 1.0) * 2
        pool = self._pool(seed)
        try:
            # Encoded here, in the caller's thread: a value JSON cannot carry (a set in
            # runner_options, a lone surrogate...) fails these jobs, not a worker thread.
            payload = encode_frame(request)
        except (TypeError, ValueError, OverflowError, UnicodeError) as exc:
            _fail(jobs, futures, f"the job could not be sent to the sandbox: "
                                 f"{type(exc).__name__}: {exc}")
            return
        pool.queue.put(_Batch(payload, jobs, futures, timeout))

    def submit(self, job: Job) -> Future[Outcome]:
        """Queue one job; returns a future of its outcome."""
        future: Future[Outcome] = Future()
        self._dispatch([job], [future])
        return future

    def submit_batch(self, jobs: Sequence[Job], per_child: int | None = None
                     ) -> list[Future[Outcome]]:
        """Queue jobs that share program, limits, seed, stdin and runner as one request.

        They run in one forked child (``per_child=None``), or ``per_child`` at a time.
        """
        if not jobs:
            return []
        first = jobs[0]
        key = _group_key(first, first.limits or self.limits,
                         self.hash_seed if first.hash_seed is None else first.hash_seed)
        for job in jobs[1:]:
            seed = self.hash_seed if job.hash_seed is None else job.hash_seed
            if _group_key(job, job.limits or self.limits, seed) != key:
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

        ``batch_size`` is how many inputs share one forked child (default: the engine's,
        1 = a fresh child per job).  Consecutive jobs of the same program travel to a
        server together (up to ``max(batch_size, 16)`` per request) whatever the batch
        size, which saves host round trips.  At most ``window`` jobs are in flight
        (default: 8 requests per worker), so millions of jobs stream through in bounded
        memory.  ``progress=True`` shows a progress bar; a callable is called with each
        outcome instead.
        """
        size = batch_size or self.batch_size
        group_size = max(size, _REQUEST_GROUP)
        window = window or self.workers * group_size * 8
        callback, finish = _progress_hook(progress, jobs)
        pending: deque[Future[Outcome]] = deque()
        group_jobs: list[Job] = []
        group_futures: list[Future[Outcome]] = []
        group_key: tuple[Any, ...] | None = None

        def flush() -> None:
            nonlocal group_jobs, group_futures
            if group_jobs:
                self._dispatch(group_jobs, group_futures, per_child=size)
                group_jobs, group_futures = [], []

        def next_outcome() -> Outcome:
            if group_futures and pending[0] is group_futures[0]:
                flush()  # never block on a job still sitting in a partial group
            outcome = pending.popleft().result()
            callback(outcome)
            return outcome

        try:
            for job in jobs:
                seed = self.hash_seed if job.hash_seed is None else job.hash_seed
                key = _group_key(job, job.limits or self.limits, seed)
                if key != group_key or len(group_jobs) >= group_size:
                    flush()
                    group_key = key
                future: Future[Outcome] = Future()
                pending.append(future)
                group_jobs.append(job)
                group_futures.append(future)
                while len(pending) >= window:
                    yield next_outcome()
            flush()
            while pending:
                yield next_outcome()
        finally:
            finish()

    # --------------------------------------------------------------- async API
    async def arun(self, job: Job) -> Outcome:
        """Run one job from asyncio code."""
        return await asyncio.wrap_future(self.submit(job))

    async def amap(self, jobs: Iterable[Job], *, batch_size: int | None = None,
                   concurrency: int | None = None) -> list[Outcome]:
        """Run many jobs from asyncio code; outcomes in input order.

        ``concurrency`` bounds the requests in flight (default: 8 per worker).
        """
        size = batch_size or self.batch_size
        limit = asyncio.Semaphore(concurrency or self.workers * 8)
        job_list = list(jobs)
        groups: dict[tuple[Any, ...], list[int]] = {}
        for index, job in enumerate(job_list):
            seed = self.hash_seed if job.hash_seed is None else job.hash_seed
            groups.setdefault(_group_key(job, job.limits or self.limits, seed), []).append(index)
        results: list[Outcome | None] = [None] * len(job_list)

        async def run_chunk(indices: list[int]) -> None:
            async with limit:
                futures = self.submit_batch([job_list[i] for i in indices], per_child=size)
                outcomes = await asyncio.gather(*(asyncio.wrap_future(f) for f in futures))
            for i, outcome in zip(indices, outcomes):
                results[i] = outcome

        group_size = max(size, _REQUEST_GROUP)
        chunks = [indices[i:i + group_size] for indices in groups.values()
                  for i in range(0, len(indices), group_size)]
        await asyncio.gather(*(run_chunk(chunk) for chunk in chunks))
        return [r for r in results if r is not None]


def _progress_hook(progress: bool | Callable[[Outcome], None], jobs: Iterable[Job]
                   ) -> tuple[Callable[[Outcome], None], Callable[[], None]]:
    if callable(progress):
        return progress, lambda: None
    if not progress:
        return (lambda outcome: None), (lambda: None)
    from rich.progress import Progress

    total = len(jobs) if hasattr(jobs, "__len__") else None  # type: ignore[arg-type]
    bar = Progress(transient=False)
    task = bar.add_task("running", total=total)
    bar.start()
    return (lambda outcome: bar.advance(task)), bar.stop
