"""The fork server: a warm interpreter whose zygote forks one locked-down child per batch.

Started by the host as ``python -m execlens.engine._server FD`` with a minimal
environment and one end of a socketpair on ``FD``.  Protocol (JSON frames):

1. host → server: ``{"preload": [...], "isolation": ..., "seccomp": {...}}``
2. server → host: ``{"ready": true, "report": {...}, "preload_errors": {...}, "pid": N}``
3. then any number of host → server ``{"op": "run", "id": ..., ...batch...}`` each
   answered by ``{"id": ..., "outcomes": [...]}``, or ``{"op": "ping"}`` → ``{"pong": true}``;
4. and, at any time, host → server ``{"op": "trim", "id": ...}``: an idle worker of the
   host asks for inputs of request ``id`` that have not started.  If that request is
   running, the server keeps the input running now and the first half of the rest, and
   answers at once ``{"id": ..., "trimmed": N}``: it will only run inputs ``[0, N)``
   (its ``outcomes`` then hold N entries; the host runs the rest elsewhere).  A request
   read but not begun is given away whole (``N = 0``); a finished or unknown one gets
   no answer (the host learns from its outcomes that nothing was trimmed).  Without it,
   one request of slow inputs keeps one server busy while the others idle at the end
   of a run.

Two processes per worker.  The *zygote* (:mod:`execlens.engine._zygote`) holds the
warm interpreter and does nothing but fork.  The *server* (its parent, never forked
again) does the talking: it decides which inputs share a child (consecutive inputs of
one origin, at most ``per_child``; never two origins), gives each child its own pipes,
starts its inputs one by one (:mod:`execlens.engine._watch`), enforces each input's
wall deadline (poll + SIGKILL of the child's process group), caps raw fd output, checks
every result frame, sweeps every process the sandbox uid left behind, and never runs
program code.  A child the state guard retired (:mod:`execlens.engine._guard`) is
replaced by a fresh one for the inputs left.
"""

from __future__ import annotations

import gc
import importlib
import marshal
import os
import select
import signal
import sys
import time
from collections import deque
from typing import Any

from execlens.engine._child import prepare_server
from execlens.engine._errors import IsolationUnavailable
from execlens.engine._isolation import (
    ServerIsolation,
    set_parent_death_signal,
    setup_server_isolation,
)
from execlens.engine._protocol import (
    FrameError,
    decode_json,
    read_frame,
    read_frame_bytes,
    write_frame,
)
from execlens.engine._rootfs import plan_root
from execlens.engine._scratch import Scratch
from execlens.engine._watch import REQUEST_BUDGET, ChildPipes, ChildWatch
from execlens.engine._zygote import Zygote, reap_all

# ------------------------------------------------------------------------ server side
# The job's scratch dir and /dev/shm, made and emptied through descriptors (never by
# following a link), and the per-job clean-up of IPC objects, tmpfs and cgroup sizes.
_Scratch = Scratch


