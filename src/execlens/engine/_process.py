"""One fork server as the host sees it: starting the process, its handshake, its socket."""

from __future__ import annotations

import functools
import os
import select
import socket
import subprocess
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from execlens.engine._errors import EngineError, IsolationUnavailable
from execlens.engine._isolation import IsolationReport, compile_seccomp_filters
from execlens.engine._protocol import MAX_FRAME, FrameError, decode_json, encode_frame

__all__ = ["ServerProcess"]

_HANDSHAKE_TIMEOUT = 120.0
_SERVER_MODULE = "execlens.engine._server"


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
    """One frame from the server.  What the host accepts is bounded: a length past
    ``MAX_FRAME`` or a body that does not decode (too deep, not JSON) is the server
    breaking the protocol (``FrameError``), never an allocation of that size or a
    ``RecursionError`` in the host."""
    header = _recv_exact(sock, 4, timeout)
    length = int.from_bytes(header, "big")
    if length > MAX_FRAME:
        raise FrameError(f"server sent a {length}-byte frame (the limit is {MAX_FRAME})")
    body = _recv_exact(sock, length, timeout)
    try:
        return decode_json(body)
    except FrameError as exc:
        raise FrameError(f"server sent a malformed frame: {exc}") from exc


# The minimal root's plan per (interpreter, mount_ro): the first server walks the
# interpreter's import roots for the libraries they load and sends the plan back; every
# later server of this process (other workers, replacements, other hash seeds) reuses it.
_ROOT_PLANS: dict[tuple[str, tuple[str, ...]], dict[str, Any]] = {}


class ServerProcess:
    """One fork server and its socket."""

    def __init__(
        self,
        python: str,
        hash_seed: int,
        preload: Sequence[str],
        isolation: str,
        filesystem: str = "minimal",
        mount_ro: tuple[str, ...] = (),
    ) -> None:
        host_sock, server_sock = socket.socketpair()
        self.sock = host_sock
        # Its worker thread sends requests, an idle one may send a trim: one at a time.
        self._send_lock = threading.Lock()
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
        self.sock.sendall(
            encode_frame(
                {
                    "preload": list(preload),
                    "isolation": isolation,
                    "seccomp": _seccomp_filters(),
                    "filesystem": filesystem,
                    "mount_ro": list(mount_ro),
                    "root_plan": _ROOT_PLANS.get(plan_key),
                }
            )
        )
        try:
            hello = _recv_frame(self.sock, _HANDSHAKE_TIMEOUT)
        except (EOFError, TimeoutError, OSError, FrameError) as exc:
            self.close()
            raise EngineError(f"execution server failed to start: {exc}") from exc
        if not hello.get("ready"):
            self.close()
            if hello.get("refused"):
                raise IsolationUnavailable(str(hello.get("error")))
            raise EngineError(f"execution server refused to start: {hello.get('error')}")
        if hello.get("root_plan"):
            _ROOT_PLANS.setdefault(plan_key, hello["root_plan"])
        self.report = IsolationReport.from_dict(hello["report"])
        self.report.mode = isolation
        self.preload_errors: dict[str, str] = hello.get("preload_errors", {})
        self.pid: int = hello["pid"]

    def send(self, payload: bytes) -> None:
        """Write one framed request to the server (from any thread)."""
        with self._send_lock:
            self.sock.sendall(payload)

    def receive(self, timeout: float) -> dict[str, Any]:
        """The server's next answer: the outcomes of the oldest request sent
        (``{"id", "outcomes"}``) or a trim's answer (``{"id", "trimmed"}``); raises if
        none comes within ``timeout`` or the server reports an error."""
        reply = _recv_frame(self.sock, timeout)
        if not isinstance(reply, dict) or ("outcomes" not in reply and "trimmed" not in reply):
            error = reply.get("error") if isinstance(reply, dict) else reply
            raise EngineError(f"execution server error: {error}")
        return reply

    @property
    def alive(self) -> bool:
        """Whether the server process is still running."""
        return self.process.poll() is None

    def close(self) -> None:
        """Close the socket and make sure the process is gone (killed if need be)."""
        try:
            self.sock.close()
        finally:
            if self.process.poll() is None:
                self.process.kill()
            self.process.wait()
            _remove_scratch(getattr(self, "report", None))


def _remove_scratch(report: IsolationReport | None) -> None:
    """Remove a server's scratch parent from the host's temporary directory, where it had
    no mounts of its own to keep it in (Landlock only, ``isolation="none"``)."""
    parent = report.scratch_parent if report is not None else None
    if parent and os.path.basename(parent).startswith("execlens-scratch-"):
        import shutil

        shutil.rmtree(parent, ignore_errors=True)
