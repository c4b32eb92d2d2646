"""The zygote: the warm interpreter that forks one child per request (or part of one).

It does nothing but fork: after every fork both sides pay a copy-on-write fault for
each page they write, so the process that forks must write as little as possible
between forks.  The server (its parent) talks to it over two pipes -- ``R`` + request:
fork a child for it; ``W`` + pid: reap that child -- and hands it, with every ``R``,
the child's own three pipe ends over a Unix socket (``SCM_RIGHTS``): results, raw
output and control.  No two children ever share a pipe.
"""

from __future__ import annotations

import gc
import os
import select
import signal
import socket
from typing import NoReturn

from execlens.engine._child import address_space_now, run_child, warm_up
from execlens.engine._guard import GUARD
from execlens.engine._isolation import (
    ServerIsolation,
    set_child_subreaper,
    set_parent_death_signal,
)
from execlens.engine._prepared import Prepared

__all__ = ["Zygote", "reap_all"]

_OP_RUN = b"R"
_OP_WAIT = b"W"
_CHILD_FDS = 3  # results, raw output, control


def _read_exact(fd: int, size: int) -> bytes | None:
    data = b""
    while len(data) < size:
        chunk = os.read(fd, size - len(data))
        if not chunk:
            return None
        data += chunk
    return data


def reap_all() -> None:
    """Reap every child that has exited (never blocks)."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _zygote_main(
    command_fd: int,
    reply_fd: int,
    fd_sock: socket.socket,
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
    GUARD.install()  # the setters and the audit hook, warmed up with the rest
    warm_up()
    GUARD.arm()  # the state every child starts from: taken last, after the warm-up
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
            _, fds, _, _ = socket.recv_fds(fd_sock, 1, _CHILD_FDS)
            if len(fds) != _CHILD_FDS:
                os._exit(1)  # the server broke its own protocol: it will replace us
            reap_all()
            # The children of one request (one per input, or per ``per_child`` inputs)
            # share its program: decode and compile it once, not once per child.  Fewer
            # pages written here between forks means fewer copy-on-write faults.
            request = payload[1:]
            if request == last_request and last_job is not None:
                job = last_job
            else:
                job = last_job = Prepared(request)
                last_request = request
                # Read here, not in the child: opening /proc there costs it a score of
                # copy-on-write faults.  Once per request: between the forks of one
                # request the zygote's own size hardly moves.
                job.set_address_space(address_space_now())
            pid = os.fork()
            if pid == 0:
                run_child(job, (fds[0], fds[1], fds[2]), iso, scratch)
            for fd in fds:
                os.close(fd)
            os.write(reply_fd, pid.to_bytes(4, "big"))
        else:
            pid = int.from_bytes(payload[1:5], "big")
            try:
                _, status, usage = os.wait4(pid, 0)
                answer = (status & 0xFFFF, usage.ru_maxrss)
            except ChildProcessError:
                answer = (0xFFFF, 0)
            os.write(reply_fd, answer[0].to_bytes(4, "big") + answer[1].to_bytes(8, "big"))


class Zygote:
    """The server's handle on its zygote process."""

    def __init__(self, iso: ServerIsolation, scratch: str, keep_closed: list[int]) -> None:
        command_r, self.command_w = os.pipe()
        self.reply_r, reply_w = os.pipe()
        self.fd_sock, zygote_sock = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.pid = os.fork()
        if self.pid == 0:
            for fd in [self.command_w, self.reply_r, *keep_closed]:
                os.close(fd)
            self.fd_sock.close()
            _zygote_main(command_r, reply_w, zygote_sock, iso, scratch)
        os.close(command_r)
        os.close(reply_w)
        zygote_sock.close()

    def _send(self, payload: bytes) -> None:
        data = memoryview(len(payload).to_bytes(4, "big") + payload)
        while data:
            data = data[os.write(self.command_w, data) :]

    def fork(self, request: bytes, fds: tuple[int, int, int], timeout: float) -> int:
        """Have the zygote fork a child for ``request`` on the pipe ends ``fds``
        (results and raw output to write, control to read); returns the child's pid.

        The zygote compiles the program first; ``TimeoutError`` if that takes longer
        than ``timeout`` (the caller replaces the zygote).
        """
        socket.send_fds(self.fd_sock, [b"F"], list(fds))
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
        """Stop the zygote (SIGKILL) and reap it."""
        for fd in (self.command_w, self.reply_r):
            try:
                os.close(fd)
            except OSError:
                pass
        self.fd_sock.close()
        try:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass
