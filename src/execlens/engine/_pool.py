"""The servers of one hash seed and the worker threads that feed them batches.

Work stealing: a request of one program's inputs runs in one server, so at the end of a
run one request of slow inputs (a function whose pairs each compute for a second) would
keep one server busy while the others idle.  A worker with nothing queued therefore asks
a busy server, by a ``trim``, for the inputs of its request that have not started (half
of them; all of a request it has not begun) and runs them itself.  Only requests running
for ``STEAL_AFTER`` or more are asked: a fork costs a few milliseconds, and splitting a
request of fast inputs would cost more than it saves.
"""

from __future__ import annotations

import queue
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field

from execlens.engine._errors import EngineError
from execlens.engine._process import ServerProcess
from execlens.engine._protocol import FrameError, encode_frame
from execlens.engine._types import Job, Outcome, Status

__all__ = ["STEAL_AFTER", "Batch", "Pool", "fail"]

_PIPELINE_DEPTH = 2
STEAL_AFTER = 0.02  # seconds a request runs before an idle worker takes part of it


@dataclass
class Batch:
    """One request on its way to a server: its jobs and the futures their outcomes settle."""

    payload: bytes  # the request, already framed: encoding errors belong to the caller
    jobs: list[Job]
    futures: list[Future[Outcome]]
    timeout: float
    request_id: int = -1
    # The batch of some of these jobs as a new request (None: cannot be split).
    rebuild: Callable[[list[Job], list[Future[Outcome]]], Batch | None] | None = None
    started: float = 0.0  # when its server began it, as far as the host knows
    handoff: Future[Batch | None] | None = None  # set while an idle worker asks for a part

    def give_away(self, keep: int) -> Batch | None:
        """Keep the first ``keep`` jobs; the rest as a new batch (None if there is none)."""
        if keep >= len(self.jobs) or self.rebuild is None:
            return None
        rest = self.rebuild(self.jobs[keep:], self.futures[keep:])
        self.jobs, self.futures = self.jobs[:keep], self.futures[:keep]
        return rest


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
    steals: int = 0  # requests split by an idle worker
    # Each slot's batches sent and not answered (oldest first), shared for stealing.
    inflight: list[deque[Batch]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    # Idle workers wait here (on ``lock``) for a batch or a request to split.
    wakeup: threading.Condition = field(init=False)

    def __post_init__(self) -> None:
        self.wakeup = threading.Condition(self.lock)

    def start(self) -> None:
        """Start ``size`` servers, each from its own worker thread; raise the first failure."""
        self.servers = [None] * self.size
        self.inflight = [deque() for _ in range(self.size)]
        first_error: list[BaseException] = []
        ready = threading.Barrier(self.size + 1)
        for slot in range(self.size):
            thread = threading.Thread(
                target=self._work,
                args=(slot, ready, first_error),
                name=f"execlens-engine-{self.hash_seed}-{slot}",
                daemon=True,
            )
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
        with self.lock:
            self.inflight[slot] = inflight
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
        with self.lock:
            batches = list(inflight)
            inflight.clear()
        for batch in batches:
            _no_handoff(batch)
            fail(batch.jobs, batch.futures, reason)
        server = self.servers[slot]
        self.servers[slot] = None
        if server is not None:
            try:
                server.close()
            except BaseException:  # noqa: BLE001 - already failing; the process is gone
                pass
        if self.stopping:
            return
        thread = threading.Thread(
            target=self._run_slot,
            args=(slot,),
            name=f"execlens-engine-{self.hash_seed}-{slot}",
            daemon=True,
        )
        self.threads.append(thread)
        thread.start()

    def _serve_slot(self, slot: int, inflight: deque[Batch]) -> None:
        # Up to _PIPELINE_DEPTH batches wait in the server's socket, so the server starts
        # the next one the moment it answers, without waiting for this thread.
        stopping = False
        while True:
            while not stopping and len(inflight) < _PIPELINE_DEPTH:
                if inflight:
                    try:
                        batch = self.queue.get_nowait()
                    except queue.Empty:
                        break
                else:
                    batch = self._next_when_idle(slot)
                if batch is None:
                    stopping = True
                    break
                with self.lock:
                    if not inflight:
                        self._begin(batch)
                    inflight.append(batch)
                if not self._send(slot, batch):
                    self._server_lost(slot, inflight, "could not send the job")
            if not inflight:
                if stopping:
                    return
                continue
            self._receive(slot, inflight)

    def put(self, batch: Batch | None) -> None:
        """Queue a batch (``None``: a worker's signal to stop) and wake an idle worker."""
        self.queue.put(batch)
        with self.wakeup:
            self.wakeup.notify()

    def _next_when_idle(self, slot: int) -> Batch | None:
        """A queued batch, else part of a busy server's request; waits for either."""
        while True:
            with self.wakeup:
                while True:
                    try:
                        return self.queue.get_nowait()
                    except queue.Empty:
                        pass
                    chosen, wait = self._victim(slot)
                    if chosen is not None:
                        break
                    # Woken by a new batch, a request begun elsewhere, or when the
                    # oldest running request becomes worth splitting.
                    self.wakeup.wait(wait)
                victim, batch = chosen
                handoff: Future[Batch | None] = Future()
                batch.handoff = handoff
                server = self.servers[victim]
            try:
                if server is not None:
                    server.send(encode_frame({"op": "trim", "id": batch.request_id}))
            except OSError:
                pass  # the victim's thread finds its server lost and settles the handoff
            # Settled by the victim's thread: with the part (the trim answered), or None
            # (its outcomes came first, or its server died).
            stolen = handoff.result()
            if stolen is not None:
                self.steals += 1
                return stolen

    def _victim(self, slot: int) -> tuple[tuple[int, Batch] | None, float | None]:
        """(Called under ``lock``.)  The batch of another slot to ask for inputs it has
        not started, with its slot; else how long until a running request becomes worth
        splitting (None: none will)."""
        if self.stopping:
            return None, None
        now = time.monotonic()
        wait: float | None = None
        chosen: tuple[int, Batch] | None = None
        for other, batches in enumerate(self.inflight):
            if other == slot or not batches:
                continue
            head = batches[0]
            # A batch waiting behind the head has not begun: all of it can go.
            candidates = [b for b in list(batches)[1:] if b.jobs]
            if len(head.jobs) > 1:
                candidates.append(head)
            candidates = [b for b in candidates if b.handoff is None and b.rebuild]
            if not candidates:
                continue
            age = now - head.started
            if age < STEAL_AFTER:
                wait = STEAL_AFTER - age if wait is None else min(wait, STEAL_AFTER - age)
            elif chosen is None or len(candidates[0].jobs) > len(chosen[1].jobs):
                chosen = (other, candidates[0])
        return chosen, wait

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
            reply = server.receive(batch.timeout)
            while "outcomes" not in reply:  # answers to trims come first
                self._trimmed(inflight, reply)
                reply = server.receive(batch.timeout)
            replies = reply["outcomes"]
            if not isinstance(replies, list):
                raise EngineError("execution server error: outcomes are not a list")
        except (EOFError, TimeoutError, OSError, FrameError, EngineError) as exc:
            self._server_lost(slot, inflight, str(exc))
            return
        with self.lock:
            inflight.popleft()
            if inflight:
                self._begin(inflight[0])
        _no_handoff(batch)  # a trim still unanswered: the request ended before it
        for job, future, reply in zip(batch.jobs, batch.futures, replies):
            try:
                future.set_result(Outcome.from_dict(reply, tag=job.tag))
            except (KeyError, ValueError, TypeError) as exc:
                future.set_result(
                    Outcome(Status.SANDBOX_ERROR, tag=job.tag, message=f"malformed outcome: {exc}")
                )
        fail(
            batch.jobs[len(replies) :],
            batch.futures[len(replies) :],
            "the execution server returned too few outcomes",
        )

    def _begin(self, batch: Batch) -> None:
        """(Called under ``lock``.)  ``batch`` now runs on its server: idle workers
        reckon from now when to ask for part of it."""
        batch.started = time.monotonic()
        self.wakeup.notify_all()

    def _trimmed(self, inflight: deque[Batch], reply: dict[str, object]) -> None:
        """A trim was answered: hand the inputs the server gave away to the worker that
        asked."""
        with self.lock:
            batch = next((b for b in inflight if b.request_id == reply.get("id")), None)
            if batch is None or batch.handoff is None:
                return
            handoff, batch.handoff = batch.handoff, None
            keep = reply.get("trimmed")
            stolen = batch.give_away(keep) if isinstance(keep, int) and keep >= 0 else None
            if stolen is None:
                # Every input has started (they never un-start): asking again would only
                # spin the idle worker and this server.
                batch.rebuild = None
        handoff.set_result(stolen)

    def _server_lost(self, slot: int, inflight: deque[Batch], reason: str) -> None:
        """The server died: the batch it was running fails, the queued ones move over."""
        server = self.servers[slot]
        if server is not None:
            server.close()
        self.servers[slot] = None
        self.restarts += 1
        with self.lock:
            failed = inflight.popleft()
            if inflight:
                self._begin(inflight[0])
            waiting = list(inflight)
        for batch in [failed, *waiting]:
            _no_handoff(batch)  # its trim died with the server; the batch stays whole
        fail(failed.jobs, failed.futures, f"execution server died and was replaced ({reason})")
        for batch in waiting:
            if not self._send(slot, batch):
                self._server_lost(slot, inflight, "the replacement server failed too")
                return

    def stop(self) -> None:
        """Stop every worker thread (each closes its server) and wait for them."""
        self.stopping = True
        threads = list(self.threads)
        for _ in threads:
            self.put(None)
        for thread in threads:
            thread.join(timeout=30)
        self.threads.clear()


def _no_handoff(batch: Batch) -> None:
    """Tell a worker waiting for part of ``batch`` that it gets none."""
    handoff, batch.handoff = batch.handoff, None
    if handoff is not None and not handoff.done():
        handoff.set_result(None)


def fail(jobs: Sequence[Job], futures: Sequence[Future[Outcome]], message: str) -> None:
    """End every still-pending future as ``sandbox_error`` with ``message``."""
    for job, future in zip(jobs, futures):
        if not future.done():
            future.set_result(Outcome(Status.SANDBOX_ERROR, tag=job.tag, message=message))
