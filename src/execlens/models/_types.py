"""Plain records that cross the models package boundary: sampling, requests, completions."""

from __future__ import annotations

import json
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

EndpointKind = Literal["chat", "completion"]


class ErrorKind(StrEnum):
    """Named statuses for a sample that did not produce text (the run goes on)."""

    TIMEOUT = "timeout"
    RATE_LIMITED = "rate_limited"
    SERVER_ERROR = "server_error"
    CONNECTION_ERROR = "connection_error"
    CONTEXT_LENGTH = "context_length_exceeded"
    BAD_REQUEST = "bad_request"
    AUTH_ERROR = "auth_error"
    NOT_FOUND = "not_found"
    INVALID_RESPONSE = "invalid_response"
    API_ERROR = "api_error"


class SamplingParams(BaseModel):
    """How to sample: everything here except ``n`` is part of each sample's cache key.

    ``n`` is excluded from the key on purpose: sample ``i`` of a request is the same
    sample whether 3 or 5 were asked for, so raising ``n`` later only asks for the new
    ones.  When ``seed`` is set and samples are sent one request each, sample ``i`` is
    sent with ``seed + i`` (otherwise every sample would be identical).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    n: int = Field(default=1, ge=1)
    temperature: float = Field(default=0.0, ge=0.0)
    top_p: float = Field(default=1.0, gt=0.0, le=1.0)
    max_tokens: int | None = Field(default=1024, ge=1)
    stop: tuple[str, ...] = ()
    seed: int | None = None
    extra_body: dict[str, Any] = Field(default_factory=dict)

    @field_validator("stop", mode="before")
    @classmethod
    def _stop_as_tuple(cls, value: Any) -> Any:
        # Accept the OpenAI shapes: one string, a list of strings, or nothing.
        if value is None:
            return ()
        if isinstance(value, str):
            return (value,)
        return tuple(value)

    @field_validator("extra_body")
    @classmethod
    def _extra_body_is_json(cls, value: dict[str, Any]) -> dict[str, Any]:
        # It goes into the cache key and onto the wire: it must serialise the same way.
        try:
            json.dumps(value, sort_keys=True)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"extra_body must be JSON-serialisable: {exc}") from exc
        return value

    def key_fields(self) -> dict[str, Any]:
        """The fields that identify one sample (everything but ``n``)."""
        return self.model_dump(mode="json", exclude={"n"})


class ChatMessage(BaseModel):
    """One chat turn."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    role: str
    content: str


class GenerationRequest(BaseModel):
    """One prompt to a model: chat ``messages`` or a plain completion ``prompt``, not both.

    ``params=None`` means the client's default sampling parameters.  ``id`` is the
    caller's tag, carried back on the response and never part of the cache key.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    messages: tuple[ChatMessage, ...] | None = None
    prompt: str | None = None
    params: SamplingParams | None = None
    id: str | None = None

    @model_validator(mode="after")
    def _exactly_one_input(self) -> GenerationRequest:
        if (self.messages is None) == (self.prompt is None):
            raise ValueError("a GenerationRequest needs exactly one of messages= or prompt=")
        if self.messages is not None and not self.messages:
            raise ValueError("messages= must hold at least one message")
        return self

    @property
    def kind(self) -> EndpointKind:
        """Which endpoint serves it: ``chat`` (/chat/completions) or ``completion``."""
        return "chat" if self.messages is not None else "completion"

    @classmethod
    def chat(
        cls,
        messages: str | list[dict[str, str]] | list[ChatMessage],
        *,
        system: str | None = None,
        params: SamplingParams | None = None,
        id: str | None = None,
    ) -> GenerationRequest:
        """A chat request; a bare string becomes one user message (after ``system``)."""
        turns: list[Any] = []
        if system is not None:
            turns.append({"role": "system", "content": system})
        if isinstance(messages, str):
            turns.append({"role": "user", "content": messages})
        else:
            turns.extend(messages)
        return cls.model_validate({"messages": turns, "params": params, "id": id})

    @classmethod
    def completion(
        cls, prompt: str, *, params: SamplingParams | None = None, id: str | None = None
    ) -> GenerationRequest:
        """A plain completion request: the prompt is sent as is, with no chat template."""
        return cls(prompt=prompt, params=params, id=id)


class Usage(BaseModel):
    """Token counts of the HTTP request that produced a completion."""

    model_config = ConfigDict(frozen=True)

    prompt_tokens: int = 0
    completion_tokens: int = 0


class Completion(BaseModel):
    """One sample: its text, or a named error status and message.

    ``usage`` is the usage of the HTTP request that produced it; when a server honoured
    ``n`` and returned several choices at once, ``choices_in_request`` of them share it.
    ``attempts`` counts HTTP attempts (1 = no retry); ``latency`` is the last attempt's
    wall time in seconds.  Samples replayed from the cache have ``cached=True`` and
    ``attempts=0``.
    """

    model_config = ConfigDict(frozen=True)

    index: int
    text: str | None = None
    reasoning: str | None = None
    finish_reason: str | None = None
    usage: Usage = Usage()
    choices_in_request: int = 1
    cached: bool = False
    error: ErrorKind | None = None
    error_message: str | None = None
    attempts: int = 0
    latency: float = 0.0

    @property
    def ok(self) -> bool:
        """True when the sample has text (an empty string still counts)."""
        return self.error is None and self.text is not None


class GenerationResponse(BaseModel):
    """All ``n`` samples for one request, in sample-index order."""

    model_config = ConfigDict(frozen=True)

    request: GenerationRequest
    model: str
    completions: tuple[Completion, ...]

    @property
    def texts(self) -> list[str | None]:
        """Sample texts in index order (``None`` where a sample failed)."""
        return [c.text for c in self.completions]

    @property
    def ok(self) -> bool:
        """True when every sample has text."""
        return all(c.ok for c in self.completions)

    @property
    def errors(self) -> list[Completion]:
        """The samples that failed."""
        return [c for c in self.completions if not c.ok]

    @property
    def cached(self) -> bool:
        """True when every sample came from the cache."""
        return all(c.cached for c in self.completions)
