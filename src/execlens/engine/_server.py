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

Two processes per worker.  The *zygote* holds the warm interpreter and does nothing but
fork: after every fork both sides pay a copy-on-write fault for each page they write, so
the process that forks must write as little as possible between forks.  The *server*
(its parent, never forked again) does the talking: it enforces each input's wall
deadline (poll + SIGKILL of the child's process group), caps raw fd output, reads the
result frames, sweeps every process the sandbox uid left behind, and never runs program
code.  All children share one result pipe and one output pipe, drained between jobs
once every writer is dead; frames carry a per-job token, so a stale or forged frame is
recognised.
"""

from __future__ import annotations

import gc
import importlib
import json
import marshal
import os
import select
import signal
import sys
import time
from collections import deque
from typing import Any, NoReturn

from execlens.engine._child import Prepared, address_space_now, prepare_server, run_child, warm_up
from execlens.engine._errors import IsolationUnavailable
from execlens.engine._isolation import (
    ServerIsolation,
    set_child_subreaper,
    set_parent_death_signal,
    setup_server_isolation,
)
from execlens.engine._protocol import (
    RESULT_FRAME_LIMIT,
    FrameError,
    FrameReader,
    read_frame,
    read_frame_bytes,
    write_frame,
)
from execlens.engine._rootfs import plan_root
from execlens.engine._scratch import Scratch

_READ_CHUNK = 1 << 16
_OP_RUN = b"R"
_OP_WAIT = b"W"


# ------------------------------------------------------------------------ zygote side
def _read_exact(fd: int, size: int) -> bytes | None:
    data = b""
    while len(data) < size:
        chunk = os.read(fd, size - len(data))
        if not chunk:
            return None
        data += chunk
    return data


def _zygote_main(
    command_fd: int,
    reply_fd: int,
    result_fd: int,
    output_fd: int,
    iso: ServerIsolation,
    scratch: str,
) -> NoReturn:
    """The zygote's loop: fork on ``R``, report a child's exit on ``W``.

    Kept to a handful of syscalls per job on purpose (see the module docstring).
    """
    set_parent_death_signal()
    set_child_subreaper()  # orphans of a job come back here to be reaped
    os.setsid()  # a session without a controlling terminal, shared by every child
    if iso.seccomp is not None:
        iso.seccomp.load()  # once here; every child inherits it
    warm_up()
    gc.collect()
    gc.freeze()
    last_request, last_job = b"", None
    while True:
        header = _read_exact(command_fd, 4)
        if header is None:
            os._exit(0)
        payload = _read_exact(command_fd, int.from_bytes(header, "big"))
        if payload is None:
            os._exit(0)
        if payload[:1] == _OP_RUN:
            _reap_all()
            # The children of one request (one per input, or per ``per_child`` inputs)
            # share its program: decode and compile it once, not once per child.  Fewer
            # pages written here between forks means fewer copy-on-write faults.
            request = payload[21:]
            if request == last_request and last_job is not None:
                job = last_job
                job.retarget(payload[1:21])
            else:
                job = last_job = Prepared(payload[1:])
                last_request = request
                # Read here, not in the child: opening /proc there costs it a score of
                # copy-on-write faults.  Once per request: between the forks of one
                # request the zygote's own size hardly moves.
                job.set_address_space(address_space_now())
            pid = os.fork()
            if pid == 0:
                run_child(job, result_fd, output_fd, iso, scratch)
            os.write(reply_fd, pid.to_bytes(4, "big"))
        else:
            pid = int.from_bytes(payload[1:5], "big")
            try:
                _, status, usage = os.wait4(pid, 0)
                answer = (status & 0xFFFF, usage.ru_maxrss)
            except ChildProcessError:
                answer = (0xFFFF, 0)
            os.write(reply_fd, answer[0].to_bytes(4, "big") + answer[1].to_bytes(8, "big"))


def _reap_all() -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


class _Zygote:
    """The server's handle on its zygote process."""

    def __init__(
        self,
        iso: ServerIsolation,
        scratch: str,
        result_w: int,
        output_w: int,
        keep_closed: list[int],
    ) -> None:
        command_r, self.command_w = os.pipe()
        self.reply_r, reply_w = os.pipe()
        self.pid = os.fork()
        if self.pid == 0:
            for fd in [self.command_w, self.reply_r, *keep_closed]:
                os.close(fd)
            _zygote_main(command_r, reply_w, result_w, output_w, iso, scratch)
        os.close(command_r)
        os.close(reply_w)

    def _send(self, payload: bytes) -> None:
        data = memoryview(len(payload).to_bytes(4, "big") + payload)
        while data:
            data = data[os.write(self.command_w, data) :]

    def fork(self, request: bytes, timeout: float) -> int:
        """Have the zygote fork a child for ``request``; returns the child's pid.

        The zygote compiles the program first; ``TimeoutError`` if that takes longer
        than ``timeout`` (the caller replaces the zygote).
        """
        self._send(_OP_RUN + request)
        ready, _, _ = select.select([self.reply_r], [], [], timeout)
        if not ready:
            raise TimeoutError("the zygote did not fork in time (compiling the program)")
        answer = _read_exact(self.reply_r, 4)
        if answer is None:
            raise RuntimeError("the zygote died")
        return int.from_bytes(answer, "big")

    def wait(self, pid: int) -> tuple[int, int]:
        """Reap ``pid``: (raw wait status, peak RSS in KiB)."""
        self._send(_OP_WAIT + pid.to_bytes(4, "big"))
        answer = _read_exact(self.reply_r, 12)
        if answer is None:
            raise RuntimeError("the zygote died")
        return int.from_bytes(answer[:4], "big"), int.from_bytes(answer[4:], "big")

    def children(self) -> list[int]:
        """The zygote's live children: the current job and any orphans it inherited."""
        found: list[int] = []
        try:
            for tid in os.listdir(f"/proc/{self.pid}/task"):
                with open(f"/proc/{self.pid}/task/{tid}/children") as handle:
                    found.extend(int(c) for c in handle.read().split())
        except OSError:
            pass
        return found

    def close(self) -> None:
        for fd in (self.command_w, self.reply_r):
            try:
                os.close(fd)
            except OSError:
                pass
        try:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass


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


class _ChildWatch:
    """Reads one child's result frames and raw output; tracks which input is running."""

    def __init__(
        self,
        token: str,
        start: int,
        stop: int,
        results: list[dict[str, Any] | None],
        cap: int,
        result_fd: int,
        output_fd: int,
    ) -> None:
        self.token = token
        self.current = start
        self.stop = stop
        self.results = results
        self.cap = cap
        self.result_fd = result_fd
        self.output_fd = output_fd
        self.reader = FrameReader(max_frame=RESULT_FRAME_LIMIT)
        self.raw_output: dict[int, bytearray] = {}
        self.raw_total = 0
        self.exited = False
        self.failure: tuple[str, str] | None = None

    @property
    def running(self) -> bool:
        return self.failure is None and not self.exited and self.current < self.stop

    def fail(self, status: str, message: str) -> None:
        if self.failure is None:
            self.failure = (status, message)

    def read(self, fd: int) -> int:
        """Read what is available on ``fd``; returns bytes read (-1 when none)."""
        try:
            data = os.read(fd, _READ_CHUNK)
        except BlockingIOError:
            return -1
        if fd == self.output_fd:
            self._raw(data)
        else:
            self._frames(data)
        return len(data)

    def drain(self) -> None:
        for fd in (self.result_fd, self.output_fd):
            while self.failure is None and self.read(fd) > 0:
                pass

    def _raw(self, data: bytes) -> None:
        self.raw_total += len(data)
        buffer = self.raw_output.setdefault(self.current, bytearray())
        if len(buffer) < self.cap:
            buffer += data[: self.cap - len(buffer)]
        if self.raw_total > self.cap:
            self.fail("output_limit", f"raw output exceeded {self.cap} bytes")

    def _frames(self, data: bytes) -> None:
        try:
            messages = self.reader.feed(data)
        except FrameError as exc:
            self.fail("crashed", f"the child broke the result channel: {exc}")
            return
        for message in messages:
            if self.current >= self.stop:
                return  # results past a trimmed stop: the host runs those inputs elsewhere
            if (
                not isinstance(message, dict)
                or message.get("t") != self.token
                or message.get("i") != self.current
            ):
                self.fail(
                    "crashed", "the child broke the result channel (a frame without the job token)"
                )
                return
            del message["t"], message["i"]
            self.results[self.current] = message
            self.current += 1

    def attach_raw_output(self, index: int, record: dict[str, Any]) -> None:
        """Append fd-level output (os.write, subprocesses) to an input's stdout."""
        extra = self.raw_output.get(index)
        if extra:
            record["stdout"] = record.get("stdout", "") + extra.decode("utf-8", "replace")
            if self.raw_total > self.cap:
                record["stdout_truncated"] = True


def _discard(fd: int) -> None:
    """Empty a shared pipe of whatever dead children left in it."""
    while True:
        try:
            if not os.read(fd, _READ_CHUNK):
                return
        except BlockingIOError:
            return


class _Server:
    def __init__(self, sock: int, iso: ServerIsolation) -> None:
        self.sock = sock
        self.iso = iso
        self.scratch = _Scratch(iso)
        prepare_server(self.scratch.path)
        self.result_r, self.result_w = os.pipe()
        self.output_r, self.output_w = os.pipe()
        # One poll set for the server's life: the shared pipes stay in it, each child's
        # pidfd joins it for that child's run.
        self.poller = select.poll()
        for fd in (self.result_r, self.output_r):
            os.set_blocking(fd, False)
            self.poller.register(fd, select.POLLIN)
        # The host's socket too: a trim must be answered while a child runs.  Frames read
        # there that are not trims wait in ``pending`` for ``serve``; ``None`` in it
        # means the host's stream ended or broke.
        self.poller.register(sock, select.POLLIN)
        self.pending: deque[dict[str, Any] | None] = deque()
        self.given_away: set[int] = set()  # ids of read, not begun requests trimmed to 0
        self.request_id: Any = None  # the request running now
        self.limit = 0  # its inputs [0, limit) run here (less than all once trimmed)
        self.watch: _ChildWatch | None = None  # its child running now
        self.zygote = self._new_zygote()

    def _new_zygote(self) -> _Zygote:
        # gc.freeze(): frozen objects are never scanned by the children's GC, so forks
        # stay cheap (fewer copy-on-write page faults).
        gc.collect()
        gc.freeze()
        return _Zygote(
            self.iso,
            self.scratch.path,
            self.result_w,
            self.output_w,
            keep_closed=[self.sock, self.result_r, self.output_r],
        )

    def serve(self) -> None:
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
            request = json.loads(raw)
        except (FrameError, OSError, ValueError):
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
            # The child runs its inputs in order: those after the current one have not
            # started.  Keep the first half of them (rounded down), give the rest away.
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
        start = 0
        try:
            while start < self.limit:  # ``_trim`` may lower the limit as we go
                start = self._run_child(request, encoded, start, results)
        finally:
            self.request_id = self.watch = None
        return [
            r if r is not None else {"status": "sandbox_error", "message": "no result"}
            for r in results[: self.limit]
        ]

    def _replace_zygote(self) -> None:
        self.zygote.close()
        # As its PID namespace's init, the server inherits what the old zygote left.
        _reap_all()
        self.zygote = self._new_zygote()

    def _fork(self, payload: bytes, timeout: float) -> int | None:
        """A child for ``payload``; ``None`` if compiling it outlasted ``timeout``."""
        try:
            return self.zygote.fork(payload, timeout)
        except TimeoutError:
            self._replace_zygote()
            return None
        except (RuntimeError, OSError):
            # The zygote died (it never runs program code, but it compiles it, and the
            # OOM killer may strike): replace it and try once more.
            self._replace_zygote()
            return self.zygote.fork(payload, timeout)

    def _run_child(
        self,
        request: dict[str, Any],
        encoded: bytes,
        start: int,
        results: list[dict[str, Any] | None],
    ) -> int:
        """Fork one child for ``calls[start:start + per_child]``; return where to resume."""
        limits = request["limits"]
        wall = float(limits["wall_time"])
        token = os.urandom(8).hex()
        self.scratch.reset(int(limits["memory_mb"]), int(limits["max_processes"]))
        _discard(self.result_r)
        _discard(self.output_r)
        payload = token.encode("ascii") + start.to_bytes(4, "big") + encoded
        pid = self._fork(payload, timeout=wall + 5.0)
        if pid is None:
            results[start] = {
                "status": "timeout",
                "duration": wall + 5.0,
                "message": "compiling the program exceeded the time limit",
            }
            return start + 1
        per_child = int(request.get("per_child") or len(results))
        stop = min(self.limit, start + per_child)
        watch = self.watch = _ChildWatch(
            token, start, stop, results, int(limits["output_bytes"]), self.result_r, self.output_r
        )
        # The pidfd turns readable when the child exits, even if a grandchild still holds
        # a pipe open: then we stop waiting instead of running into the deadline.
        pidfd = os.pidfd_open(pid)
        poller = self.poller
        poller.register(pidfd, select.POLLIN)
        deadline = time.monotonic() + wall
        input_started = time.monotonic()
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
        poller.unregister(pidfd)
        os.close(pidfd)
        current = watch.current
        for index in range(start, current):
            record = results[index]
            assert record is not None
            watch.attach_raw_output(index, record)
        if current >= watch.stop:  # (a trim may have lowered the stop)
            # Fast path: every result is in; the zygote reaps the child before its next fork.
            return current
        wait_status, peak_kb = self.zygote.wait(pid)
        record = self._failure_record(watch.failure, wait_status, round(peak_kb / 1024, 3))
        record["duration"] = ended - input_started
        watch.attach_raw_output(current, record)
        results[current] = record
        return current + 1

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
