"""Resolving --model / --base-url / keys into a client configuration."""

from __future__ import annotations

import pytest

from execlens.models import (
    ModelConfigError,
    RequestCache,
    SamplingParams,
    is_local,
    open_client,
    resolve_api_key,
    resolve_client_config,
)


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("EXECLENS_API_KEY", "OPENAI_API_KEY", "EXECLENS_BASE_URL", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


def test_api_key_precedence(monkeypatch: pytest.MonkeyPatch) -> None:
    assert resolve_api_key() == "EMPTY"
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai")
    assert resolve_api_key() == "sk-openai"
    monkeypatch.setenv("EXECLENS_API_KEY", "sk-execlens")
    assert resolve_api_key() == "sk-execlens"
    assert resolve_api_key("explicit") == "explicit"


def test_served_model_config(monkeypatch: pytest.MonkeyPatch) -> None:
    config = resolve_client_config(
        "Qwen/Qwen2.5-7B-Instruct",
        "http://127.0.0.1:8000/v1/",
        max_concurrency=8,
        default_params=SamplingParams(temperature=0.2),
    )
    assert config.base_url == "http://127.0.0.1:8000/v1"
    assert config.api_key.get_secret_value() == "EMPTY"
    assert config.max_concurrency == 8 and config.default_params.temperature == 0.2
    monkeypatch.setenv("OPENAI_BASE_URL", "https://api.example.com/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-x")
    config = resolve_client_config("gpt-x")
    assert config.base_url == "https://api.example.com/v1"
    assert config.api_key.get_secret_value() == "sk-x"
    assert "sk-x" not in repr(config)


def test_bad_configurations_are_named() -> None:
    with pytest.raises(ModelConfigError, match="needs --base-url"):
        resolve_client_config("some-model")
    with pytest.raises(ModelConfigError, match="http:// or https://"):
        resolve_client_config("m", "127.0.0.1:8000")
    with pytest.raises(ModelConfigError, match="model name is required"):
        resolve_client_config("  ", "http://x/v1")
    with pytest.raises(ModelConfigError, match="invalid client settings"):
        resolve_client_config("m", "http://x/v1", max_concurrency=0)
    with pytest.raises(ModelConfigError, match="open_client"):
        resolve_client_config("local")
    with (
        pytest.raises(ModelConfigError, match="drop --base-url"),
        open_client("local", "http://127.0.0.1:1/v1"),
    ):
        pass
    assert is_local("LOCAL") and not is_local("localhost-model")


def test_open_client_no_cache_switch() -> None:
    # check=False: nothing listens there, and this test is about the cache switch.
    with open_client("m", "http://127.0.0.1:9/v1", no_cache=True, check=False) as client:
        assert client.cache is None
    with open_client("m", "http://127.0.0.1:9/v1", check=False) as client:
        assert isinstance(client.cache, RequestCache)
    assert client.cache is None  # closed with the client, since the client opened it
