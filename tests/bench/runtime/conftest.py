"""Fixtures of the runtime benchmark's tests: a stand-in model server that answers each
prompt as a test tells it to, a private request cache and truth cache.

Only the model server is a stand-in: the runner, client, cache, store, tracer, engine and
judges are the real ones.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

Answer = Callable[[str], str]


class AnsweringModel:
    """An OpenAI-shaped chat server whose reply to a prompt is ``answer(user message)``."""

    def __init__(self, answer: Answer, *, delay: float = 0.0, port: int = 0) -> None:
        self.answer = answer
        self.delay = delay
        self.requests = 0
        lock = threading.Lock()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)))
                with lock:
                    owner.requests += 1
                time.sleep(owner.delay)
                user = next(m["content"] for m in body["messages"] if m["role"] == "user")
                text = owner.answer(user)
                payload = {"id": "fake", "object": "chat.completion", "created": 0,
                           "model": body.get("model", "fake"),
                           "choices": [{"index": i, "finish_reason": "stop",
                                        "message": {"role": "assistant", "content": text}}
                                       for i in range(int(body.get("n") or 1))],
                           "usage": {"prompt_tokens": 5, "completion_tokens": 3,
                                     "total_tokens": 8}}
                data = json.dumps(payload).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        class Server(ThreadingHTTPServer):
            daemon_threads = True
            allow_reuse_address = True
            request_queue_size = 256  # every request of a run may arrive at once

        self._server = Server(("127.0.0.1", port), Handler)
        self.base_url = f"http://127.0.0.1:{self._server.server_address[1]}/v1"
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,),
                                        daemon=True)

    def __enter__(self) -> AnsweringModel:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


@pytest.fixture
def answering_model() -> type[AnsweringModel]:
    """``with answering_model(lambda prompt: "[ANSWER]YES[/ANSWER]") as server: ...``."""
    return AnsweringModel


@pytest.fixture(scope="session")
def truth_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One truth cache for the session: programs are traced once."""
    return tmp_path_factory.mktemp("runtime-truth")


@pytest.fixture
def caches(tmp_path: Path, truth_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh request cache per test (never the user's); the session's truth cache."""
    monkeypatch.setenv("EXECLENS_CACHE_DIR", str(tmp_path / "request-cache"))
    monkeypatch.setenv("EXECLENS_TRUTH_CACHE_DIR", str(truth_dir))
    return tmp_path / "request-cache"


@pytest.fixture
def cruxeval_file(data_dir: Path) -> Path:
    """CRUXEval's 800 programs (the shared data)."""
    path = data_dir / "cruxeval" / "cruxeval.jsonl"
    if not path.is_file():
        pytest.skip(f"{path} is missing")
    return path
