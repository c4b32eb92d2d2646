"""The servers of one hash seed and the worker threads that feed them batches."""

from __future__ import annotations

import queue
import threading
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field

from execlens.engine._errors import EngineError
from execlens.engine._process import ServerProcess
from execlens.engine._protocol import FrameError
from execlens.engine._types import Job, Outcome, Status

__all__ = ["Batch", "Pool", "fail"]

_PIPELINE_DEPTH = 2


@dataclass
class Batch:
    """One request on its way to a server: its jobs and the futures their outcomes settle."""

    payload: bytes  # the request, already framed: encoding errors belong to the caller
    jobs: list[Job]
    futures: list[Future[Outcome]]
    timeout: float


@dataclass
class Pool:
    """The servers of one hash seed, each driven by its own worker thread."""

    spawn: Callable[[int], ServerProcess]  # a started server of the given hash seed
    hash_seed: int
    size: int
    queue: queue.Queue[Batch | None] = field(default_factory=queue.Queue)
    threads: list[threading.Thread] = field(default_factory=list)
    servers: list[ServerProcess | None] = field(default_factory=list)
    restarts: int = 0
    thread_failures: int = 0
    stopping: bool = False

    def start(self) -> None:
        """Start ``size`` servers, each from its own worker thread; raise the first failure."""
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

    def _spawn(self) -> ServerProcess:
        return self.spawn(self.hash_seed)

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
        inflight: deque[Batch] = deque()
        try:
            self._serve_slot(slot, inflight)
        except BaseException as exc:  # noqa: BLE001 - no caller may be left waiting
            self._thread_died(slot, inflight, exc)
            return
        server = self.servers[slot]
        if server is not None:
            server.close()

    def _thread_died(self, slot: int, inflight: deque[Batch], exc: BaseException) -> None:
        """This slot's thread hit an unexpected error: fail its jobs, start a new thread.

        Whatever the error, every job it had taken ends as ``sandbox_error`` (a waiting
        ``run``/``map`` returns instead of hanging), its server is replaced, and a fresh
        thread takes over the slot so jobs still queued are served.
        """
        self.thread_failures += 1
        reason = f"the engine's worker thread failed ({type(exc).__name__}: {exc})"
        for batch in inflight:
            fail(batch.jobs, batch.futures, reason)
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

    def _serve_slot(self, slot: int, inflight: deque[Batch]) -> None:
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

    def _server(self, slot: int) -> ServerProcess:
        server = self.servers[slot]
        if server is None or not server.alive:
            if server is not None:
                server.close()
                self.restarts += 1
            server = self.servers[slot] = self._spawn()
        return server

    def _send(self, slot: int, batch: Batch) -> bool:
        try:
            self._server(slot).send(batch.payload)
            return True
        except (OSError, EngineError):
            return False

    def _receive(self, slot: int, inflight: deque[Batch]) -> None:
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

    def _server_lost(self, slot: int, inflight: deque[Batch], reason: str) -> None:
        """The server died: the batch it was running fails, the queued ones move over."""
        server = self.servers[slot]
        if server is not None:
            server.close()
        self.servers[slot] = None
        self.restarts += 1
        failed = inflight.popleft()
        fail(failed.jobs, failed.futures, f"execution server died and was replaced ({reason})")
        for batch in list(inflight):
            if not self._send(slot, batch):
                self._server_lost(slot, inflight, "the replacement server failed too")
                return

    def stop(self) -> None:
        """Stop every worker thread (each closes its server) and wait for them."""
        self.stopping = True
        threads = list(self.threads)
        for _ in threads:
            self.queue.put(None)
        for thread in threads:
            thread.join(timeout=30)
        self.threads.clear()


def fail(jobs: Sequence[Job], futures: Sequence[Future[Outcome]], message: str) -> None:
    """End every still-pending future as ``sandbox_error`` with ``message``."""
    for job, future in zip(jobs, futures):
        if not future.done():
            future.set_result(Outcome(Status.SANDBOX_ERROR, tag=job.tag, message=message))
