"""One stand-in OpenAI-compatible chat server for runner tests (the client is real).

The embedded model is slow on a shared machine and answers what it likes; runner tests
(eval, the runtime benchmark, synthesis) need a server that answers fast and as the test
says, can be down, can fail chosen requests, and can be slow enough to kill a run mid-way.
Only the *server* is stood in: the client, cache, runners, engine and judges are real.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

#: ``reply(request body) -> text`` answers a request; ``None`` fails it with HTTP 503.
Reply = Callable[[dict[str, Any]], "str | None"]


def user_message(body: dict[str, Any]) -> str:
    """The first user message of a chat request."""
    return next(m["content"] for m in body["messages"] if m["role"] == "user")


class StandInModel:
    """``/v1/chat/completions`` on 127.0.0.1 answering ``reply(body)``; counts requests."""

    def __init__(self, reply: Reply, *, delay: float = 0.0, port: int = 0) -> None:
        self.reply = reply
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
                text = owner.reply(body)
                if text is None:
                    status, payload = 503, {"error": {"message": "down", "type": "stand-in"}}
                else:
                    status, payload = 200, {
                        "id": "stand-in", "object": "chat.completion", "created": 0,
                        "model": body.get("model", "stand-in"),
                        "choices": [{"index": i, "finish_reason": "stop",
                                     "message": {"role": "assistant", "content": text}}
                                    for i in range(int(body.get("n") or 1))],
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
                    pass  # the client was killed mid-request (the SIGKILL tests)

        class Server(ThreadingHTTPServer):
            daemon_threads = True
            allow_reuse_address = True
            request_queue_size = 256  # every request of a run may arrive at once

        self._server = Server(("127.0.0.1", port), Handler)
        self.port = int(self._server.server_address[1])
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,),
                                        daemon=True)

    def __enter__(self) -> StandInModel:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
