"""A stand-in OpenAI-compatible *server* for eval runs (the client and runner are real),
and the official output-prediction prompt text the benchmarks' prompt tests share.

The embedded model is slow on a shared machine; these tests need a server that answers
fast, can be down, can fail chosen requests, and can be slow enough to kill a run mid-way.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

#: What the fake model answers: a CRUXEval-shaped assertion (right or wrong, it is scored).
ANSWER = "[ANSWER]\nassert f(x) == 'abc'\n[/ANSWER]"


class FakeModel:
    """Answers chat completions with :data:`ANSWER`; ``fail(body)`` picks requests to fail."""

    def __init__(self, port: int = 0, *, delay: float = 0.0,
                 fail: Callable[[dict[str, Any]], bool] | None = None) -> None:
        self.delay = delay
        self.fail = fail or (lambda body: False)
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
                if owner.fail(body):
                    status, payload = 503, {"error": {"message": "down", "type": "fake"}}
                else:
                    n = int(body.get("n") or 1)
                    status, payload = 200, {
                        "id": "fake", "object": "chat.completion", "created": 0,
                        "model": body.get("model", "fake"),
                        "choices": [{"index": i, "finish_reason": "stop",
                                     "message": {"role": "assistant", "content": ANSWER}}
                                    for i in range(n)],
                        "usage": {"prompt_tokens": 5, "completion_tokens": 3,
                                  "total_tokens": 8}}
                data = json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        class Server(ThreadingHTTPServer):
            daemon_threads = True
            allow_reuse_address = True
            request_queue_size = 256

        self._server = Server(("127.0.0.1", port), Handler)
        self.port = self._server.server_address[1]
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,),
                                        daemon=True)

    def __enter__(self) -> FakeModel:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


def free_port() -> int:
    """A port nothing listens on (a model server that is down)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def model_server() -> type[FakeModel]:
    """The fake server class, for tests that start, stop and restart one on a port."""
    return FakeModel


@pytest.fixture
def down_port() -> int:
    """A port where no model server listens (yet)."""
    return free_port()


@pytest.fixture
def fake_model() -> Iterator[FakeModel]:
    """A running fake model server."""
    with FakeModel() as server:
        yield server


@pytest.fixture
def request_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Each test its own request cache (never the user's)."""
    directory = tmp_path / "request-cache"
    monkeypatch.setenv("EXECLENS_CACHE_DIR", str(directory))
    return directory


_OUTPUT_HEAD = (
    "You are given a Python function and an assertion containing an input to the function. "
    "Complete the assertion "
    "with a literal (no unsimplified expressions, no function calls) containing the output "
    "when executing the "
    "provided code on the given input, even if the function is incorrect or incomplete. "
    "Do NOT output any extra "
)


class OutputPromptText:
    """The official output-prediction text CRUXEval wrote (prompts.py) and LiveCodeBench's
    code-execution prompts repeat word for word (lcb_runner/prompts/code_execution.py),
    written out here independently of the templates (test modules cannot import conftest:
    they get it from the ``output_prompt_text`` fixture)."""

    SYSTEM = (
        "You are an expert at Python programming, code execution, test case generation, and "
        "fuzzing."
    )
    INSTRUCTIONS = {
        "direct": _OUTPUT_HEAD
        + "information. Provide the full assertion with the correct output in [ANSWER] and "
        "[/ANSWER] tags, following the examples.",
        "cot": _OUTPUT_HEAD
        + "information. Execute the program step by step before arriving at an answer, and "
        "provide the full assertion with the correct output in [ANSWER] and [/ANSWER] tags, "
        "following the examples.",
    }

    @classmethod
    def prompt(cls, style: str, rest: str) -> str:
        """The ``style`` instruction, then ``rest`` on the following lines."""
        return f"{cls.INSTRUCTIONS[style]}\n{rest}"


@pytest.fixture
def output_prompt_text() -> type[OutputPromptText]:
    """The official output-prediction instructions and system prompt."""
    return OutputPromptText