def _kill_uid(uid: int) -> None:
    """SIGKILL every process of the sandbox uid, whatever session or group it escaped to."""
    # Become the sandbox uid (saved uid stays root, effective capabilities drop) so
    # kill(-1) reaches exactly the processes that uid owns, and nothing else.
    os.setresuid(uid, uid, 0)
    try:
        os.kill(-1, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    finally:
        os.setresuid(0, 0, 0)


def _kill_group(pid: int) -> None:
    # The group first: the child made its own, so this reaches whatever it spawned
    # there.  The pid alone only if that group never existed (setpgid failed).
    try:
        os.kill(-pid, signal.SIGKILL)
        return
    except (ProcessLookupError, PermissionError):
        pass
    try:
        os.kill(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def child_stop(calls: list[dict[str, Any]], start: int, limit: int, per_child: int) -> int:
    """Where the child that starts at input ``start`` stops: after ``per_child`` inputs,
    at ``limit``, and at the first input of another origin (``"o"`` in its call)."""
    stop = min(limit, start + per_child)
    origin = calls[start].get("o")
    for index in range(start + 1, stop):
        if origin is None or calls[index].get("o") != origin:
            return index
    return stop


class _Server:
    def __init__(self, sock: int, iso: ServerIsolation) -> None:
        self.sock = sock
        self.iso = iso
        self.scratch = _Scratch(iso)
        prepare_server(self.scratch.path)
        # One poll set for the server's life: the host's socket stays in it, each child's
        # pipes and pidfd join it for that child's run.  The host's socket must be
        # polled too: a trim must be answered while a child runs.  Frames read there
        # that are not trims wait in ``pending`` for ``serve``; ``None`` in it means the
        # host's stream ended or broke.
        self.poller = select.poll()
        self.poller.register(sock, select.POLLIN)
        self.pending: deque[dict[str, Any] | None] = deque()
        self.given_away: set[int] = set()  # ids of read, not begun requests trimmed to 0
        self.request_id: Any = None  # the request running now
        self.limit = 0  # its inputs [0, limit) run here (less than all once trimmed)
        self.watch: ChildWatch | None = None  # its child running now
        self.zygote = self._new_zygote()

    def _new_zygote(self) -> Zygote:
        # gc.freeze(): frozen objects are never scanned by the children's GC, so forks
        # stay cheap (fewer copy-on-write page faults).
        gc.collect()
        gc.freeze()
        return Zygote(self.iso, self.scratch.path, keep_closed=[self.sock])

    def serve(self) -> None:
        """Answer the host's requests until its stream ends."""
        while True:
            request = self.pending.popleft() if self.pending else self._read_request()
            if request is None:
                return
            op = request.get("op")
            if op == "ping":
                write_frame(self.sock, {"pong": True})
            elif op == "run":
                request_id = request.get("id")
                if isinstance(request_id, int) and request_id in self.given_away:
                    # Trimmed to nothing before it began: the host ran it elsewhere.
                    self.given_away.discard(request_id)
                    outcomes: list[dict[str, Any]] = []
                else:
                    outcomes = self.run_batch(request)
                write_frame(self.sock, {"id": request.get("id"), "outcomes": outcomes})
            elif op == "trim":
                continue  # its request already ended here: the outcomes said all
            else:
                write_frame(self.sock, {"id": request.get("id"), "error": f"unknown op {op!r}"})

    def _read_request(self) -> dict[str, Any] | None:
        """The next frame from the host, decoded; ``None`` when the stream ended or broke."""
        try:
            raw = read_frame_bytes(self.sock)
            if raw is None:
                return None
            request = decode_json(raw)
        except (FrameError, OSError):
            return None
        return request if isinstance(request, dict) else None

    def _host_message(self) -> None:
        """Read the frame the host sent while a child runs: answer a trim now, keep the
        rest for ``serve``."""
        message = self._read_request()
        if message is None:
            # Stop listening (a closed socket polls readable for ever); ``serve`` ends
            # once this request is done.
            self.poller.unregister(self.sock)
            self.pending.append(None)
        elif message.get("op") == "trim":
            self._trim(message.get("id"))
        else:
            self.pending.append(message)

    def _trim(self, request_id: Any) -> None:
        """Give inputs of request ``request_id`` that have not started back to the host."""
        watch = self.watch
        if request_id == self.request_id and watch is not None and watch.running:
            # Inputs run in order: those after the current one have not started.  Keep
            # the first half of them (rounded down), give the rest away.
            unstarted = self.limit - (watch.current + 1)
            kept = self.limit - (unstarted + 1) // 2
            self.limit = kept
            watch.stop = min(watch.stop, kept)
        elif isinstance(request_id, int) and any(
            pending is not None and pending.get("op") == "run" and pending.get("id") == request_id
            for pending in self.pending
        ):
            kept = 0
            self.given_away.add(request_id)
        else:
            return
        write_frame(self.sock, {"id": request_id, "trimmed": kept})

    def run_batch(self, request: dict[str, Any]) -> list[dict[str, Any]]:
        """Run every input of one request."""
        calls = request["calls"]
        # The children decode this with marshal (fast, few page faults); it only ever
        # carries data the server itself parsed from the host's JSON.
        encoded = marshal.dumps(request)
        results: list[dict[str, Any] | None] = [None] * len(calls)
        self.request_id, self.limit = request.get("id"), len(calls)
        budget = [REQUEST_BUDGET]
        start = 0
        try:
            while start < self.limit:  # ``_trim`` may lower the limit as we go
                start = self._run_child(request, encoded, start, results, budget)
        finally:
            self.request_id = self.watch = None
        return [
            r if r is not None else {"status": "sandbox_error", "message": "no result"}
            for r in results[: self.limit]
        ]

    def _replace_zygote(self) -> None:
        self.zygote.close()
        # As its PID namespace's init, the server inherits what the old zygote left.
        reap_all()
        self.zygote = self._new_zygote()

    def _fork(self, payload: bytes, pipes: ChildPipes, timeout: float) -> int | None:
        """A child for ``payload`` on ``pipes``; ``None`` if compiling it outlasted
        ``timeout``."""
        try:
            return self.zygote.fork(payload, pipes.child_ends(), timeout)
        except TimeoutError:
            self._replace_zygote()
            return None
        except (RuntimeError, OSError):
            # The zygote died (it never runs program code, but it compiles it, and the
            # OOM killer may strike): replace it and try once more.
            self._replace_zygote()
            return self.zygote.fork(payload, pipes.child_ends(), timeout)

    def _run_child(
        self,
        request: dict[str, Any],
        encoded: bytes,
        start: int,
        results: list[dict[str, Any] | None],
        budget: list[int],
    ) -> int:
        """Fork one child for the inputs from ``start`` it may run; return where to resume."""
        limits = request["limits"]
        wall = float(limits["wall_time"])
        calls = request["calls"]
        stop = child_stop(calls, start, self.limit, int(request.get("per_child") or len(calls)))
        self.scratch.reset(int(limits["memory_mb"]), int(limits["max_processes"]))
        pipes = ChildPipes()
        watch = ChildWatch(pipes, start, stop, results, int(limits["output_bytes"]), budget)
        try:
            # The first input's start waits in the control pipe: the child reads it at once.
            watch.begin(start)
            pid = self._fork(encoded, pipes, timeout=wall + 5.0)
            pipes.close_child_ends()
            if pid is None:
                results[start] = {
                    "status": "timeout",
                    "duration": wall + 5.0,
                    "message": "compiling the program exceeded the time limit",
                }
                return start + 1
            self.watch = watch
            ended, input_started = self._watch_child(pid, watch, wall)
        finally:
            pipes.close()
        current = watch.current
        for index in sorted(watch.accepted):
            record = results[index]
            assert record is not None
            watch.attach_raw_output(index, record)
        if watch.failure is None and watch.done:
            # Every result is in (or the child retired after its last one): the zygote
            # reaps the child before its next fork.
            return current + 1
        wait_status, peak_kb = self.zygote.wait(pid)
        record = self._failure_record(watch.failure, wait_status, round(peak_kb / 1024, 3))
        record["duration"] = ended - input_started
        watch.attach_raw_output(current, record)
        results[current] = record
        return current + 1

    def _watch_child(self, pid: int, watch: ChildWatch, wall: float) -> tuple[float, float]:
        """Poll the child's pipes until it is done, fails, exits or runs out of time;
        then kill it.  Returns when it ended and when its last input started."""
        # The pidfd turns readable when the child exits, even if a grandchild still holds
        # a pipe open: then we stop waiting instead of running into the deadline.
        pidfd = os.pidfd_open(pid)
        poller = self.poller
        pipes = watch.pipes
        for fd in (pidfd, pipes.result_r, pipes.output_r):
            poller.register(fd, select.POLLIN)
        try:
            input_started = time.monotonic()
            deadline = input_started + wall
            while watch.running:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    watch.fail("timeout", f"wall time limit of {wall:g} s exceeded")
                    break
                events = poller.poll(max(1, int(remaining * 1000) + 1))
                before = watch.current
                for fd, _event in events:
                    if fd == pidfd:
                        watch.drain()  # what the child wrote before it died
                        watch.exited = True
                    elif fd == self.sock:
                        self._host_message()
                    else:
                        watch.read(fd)
                if watch.current != before:
                    input_started = time.monotonic()
                    deadline = input_started + wall
            # Done with this child either way: it never outlives its last result.
            ended = time.monotonic()
            _kill_group(pid)
            self._sweep()
        finally:
            for fd in (pidfd, pipes.result_r, pipes.output_r):
                poller.unregister(fd)
            os.close(pidfd)
        return ended, input_started

    def _sweep(self) -> None:
        """Kill every process the sandbox left behind (the zygote reaps them)."""
        if self.iso.uid is not None and os.geteuid() == 0:
            _kill_uid(self.iso.uid)
            return
        # Without a sandbox uid, what a job left behind is reparented to the zygote.
        for child in self.zygote.children():
            _kill_group(child)

    def _failure_record(
        self, failure: tuple[str, str] | None, wait_status: int, peak_mb: float
    ) -> dict[str, Any]:
        record: dict[str, Any] = {"peak_memory_mb": peak_mb}
        if failure is not None:
            record["status"], record["message"] = failure
            return record
        if os.WIFSIGNALED(wait_status):
            number = os.WTERMSIG(wait_status)
            record["signal"] = number
            if number == signal.SIGXCPU:
                record["status"] = "timeout"
                record["message"] = "CPU time limit exceeded (SIGXCPU)"
            elif number == signal.SIGXFSZ:
                record["status"] = "crashed"
                record["message"] = "file size limit exceeded (SIGXFSZ)"
            else:
                record["status"] = "crashed"
                record["message"] = f"killed by {_signal_name(number)}"
            return record
        code = os.WEXITSTATUS(wait_status) if os.WIFEXITED(wait_status) else None
        record["exit_code"] = code
        record["status"] = "crashed"
        record["message"] = f"the process exited (code {code}) without returning a result"
        return record


def _preload(names: list[str]) -> dict[str, str]:
    errors = {}
    for name in names:
        try:
            importlib.import_module(name)
        except BaseException as exc:  # noqa: BLE001 - report, don't die
            errors[name] = f"{type(exc).__name__}: {exc}"
    return errors


def main() -> None:
    """Server entry point: handshake, isolate, serve until the host goes away."""
    sock = int(sys.argv[1])
    set_parent_death_signal()
    if os.getppid() == 1:  # the host died before we could ask to follow it
        os._exit(1)
    config = read_frame(sock)
    if config is None:
        return
    preload_errors = _preload(list(config.get("preload", [])))
    mode = config.get("isolation", "auto")
    root_plan = None
    try:
        if mode != "none" and config.get("filesystem", "minimal") == "minimal":
            # Planned here, in the host's view and before any isolation, unless the host
            # already has this interpreter's plan from an earlier server.
            root_plan = config.get("root_plan") or plan_root(config.get("mount_ro", []))
        iso = setup_server_isolation(mode, config.get("seccomp"), root_plan)
        server = _Server(sock, iso)
    except IsolationUnavailable as exc:  # the host raises it as is (one error: line)
        write_frame(sock, {"ready": False, "error": str(exc), "refused": True})
        return
    except Exception as exc:  # noqa: BLE001 - reported to the host, which raises
        write_frame(sock, {"ready": False, "error": f"{type(exc).__name__}: {exc}"})
        return
    write_frame(
        sock,
        {
            "ready": True,
            "pid": iso.host_pid,
            "report": iso.report.to_dict(),
            "preload_errors": preload_errors,
            "hash_seed": os.environ.get("PYTHONHASHSEED"),
            "root_plan": root_plan,
        },
    )
    server.serve()


if __name__ == "__main__":
    main()
