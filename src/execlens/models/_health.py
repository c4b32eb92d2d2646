"""The health check a run does before its first request: is the server there, and does it
serve the model?

A run against a dead server would otherwise spend every request's retries (about half a
minute each) before saying anything; a wrong key, a base URL without ``/v1`` or a model
name the server does not know would fail every request the same way.  One ``GET
{base_url}/models`` with a short timeout tells all of these apart in a second, and the
listing names the models the server does have.
"""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING, Any

from ._resolve import ModelConfigError

if TYPE_CHECKING:
    from ._client import ClientConfig

__all__ = [
    "SKIP_ENV",
    "ServerUnavailableError",
    "UnknownModelError",
    "check_server",
    "request_failure_hint",
    "served_context_length",
]

#: Set to 1 to skip the check (a gateway without a ``/models`` listing).
SKIP_ENV = "EXECLENS_NO_HEALTH_CHECK"
_LISTED = 20  # models named in an error; OpenAI's listing runs to dozens


class ServerUnavailableError(ModelConfigError):
    """Nothing answers at the base URL (refused, timed out, or a 5xx on the listing)."""


class UnknownModelError(ModelConfigError):
    """The server answers, but its ``/models`` listing does not hold the model asked for."""


def _listed(payload: Any) -> list[str]:
    """Model ids of an OpenAI-style listing (``{"data": [{"id": ...}, ...]}``)."""
    data = payload.get("data") if isinstance(payload, dict) else None
    if not isinstance(data, list):
        return []
    return [str(entry["id"]) for entry in data if isinstance(entry, dict) and "id" in entry]


def check_server(config: ClientConfig, *, timeout: float = 10.0, attempts: int = 2) -> None:
    """Raise a named :class:`ModelConfigError` unless ``config``'s server is reachable,
    accepts its key and (when its listing names models) serves ``config.model``.

    ``attempts`` bounds the tries of an unreachable server (a second one rides out a
    server that is just restarting); each waits at most ``timeout`` seconds.
    """
    if os.environ.get(SKIP_ENV, "").strip() not in ("", "0"):
        return
    import httpx  # deferred: importing the models package should stay cheap

    url = config.base_url.rstrip("/")
    headers = {
        "Authorization": f"Bearer {config.api_key.get_secret_value()}",
        **config.extra_headers,
    }
    running = f"is the server running at {url}? (check --base-url)"
    problem = ""
    for attempt in range(max(1, attempts)):
        if attempt:
            time.sleep(1.0)
        try:
            with httpx.Client(timeout=timeout, trust_env=False) as http:
                response = http.get(f"{url}/models", headers=headers)
        except httpx.TimeoutException:
            problem = f"no answer from {url} within {timeout:g} s"
            continue
        except httpx.HTTPError as exc:
            detail = " ".join(str(exc).split()) or type(exc).__name__
            problem = f"cannot connect to {url} ({detail})"
            continue
        status = response.status_code
        if status in (405, 501):
            # The server answered but implements no model listing (a bare gateway or a
            # scripted server): it is up, and nothing more can be checked.
            return
        if status >= 500:
            problem = f"{url}/models answered HTTP {status}"
            continue
        if status in (401, 403):
            raise ModelConfigError(
                f"the server at {url} refused the API key (HTTP {status}); set "
                f"EXECLENS_API_KEY (or OPENAI_API_KEY) to a key it accepts"
            )
        if status == 404:
            raise ModelConfigError(
                f"{url}/models does not exist (HTTP 404); an OpenAI-compatible --base-url "
                f"usually ends in /v1 (e.g. http://127.0.0.1:8000/v1), or set "
                f"{SKIP_ENV}=1 for a server without a model listing"
            )
        if status >= 400:
            raise ModelConfigError(f"{url}/models answered HTTP {status}; check --base-url")
        try:
            served = _listed(response.json())
        except ValueError:
            served = []  # not a listing we can read: the server is there, that is enough
        if served and config.model not in served:
            shown = ", ".join(served[:_LISTED]) + (" ..." if len(served) > _LISTED else "")
            raise UnknownModelError(
                f"{url} does not serve a model named {config.model!r}; it serves: {shown} "
                f"(pass one of them as --model)"
            )
        return
    raise ServerUnavailableError(f"{problem}; {running}")


#: Keys of a ``/models`` entry that give the served context length (vLLM: max_model_len).
_CONTEXT_KEYS = ("max_model_len", "context_length", "max_context_length")


def served_context_length(config: ClientConfig, *, timeout: float = 10.0) -> int | None:
    """The context length the server reports for ``config.model`` (vLLM's ``/models``
    listing has ``max_model_len``), or ``None`` when it reports none or cannot be asked.

    Token budgets are kept within it (``TokenBudget.context``); a server that reports
    nothing is asked as it is, and a refusal naming its limit is asked again within it.
    """
    if os.environ.get(SKIP_ENV, "").strip() not in ("", "0"):
        return None
    import httpx

    url = config.base_url.rstrip("/")
    headers = {
        "Authorization": f"Bearer {config.api_key.get_secret_value()}",
        **config.extra_headers,
    }
    try:
        with httpx.Client(timeout=timeout, trust_env=False) as http:
            response = http.get(f"{url}/models", headers=headers)
        payload = response.json() if response.status_code == 200 else None
    except (httpx.HTTPError, ValueError):
        return None
    data = payload.get("data") if isinstance(payload, dict) else None
    if not isinstance(data, list):
        return None
    entries = [e for e in data if isinstance(e, dict)]
    mine = [e for e in entries if e.get("id") == config.model] or (
        entries if len(entries) == 1 else []
    )
    for entry in mine:
        for key in _CONTEXT_KEYS:
            value = entry.get(key)
            if isinstance(value, int) and not isinstance(value, bool) and value > 0:
                return value
    return None


# What to change when every request fails the same non-retryable way (by ErrorKind value).
_HINTS = {
    "bad_request": "the server refused the request itself; check --max-tokens, "
    "--extra-body and --endpoint (chat needs a chat template)",
    "context_length_exceeded": "the prompt plus --max-tokens exceeds the model's context; "
    "lower --max-tokens or serve the model with a longer context",
    "auth_error": "set EXECLENS_API_KEY (or OPENAI_API_KEY) to a key the server accepts",
    "not_found": "check --model and --base-url (an OpenAI-compatible URL usually ends in /v1)",
}


def request_failure_hint(kind: str) -> str | None:
    """What the user should change after requests failed with ``kind`` (an ``ErrorKind``
    value), or ``None`` when retrying later is the fix (timeouts, 5xx, rate limits)."""
    return _HINTS.get(kind)
