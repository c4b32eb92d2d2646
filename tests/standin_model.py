"""One stand-in OpenAI-compatible chat server for runner tests (the client is real).

The embedded model is slow on a shared machine and answers what it likes; runner tests
(eval, the runtime benchmark, synthesis) need a server that answers fast and as the test
says, can be down, can fail chosen requests, and can be slow enough to kill a run mid-way.
Only the *server* is stood in: the client, cache, runners, engine and judges are real.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

#: ``reply(request body) -> text`` answers a request; ``None`` fails it with HTTP 503.
#: A :class:`Thought` reply answers as a reasoning model does.
Reply = Callable[[dict[str, Any]], "str | Thought | None"]


@dataclass(frozen=True)
class Thought:
    """What a reasoning model generates: a thought, then its final answer.

    ``shape`` is how the server presents it: ``"tags"`` (``<think>...</think>`` inline in
    the content), ``"opened"`` (the chat template opened ``<think>`` in the prompt, so
    the content holds the thought and only the closing tag: DeepSeek-R1 distills, QwQ,
    Qwen3-thinking served without a reasoning parser), ``"field"`` (a separate
    ``reasoning_content``, as vLLM's reasoning parser returns it), ``"reasoning"`` (the
    newer ``reasoning`` field), ``"harmony"`` (gpt-oss channels in the content).  The server
    treats the generation as a real one: the request's stop strings end it wherever they
    first occur, *thought included*, and ``max_tokens`` (a token = a whitespace-separated
    word here) cuts it with ``finish_reason="length"``.
    """

    thought: str
    final: str
    shape: str = "tags"


def _stops(stop: Any) -> list[str]:
    if not stop:
        return []
    return [stop] if isinstance(stop, str) else [str(s) for s in stop]


def generate(reply: str | Thought, body: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """The assistant message and finish reason a server would return for ``reply``."""
    if isinstance(reply, str):
        prefix, text = "", reply
    elif reply.shape == "harmony":
        prefix, text = (
            "",
            (
                f"<|channel|>analysis<|message|>{reply.thought}<|end|>"
                f"<|start|>assistant<|channel|>final<|message|>{reply.final}"
            ),
        )
    elif reply.shape in ("field", "reasoning"):
        prefix, text = reply.thought, reply.final
    elif reply.shape == "opened":
        prefix, text = "", f"{reply.thought}</think>\n\n{reply.final}"
    else:
        prefix, text = "", f"<think>{reply.thought}</think>\n\n{reply.final}"
    whole = prefix + "\x00" + text  # the server generates one sequence: thought, answer
    finish = "stop"
    cuts = [whole.find(stop) for stop in _stops(body.get("stop")) if stop in whole]
    if cuts:
        whole = whole[: min(cuts)]
    limit = body.get("max_tokens") or body.get("max_completion_tokens")
    if limit is not None:
        tokens = list(re.finditer(r"[^\s\x00]+", whole))
        if len(tokens) > int(limit):
            whole = whole[: tokens[int(limit) - 1].end()] if int(limit) > 0 else ""
            finish = "length"
    thought, _, content = whole.partition("\x00")
    message: dict[str, Any] = {"content": content}
    if isinstance(reply, Thought) and reply.shape == "field":
        message["reasoning_content"] = thought
    if isinstance(reply, Thought) and reply.shape == "reasoning":
        message["reasoning"] = thought
    return message, finish


def prompt_tokens(body: dict[str, Any]) -> int:
    """The prompt's size in this server's tokens (whitespace-separated words)."""
    text = " ".join(str(m.get("content", "")) for m in body.get("messages") or ())
    return len((text or str(body.get("prompt", ""))).split())


def context_refusal(context: int, body: dict[str, Any]) -> str | None:
    """vLLM's 400 message when the prompt plus ``max_tokens`` pass ``context``."""
    asked = int(body.get("max_tokens") or body.get("max_completion_tokens") or 0)
    prompt = prompt_tokens(body)
    if prompt + asked <= context:
        return None
    return (
        f"This model's maximum context length is {context} tokens. However, you requested "
        f"{prompt + asked} tokens ({prompt} in the messages, {asked} in the completion). "
        "Please reduce the length of the messages or completion."
    )


