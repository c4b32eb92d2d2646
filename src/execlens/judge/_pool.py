"""Judge workers: a few host-side processes that judge so the calling process does not.

One Python process judging a whole batch (reading answers, parsing them, planning jobs,
decoding the engine's frames, comparing values) is a ceiling of its own: on a 16-core
node it tops out near one core whatever the engine's size.  A :class:`JudgePool` spreads
that work over ``processes`` worker processes.  The caller sends each worker a *shard*
(plain picklable data: ground truths, responses) and a top-level function to run on it;
the worker runs the very function the caller would have run in process -- so its
verdicts are the caller's, byte for byte -- and sends back plain results.

What a worker is and is not:

* It runs **no untrusted code**.  It parses model output as data and compares decoded
  envelopes, exactly as the host did; programs run only in the engine's sandbox
  children.  Each worker that needs execution owns its own engine (made on first need
  by the pool's ``engine_factory``), so an engine's one-process-per-origin rule holds
  inside every worker unchanged.
* It is a fresh interpreter (``python -c``, the caller's ``sys.path``): nothing of the
  caller -- threads, a GPU context, open files -- is inherited, and unlike
  multiprocessing's ``spawn`` it never re-runs the caller's main script (a training
  script without a ``__main__`` guard would start training again in every worker).
  So the functions it runs must be importable (not defined in ``__main__``).
* It is the caller's child and dies with it (a closed pipe ends its loop).

Shards are dealt dynamically: a worker gets the next shard when it sends a result, so a
slow shard (programs that loop to their time limit) does not hold the others up.  A
worker that dies (killed from outside) is replaced and its shard run once more on the
fresh one; a shard that kills a second worker, or a function that raises, fails the call
with a :class:`JudgePoolError` naming it, after the other workers' replies are taken, so
the pool stays usable.
"""

from __future__ import annotations

import atexit
import os
import pickle
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from multiprocessing.connection import Connection, wait
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from execlens.engine import Engine

__all__ = [
    "EngineGetter",
    "JudgePool",
    "JudgePoolError",
    "close_at_exit",
    "pack",
    "shard_sizes",
]

T = TypeVar("T")
R = TypeVar("R")

#: What a shard function receives first: call it for the worker's engine (made once).
EngineGetter = Callable[[], "Engine"]

#: A shard should hold at least this much judging (seconds, measured per item): fewer,
#: larger shards cost the caller less per item; more, smaller ones balance better.
TARGET_SHARD_SECONDS = 0.02
#: At most this many shards per worker in one call (balance without chatter).
MAX_SHARDS_PER_WORKER = 1
#: A shard whose worker dies is run once more on a fresh worker (a worker killed from
#: outside, e.g. by the OOM killer); a second death on it fails the call, named.
MAX_DEATHS_PER_SHARD = 1


#: The worker's command: its loop over the socket whose descriptor is its argument.
_WORKER_MAIN = "import sys; from execlens.judge._pool import _serve; _serve(int(sys.argv[1]))"


class JudgePoolError(RuntimeError):
    """A judge worker failed outside any one item (it died, or its function raised)."""


def _serve(fd: int) -> None:
    """A worker's loop: receive the engine factory, then ``(function, shard)`` messages;
    send ``(ok, result, seconds)`` for each."""
    conn = Connection(fd)
    engine_factory: Callable[[], Engine] | None = pickle.loads(conn.recv_bytes())
    engine: list[Engine] = []

    def get_engine() -> Engine:
        if not engine:
            if engine_factory is None:
                raise JudgePoolError("this judge pool has no engine factory")
            engine.append(engine_factory())
        return engine[0]

    try:
        while True:
            try:
                data = conn.recv_bytes()
            except EOFError:
                return
            started = time.perf_counter()
            try:
                # Unpickled here, so a function this worker cannot import is named to
                # the caller like any other failure rather than ending the worker.
                message = pickle.loads(data)
                if message is None:
                    return
                function, shard = message
                result = function(get_engine, shard)
                reply = (True, result, time.perf_counter() - started)
            except BaseException as exc:  # noqa: BLE001 - reported to the caller, named
                reply = (False, f"{type(exc).__name__}: {exc}"[:2000], 0.0)
            conn.send(reply)
    finally:
        if engine:
            engine[0].close()


def shard_sizes(costs: Sequence[float], workers: int, per_item: float) -> int:
    """How many shards ``len(costs)`` groups of work (each ``costs[i]`` items) make: no
    more than hold about :data:`TARGET_SHARD_SECONDS` each at ``per_item`` seconds an
    item (a small batch wakes one worker, not all), at most
    :data:`MAX_SHARDS_PER_WORKER` per worker.

    One shard per worker measured best: a worker judges a shard's groups concurrently
    on its engine, and each shard boundary drains that engine (its slowest child), so
    cutting a batch finer costs more in drained servers than it gains in balance."""
    total = sum(costs)
    wanted = int(total * per_item / TARGET_SHARD_SECONDS) + 1
    return max(1, min(len(costs), wanted, workers * MAX_SHARDS_PER_WORKER))


def pack(groups: Sequence[list[int]], shards: int) -> list[list[int]]:
    """Deal whole groups (lists of item indices) into ``shards`` lists of about equal
    size, largest groups first; each list comes back in item order."""
    bins: list[list[int]] = [[] for _ in range(shards)]
    for group in sorted(groups, key=len, reverse=True):
        min(bins, key=len).extend(group)
    return [sorted(b) for b in bins if b]


