"""The one retry layer: which failures are worth retrying, and how long to wait."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

from ._types import ErrorKind

if TYPE_CHECKING:
    import openai

RETRYABLE = frozenset(
    {
        ErrorKind.TIMEOUT,
        ErrorKind.RATE_LIMITED,
        ErrorKind.SERVER_ERROR,
        ErrorKind.CONNECTION_ERROR,
    }
)


class RetryPolicy(BaseModel):
    """Exponential backoff with jitter for 429, 5xx, timeouts and connection errors.

    The wait before retry ``a`` (0-based) is drawn from
    ``[(1 - jitter) * d, d]`` where ``d = min(max_delay, initial_delay * multiplier**a)``,
    raised to a server's ``Retry-After`` (capped at ``max_retry_after``) when it sends one.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_retries: int = Field(default=5, ge=0)
    initial_delay: float = Field(default=1.0, ge=0.0)
    multiplier: float = Field(default=2.0, ge=1.0)
    max_delay: float = Field(default=60.0, ge=0.0)
    jitter: float = Field(default=0.5, ge=0.0, le=1.0)
    max_retry_after: float = Field(default=120.0, ge=0.0)

    def delay(
        self, attempt: int, retry_after: float | None = None, rng: random.Random | None = None
    ) -> float:
        """Seconds to wait before retry number ``attempt`` (0 for the first retry)."""
        ceiling = min(self.max_delay, self.initial_delay * self.multiplier**attempt)
        draw = (rng or random).random()
        wait = ceiling * (1.0 - self.jitter * draw)
        if retry_after is not None:
            wait = max(wait, min(retry_after, self.max_retry_after))
        return wait


@dataclass(frozen=True)
class Failure:
    """A classified failure of one HTTP attempt."""

    kind: ErrorKind
    message: str
    retry_after: float | None = None

    @property
    def retryable(self) -> bool:
        """True for transient failures (rate limits, 5xx, timeouts, lost connections)."""
        return self.kind in RETRYABLE


def _retry_after(exc: openai.APIStatusError) -> float | None:
    # Only the seconds form; an HTTP date is rare from inference servers.
    value = exc.response.headers.get("retry-after")
    if value is None:
        return None
    try:
        seconds = float(value)
    except ValueError:
        return None
    return seconds if seconds >= 0 else None


def classify(exc: BaseException) -> Failure | None:
    """Name a failure raised by the openai client or our deadline; ``None`` if not ours."""
    import openai  # deferred like in _client: only a sampling run gets here

    if isinstance(exc, TimeoutError | openai.APITimeoutError):
        return Failure(ErrorKind.TIMEOUT, "request timed out")
    if isinstance(exc, openai.APIConnectionError):
        cause = exc.__cause__
        detail = f"{exc.message} ({type(cause).__name__}: {cause})" if cause else exc.message
        return Failure(ErrorKind.CONNECTION_ERROR, detail)
    if isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        message = f"HTTP {status}: {exc.message}"
        if status == 429:
            return Failure(ErrorKind.RATE_LIMITED, message, _retry_after(exc))
        if status >= 500 or status in (408, 409):
            kind = ErrorKind.TIMEOUT if status == 408 else ErrorKind.SERVER_ERROR
            return Failure(kind, message, _retry_after(exc))
        if exc.code == "context_length_exceeded" or "maximum context length" in exc.message:
            return Failure(ErrorKind.CONTEXT_LENGTH, message)
        if status in (400, 422):
            return Failure(ErrorKind.BAD_REQUEST, message)
        if status in (401, 403):
            return Failure(ErrorKind.AUTH_ERROR, message)
        if status == 404:
            return Failure(ErrorKind.NOT_FOUND, message)
        return Failure(ErrorKind.API_ERROR, message)
    if isinstance(exc, openai.APIResponseValidationError):
        return Failure(ErrorKind.INVALID_RESPONSE, str(exc))
    if isinstance(exc, openai.OpenAIError):
        return Failure(ErrorKind.API_ERROR, f"{type(exc).__name__}: {exc}")
    return None
