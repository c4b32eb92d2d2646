"""Fixtures for the models tests: the real local model server, isolated caches, and a
tiny OpenAI-shaped HTTP server on 127.0.0.1 for failure and concurrency tests.

The fake is a stand-in for the *server* only; the client under test is the real one.
Each request is answered by ``behaviour(n_request, body)``, which returns a ``Reply``.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from execlens.models import LocalModelServer, RequestCache, local_server_missing


@dataclass
class Reply:
    """What the fake server does for one request."""

    status: int = 200
    delay: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)
    body: dict[str, Any] | None = None  # None: an OpenAI-shaped success built from the request
    honour_n: bool = True


def echo_text(body: dict[str, Any]) -> str:
    """The text the fake server answers with: derived from the prompt, so mix-ups show."""
    source = body["messages"][-1]["content"] if "messages" in body else body["prompt"]
    return f"echo:{source}|seed={body.get('seed')}"


def success_body(body: dict[str, Any], honour_n: bool) -> dict[str, Any]:
    """An OpenAI chat or text completion answering ``body``."""
    n = int(body.get("n") or 1) if honour_n else 1
    text = echo_text(body)
    chat = "messages" in body
    choices = []
    for i in range(n):
        content = f"{text}|choice={i}"
        if chat:
            choices.append(
                {
                    "index": i,
                    "finish_reason": "stop",
                    "message": {"role": "assistant", "content": content},
                }
            )
        else:
            choices.append({"index": i, "finish_reason": "stop", "text": content, "logprobs": None})
    return {
        "id": "fake",
        "object": "chat.completion" if chat else "text_completion",
        "created": 0,
        "model": body.get("model", "fake"),
        "choices": choices,
        "usage": {"prompt_tokens": 5, "completion_tokens": 3 * n, "total_tokens": 5 + 3 * n},
    }


class FakeOpenAIServer:
    """Counts requests, their arrival times, and how many were in flight at once."""

    def __init__(self, behaviour: Callable[[int, dict[str, Any]], Reply] | None = None) -> None:
        self.behaviour = behaviour or (lambda i, body: Reply())
        self.bodies: list[dict[str, Any]] = []
        self.arrivals: list[float] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                with owner._lock:
                    number = len(owner.bodies)
                    owner.bodies.append(body)
                    owner.arrivals.append(time.monotonic())
                    owner.in_flight += 1
                    owner.max_in_flight = max(owner.max_in_flight, owner.in_flight)
                try:
                    reply = owner.behaviour(number, body)
                    if reply.delay:
                        time.sleep(reply.delay)
                    payload = reply.body
                    if payload is None and reply.status == 200:
                        payload = success_body(body, reply.honour_n)
                    if payload is None:
                        payload = {
                            "error": {
                                "message": f"fake status {reply.status}",
                                "type": "fake",
                                "code": None,
                            }
                        }
                    data = json.dumps(payload).encode()
                    self.send_response(reply.status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout tests)
                finally:
                    with owner._lock:
                        owner.in_flight -= 1

        class Server(ThreadingHTTPServer):
            daemon_threads = True
            request_queue_size = 512  # the default 5 would drop bursts of connects

        self._server = Server(("127.0.0.1", 0), Handler)
        self.port = self._server.server_address[1]
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.05,), daemon=True
        )

    @property
    def count(self) -> int:
        """Requests received so far."""
        with self._lock:
            return len(self.bodies)

    def __enter__(self) -> FakeOpenAIServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


# -- fixtures ---------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def _isolated_cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Never touch the user's ~/.cache/execlens from tests."""
    directory = tmp_path / "execlens-cache"
    monkeypatch.setenv("EXECLENS_CACHE_DIR", str(directory))
    monkeypatch.delenv("EXECLENS_DISABLE_CACHE", raising=False)
    return directory


@pytest.fixture
def cache(tmp_path: Path) -> Iterator[RequestCache]:
    """A fresh request cache in the test's temporary directory."""
    with RequestCache(tmp_path / "requests.sqlite") as opened:
        yield opened


class FakeKit:
    """What tests need to script the fake server (test modules cannot import conftest)."""

    Server = FakeOpenAIServer
    Reply = Reply
    echo_text = staticmethod(echo_text)


@pytest.fixture
def fake() -> FakeKit:
    """``with fake.Server(lambda i, body: fake.Reply(status=429)) as server: ...``."""
    return FakeKit()


@pytest.fixture(scope="session")
def local_model_available() -> None:
    """Skip unless llama-cpp-python's server and the GGUF are installed.

    CI installs both (``make install``) and sets ``EXECLENS_REQUIRE_DATA``: there a
    missing model fails the run instead of hiding every end-to-end test behind a skip.
    """
    reason = local_server_missing()
    if reason is None:
        return
    message = f"embedded local model unavailable: {reason}"
    if os.environ.get("EXECLENS_REQUIRE_LOCAL_MODEL") or os.environ.get("EXECLENS_REQUIRE_DATA"):
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(scope="session")
def local_server(local_model_available: None) -> Iterator[LocalModelServer]:
    """The embedded model's real llama-cpp-python server, once per session."""
    with LocalModelServer() as server:
        yield server