class JudgePool:
    """``processes`` judge worker processes (see the module docstring).

    ``engine_factory``: a picklable callable (a top-level function or a
    :func:`functools.partial` of one) that makes a worker's engine on its first need;
    ``env``: variables set in the workers (over this process's environment).
    """

    def __init__(
        self,
        processes: int,
        engine_factory: Callable[[], Engine] | None = None,
        *,
        env: Mapping[str, str] | None = None,
    ) -> None:
        if processes < 1:
            raise ValueError(f"a judge pool needs at least one process, got {processes}")
        self._lock = threading.Lock()
        self._conns: list[Connection] = []
        self._procs: list[subprocess.Popen[bytes]] = []
        self.pid = os.getpid()
        #: Seconds per item measured on the last call (a worker's wall time per item).
        self.per_item = 0.0
        self._factory = pickle.dumps(engine_factory)
        self._env = dict(os.environ, **(env or {}))
        self._env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
        for _ in range(processes):
            conn, process = self._spawn()
            self._conns.append(conn)
            self._procs.append(process)

    def _spawn(self) -> tuple[Connection, subprocess.Popen[bytes]]:
        ours, theirs = socket.socketpair()
        process = subprocess.Popen(
            [sys.executable, "-c", _WORKER_MAIN, str(theirs.fileno())],
            pass_fds=(theirs.fileno(),),
            env=self._env,
            stdin=subprocess.DEVNULL,
        )
        theirs.close()
        conn = Connection(ours.detach())
        conn.send_bytes(self._factory)
        return conn, process

    def _replace(self, conn: Connection) -> tuple[Connection, str]:
        """Reap the dead worker behind ``conn``, start a fresh one in its place; returns
        the new connection and a sentence naming the dead one."""
        slot = self._conns.index(conn)
        dead = self._procs[slot]
        try:
            code = dead.wait(10)
        except subprocess.TimeoutExpired:  # its socket broke but it lives: end it
            dead.kill()
            code = dead.wait()
        conn.close()
        self._conns[slot], self._procs[slot] = self._spawn()
        return self._conns[slot], f"judge worker {dead.pid} died (exit status {code})"

    @property
    def processes(self) -> int:
        """How many workers the pool has."""
        return len(self._procs)

    @property
    def pids(self) -> list[int]:
        """The workers' process ids (for accounting)."""
        return [p.pid for p in self._procs]

    def map(
        self, function: Callable[[EngineGetter, T], R], shards: Sequence[T], items: int = 0
    ) -> list[R]:
        """``function(get_engine, shard)`` for every shard, in the workers; the results in
        shard order.  ``items``: how many items the shards hold (for :attr:`per_item`)."""
        if self.pid != os.getpid():
            raise JudgePoolError("a judge pool cannot be used from a forked process")
        results: list[Any] = [None] * len(shards)
        with self._lock:
            idle = list(self._conns)
            busy: dict[Connection, int] = {}
            queue = list(range(len(shards)))[::-1]
            deaths: dict[int, int] = {}
            spent = 0.0
            while queue or busy:
                while idle and queue:
                    conn, index = idle.pop(), queue.pop()
                    busy[conn] = index
                    try:
                        conn.send((function, shards[index]))
                    except OSError:
                        pass  # a dead worker: its EOF below replaces it
                for ready in wait(list(busy)):
                    conn = ready  # type: ignore[assignment]
                    index = busy.pop(conn)
                    try:
                        ok, result, seconds = conn.recv()
                    except (EOFError, OSError):
                        fresh, what = self._replace(conn)
                        deaths[index] = deaths.get(index, 0) + 1
                        if deaths[index] > MAX_DEATHS_PER_SHARD:
                            self._drain(busy)
                            raise JudgePoolError(f"{what} on shard {index}, again") from None
                        queue.append(index)  # once more, on the fresh worker
                        idle.append(fresh)
                        continue
                    if not ok:
                        self._drain(busy)
                        raise JudgePoolError(result)
                    results[index] = result
                    spent += seconds
                    idle.append(conn)
            if items:
                self.per_item = spent / items
        return results

    def _drain(self, busy: dict[Connection, int]) -> None:
        """Take the replies still owed by ``busy`` workers (a failed call must not leave
        them for the next one); a worker that dies meanwhile is replaced."""
        for conn in list(busy):
            try:
                conn.recv()
            except (EOFError, OSError):
                self._replace(conn)
        busy.clear()

    def broadcast(self, function: Callable[[EngineGetter, T], R], argument: T) -> list[R]:
        """``function(get_engine, argument)`` once in every worker (e.g. to read each
        engine's counters); the results in worker order."""
        if self.pid != os.getpid():
            raise JudgePoolError("a judge pool cannot be used from a forked process")
        replies = []
        with self._lock:
            for conn in self._conns:
                try:
                    conn.send((function, argument))
                except OSError:
                    pass  # a dead worker: named below
            for conn in list(self._conns):
                try:
                    replies.append(conn.recv())
                except (EOFError, OSError):
                    replies.append((False, self._replace(conn)[1], 0.0))
        for ok, result, _ in replies:
            if not ok:
                raise JudgePoolError(result)
        return [result for _, result, _ in replies]

    def close(self) -> None:
        """Stop the workers (each closes its engine)."""
        if self.pid != os.getpid():
            return
        for conn in self._conns:
            try:
                conn.send(None)
            except OSError:
                pass
        for process in self._procs:
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        for conn in self._conns:
            conn.close()
        self._conns, self._procs = [], []

    def __enter__(self) -> JudgePool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def close_at_exit(pool: JudgePool) -> None:
    """Close ``pool`` when the interpreter exits."""
    atexit.register(pool.close)