def user_message(body: dict[str, Any]) -> str:
    """The first user message of a chat request."""
    return next(m["content"] for m in body["messages"] if m["role"] == "user")


class StandInModel:
    """``/v1/chat/completions`` on 127.0.0.1 answering ``reply(body)``; counts requests.

    ``GET /v1/models`` lists ``models`` (an empty listing by default, which names no
    model, so any ``--model`` passes the client's health check); ``fail_status`` is the
    HTTP status of a request ``reply`` fails (503, retried; a 4xx is not).  ``context``
    makes it a server with that context length: a request whose prompt plus
    ``max_tokens`` is longer is refused with HTTP 400 and vLLM's message, and each
    listed model reports it as ``max_model_len`` when ``report_context`` is set.
    ``max_tokens_seen`` records each answered request's ``max_tokens``.
    """

    def __init__(
        self,
        reply: Reply,
        *,
        delay: float = 0.0,
        port: int = 0,
        models: tuple[str, ...] = (),
        fail_status: int = 503,
        context: int | None = None,
        report_context: bool = False,
    ) -> None:
        self.reply = reply
        self.context = context
        self.report_context = report_context
        self.refused: list[int] = []  # the max_tokens of each request refused for size
        self.max_tokens_seen: list[int | None] = []
        self.delay = delay
        self.models = models
        self.fail_status = fail_status
        self.requests = 0
        self.stops_seen: list[tuple[str, ...]] = []  # the stop strings of each request
        lock = threading.Lock()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def do_GET(self) -> None:
                if self.path.rstrip("/") != "/v1/models":
                    self.send_error(404)
                    return
                data = json.dumps(
                    {
                        "object": "list",
                        "data": [
                            {
                                "id": name,
                                "object": "model",
                                "owned_by": "stand-in",
                                **(
                                    {"max_model_len": owner.context}
                                    if owner.report_context and owner.context
                                    else {}
                                ),
                            }
                            for name in owner.models
                        ],
                    }
                ).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)))
                with lock:
                    owner.requests += 1
                time.sleep(owner.delay)
                refusal = None if owner.context is None else context_refusal(owner.context, body)
                text = None if refusal is not None else owner.reply(body)
                if refusal is not None:
                    with lock:
                        owner.refused.append(int(body.get("max_tokens") or 0))
                    status, payload = (
                        400,
                        {
                            "object": "error",
                            "message": refusal,
                            "type": "BadRequestError",
                            "param": None,
                            "code": 400,
                        },
                    )
                elif text is None:
                    status = owner.fail_status
                    payload = {
                        "error": {
                            "message": "down" if status >= 500 else "refused",
                            "type": "stand-in",
                        }
                    }
                else:
                    with lock:
                        owner.stops_seen.append(tuple(_stops(body.get("stop"))))
                        owner.max_tokens_seen.append(body.get("max_tokens"))
                    message, finish = generate(text, body)
                    status, payload = (
                        200,
                        {
                            "id": "stand-in",
                            "object": "chat.completion",
                            "created": 0,
                            "model": body.get("model", "stand-in"),
                            "choices": [
                                {
                                    "index": i,
                                    "finish_reason": finish,
                                    "message": {"role": "assistant", **message},
                                }
                                for i in range(int(body.get("n") or 1))
                            ],
                            "usage": {
                                "prompt_tokens": prompt_tokens(body),
                                "completion_tokens": 3,
                                "total_tokens": prompt_tokens(body) + 3,
                            },
                        },
                    )
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
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.05,), daemon=True
        )

    def __enter__(self) -> StandInModel:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
