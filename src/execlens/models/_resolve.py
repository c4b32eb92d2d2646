"""From ``--model NAME --base-url URL`` (or ``--model local``) to a ready client."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from pydantic import SecretStr

from ._cache import RequestCache
from ._client import ClientConfig, ModelClient
from ._local import LocalModelServer

LOCAL_MODEL = "local"
_KEY_ENVS = ("EXECLENS_API_KEY", "OPENAI_API_KEY")
_URL_ENVS = ("EXECLENS_BASE_URL", "OPENAI_BASE_URL")


class ModelConfigError(ValueError):
    """The model name, base URL or key cannot make a usable client configuration."""


def is_local(model: str) -> bool:
    """True for the embedded default model (``--model local``)."""
    return model.strip().lower() == LOCAL_MODEL


def resolve_api_key(api_key: str | None = None) -> str:
    """``api_key``, else ``$EXECLENS_API_KEY``, else ``$OPENAI_API_KEY``, else ``"EMPTY"``.

    ``"EMPTY"`` is what vLLM and llama.cpp servers without ``--api-key`` accept.
    """
    if api_key:
        return api_key
    for name in _KEY_ENVS:
        value = os.environ.get(name)
        if value:
            return value
    return "EMPTY"


def resolve_client_config(
    model: str,
    base_url: str | None = None,
    api_key: str | None = None,
    **settings: Any,
) -> ClientConfig:
    """The client configuration for a served model (not ``local``: see ``open_client``).

    ``base_url`` falls back to ``$EXECLENS_BASE_URL`` then ``$OPENAI_BASE_URL``;
    ``settings`` are further ``ClientConfig`` fields (``max_concurrency``, ``timeout``,
    ``retry``, ``default_params`` …).
    """
    if not model or not model.strip():
        raise ModelConfigError("a model name is required (--model NAME, or --model local)")
    if is_local(model):
        raise ModelConfigError(
            "--model local needs its server started: use open_client('local') "
            "or LocalModelServer().client_config()"
        )
    if not base_url:
        base_url = next((os.environ[n] for n in _URL_ENVS if os.environ.get(n)), None)
    if not base_url:
        raise ModelConfigError(
            f"--model {model} needs --base-url (the server's OpenAI-compatible URL, e.g. "
            "http://127.0.0.1:8000/v1 for vLLM), or EXECLENS_BASE_URL / OPENAI_BASE_URL"
        )
    if not base_url.startswith(("http://", "https://")):
        raise ModelConfigError(f"--base-url must start with http:// or https://: {base_url!r}")
    try:
        return ClientConfig(
            model=model.strip(),
            base_url=base_url.rstrip("/"),
            api_key=SecretStr(resolve_api_key(api_key)),
            **settings,
        )
    except ValueError as exc:
        raise ModelConfigError(f"invalid client settings: {exc}") from exc


@contextmanager
def open_client(
    model: str,
    base_url: str | None = None,
    api_key: str | None = None,
    *,
    cache: RequestCache | bool = True,
    no_cache: bool = False,
    local_server: LocalModelServer | None = None,
    check: bool = True,
    **settings: Any,
) -> Iterator[ModelClient]:
    """A ``ModelClient`` for ``model``; for ``local`` it starts and finally stops the server.

    ``no_cache=True`` (the CLI's ``--no-cache``) disables the request cache.  Pass a
    started ``local_server`` to reuse one across several clients.  ``check`` asks a
    served model's server for its model listing first (``check_server``), so a dead
    server, a refused key or an unknown model is a named error before any request.
    """
    use_cache: RequestCache | bool = False if no_cache else cache
    if is_local(model):
        if base_url:
            raise ModelConfigError("--model local runs its own server: drop --base-url")
        if local_server is not None:
            with ModelClient(local_server.start().client_config(**settings), cache=use_cache) as c:
                yield c
            return
        with (
            LocalModelServer() as server,
            ModelClient(server.client_config(**settings), cache=use_cache) as client,
        ):
            yield client
        return
    config = resolve_client_config(model, base_url, api_key, **settings)
    if check:
        from ._health import check_server  # deferred: _health imports this module

        check_server(config)
    with ModelClient(config, cache=use_cache) as client:
        yield client
