"""The client against a scripted OpenAI-shaped server: retries, errors, concurrency, n,
cancellation.  The client is real; only the server is a stand-in (see conftest)."""

from __future__ import annotations

import asyncio
import itertools
import socket
import time
from typing import Any

import pytest

from execlens.models import (
    ClientConfig,
    ErrorKind,
    GenerationRequest,
    ModelClient,
    RequestCache,
    RetryPolicy,
    SamplingParams,
)

FAST = RetryPolicy(max_retries=3, initial_delay=0.01, max_delay=0.05)


def _client(base_url: str, cache: RequestCache | bool = False, **settings: Any) -> ModelClient:
    config = ClientConfig(model="fake", base_url=base_url, **({"retry": FAST} | settings))
    return ModelClient(config, cache=cache)


def _gaps(arrivals: list[float]) -> list[float]:
    return [b - a for a, b in itertools.pairwise(arrivals)]


def test_backoff_on_429_then_500_then_success(fake: Any, cache: RequestCache) -> None:
    def behaviour(i: int, body: dict[str, Any]) -> Any:
        return [fake.Reply(status=429), fake.Reply(status=500), fake.Reply()][min(i, 2)]

    policy = RetryPolicy(max_retries=4, initial_delay=0.2, multiplier=2.0, jitter=0.0)
    with fake.Server(behaviour) as server:
        client = _client(server.base_url, cache, retry=policy)
        [response] = client.generate_sync([GenerationRequest.completion("p")])
    [sample] = response.completions
    assert sample.ok and sample.text.startswith("echo:p")
    assert sample.attempts == 3
    assert server.count == 3
    assert client.stats.requests == 3 and client.stats.retries == 2
    first, second = _gaps(server.arrivals)
    assert first >= 0.2 and second >= 0.4  # exponential: 0.2 s, then 0.4 s
    assert len(cache) == 1


def test_retry_after_header_is_honoured(fake: Any) -> None:
    def behaviour(i: int, body: dict[str, Any]) -> Any:
        return fake.Reply(status=429, headers={"retry-after": "0.5"}) if i == 0 else fake.Reply()

    with fake.Server(behaviour) as server:
        client = _client(server.base_url)
        [response] = client.generate_sync([GenerationRequest.chat("q")])
    assert response.ok
    assert _gaps(server.arrivals)[0] >= 0.5


def test_always_failing_server_yields_named_error_and_nothing_cached(
    fake: Any, cache: RequestCache
) -> None:
    with fake.Server(lambda i, body: fake.Reply(status=503)) as server:
        client = _client(server.base_url, cache, retry=FAST.model_copy(update={"max_retries": 2}))
        responses = client.generate_sync([GenerationRequest.chat("a"), GenerationRequest.chat("b")])
        assert server.count == 6  # 2 requests x (1 try + 2 retries)
        for response in responses:
            [sample] = response.completions
            assert not response.ok and sample.error is ErrorKind.SERVER_ERROR
            assert sample.text is None and sample.attempts == 3
            assert "503" in (sample.error_message or "")
        assert client.stats.errors == {"server_error": 2}
        assert len(cache) == 0
        # An error is not cached: the next run asks again.
        client.generate_sync([GenerationRequest.chat("a")])
        assert server.count == 9


def test_client_errors_are_not_retried(fake: Any) -> None:
    context = {
        "error": {
            "message": "This model's maximum context length is 4096 tokens",
            "code": "context_length_exceeded",
        }
    }

    def behaviour(i: int, body: dict[str, Any]) -> Any:
        if body["prompt"] == "long":
            return fake.Reply(status=400, body=context)
        return fake.Reply(status={"bad": 400, "auth": 401, "missing": 404}[body["prompt"]])

    with fake.Server(behaviour) as server:
        client = _client(server.base_url)
        prompts = ["long", "bad", "auth", "missing"]
        responses = client.generate_sync([GenerationRequest.completion(p) for p in prompts])
        assert server.count == 4
    kinds = [r.completions[0].error for r in responses]
    assert kinds == [
        ErrorKind.CONTEXT_LENGTH,
        ErrorKind.BAD_REQUEST,
        ErrorKind.AUTH_ERROR,
        ErrorKind.NOT_FOUND,
    ]


def test_timeout_is_a_named_status(fake: Any) -> None:
    with fake.Server(lambda i, body: fake.Reply(delay=3.0)) as server:
        client = _client(server.base_url, timeout=0.3, retry=RetryPolicy(max_retries=0))
        started = time.monotonic()
        [response] = client.generate_sync([GenerationRequest.chat("slow")])
        elapsed = time.monotonic() - started
    assert response.completions[0].error is ErrorKind.TIMEOUT
    assert elapsed < 2.0


def test_connection_refused_is_a_named_status() -> None:
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    retry = FAST.model_copy(update={"max_retries": 1})
    client = _client(f"http://127.0.0.1:{port}/v1", retry=retry)
    [response] = client.generate_sync([GenerationRequest.chat("x")])
    assert response.completions[0].error is ErrorKind.CONNECTION_ERROR
    assert client.stats.requests == 2 and client.stats.retries == 1


@pytest.mark.parametrize("limit", [5, 64])
def test_semaphore_bounds_requests_in_flight(fake: Any, limit: int) -> None:
    with fake.Server(lambda i, body: fake.Reply(delay=0.25)) as server:
        client = _client(server.base_url, max_concurrency=limit)
        requests = [GenerationRequest.chat(f"q{i}") for i in range(2 * limit + 3)]
        responses = client.generate_sync(requests)
    assert all(r.ok for r in responses)
    # Never exceeded: the one thing the semaphore guarantees.  (Whether the limit is
    # *reached* depends on how fast a loaded machine starts the requests: not asserted.)
    assert 1 <= server.max_in_flight <= limit
    assert 1 <= client.stats.max_in_flight <= limit
    # Results come back in input order with their own prompts.
    expected = [f"echo:q{i}" for i in range(len(requests))]
    assert [r.texts[0].split("|")[0] for r in responses] == expected


def test_default_concurrency_is_64() -> None:
    assert ClientConfig(model="m", base_url="http://x/v1").max_concurrency == 64


def test_native_n_and_growing_n_reuses_cached_samples(fake: Any, cache: RequestCache) -> None:
    with fake.Server(lambda i, body: fake.Reply(honour_n=True)) as server:
        client = _client(server.base_url, cache)
        three = SamplingParams(n=3, temperature=0.7, seed=10)
        [response] = client.generate_sync([GenerationRequest.chat("x", params=three)])
        assert client.native_n is True
        assert server.count == 1 and server.bodies[0]["n"] == 3
        assert len(response.completions) == 3 and len(cache) == 3
        assert [c.choices_in_request for c in response.completions] == [3, 3, 3]
        five = three.model_copy(update={"n": 5})
        [response] = client.generate_sync([GenerationRequest.chat("x", params=five)])
        # Only samples 3 and 4 were asked for, in one request, seeded after the others.
        assert server.count == 2
        assert server.bodies[1]["n"] == 2 and server.bodies[1]["seed"] == 13
        assert [c.cached for c in response.completions] == [True] * 3 + [False] * 2
        assert len(cache) == 5


def test_server_ignoring_n_falls_back_to_one_request_per_sample(fake: Any) -> None:
    with fake.Server(lambda i, body: fake.Reply(honour_n=False)) as server:
        client = _client(server.base_url)
        params = SamplingParams(n=3, temperature=0.7, seed=100)
        requests = [GenerationRequest.chat(f"p{i}", params=params) for i in range(4)]
        responses = client.generate_sync(requests)
        assert client.native_n is False
        # One probe with n=3 came back short; everything else went one sample a request.
        assert server.count == 1 + 2 + 3 * 3
        assert sum(1 for body in server.bodies if body.get("n")) == 1
    for response in responses:
        assert response.ok and len(response.completions) == 3
        seeds = [text.split("seed=")[1].split("|")[0] for text in response.texts]
        assert seeds == ["100", "101", "102"]  # distinct per sample


def test_per_sample_strategy_never_sends_n(fake: Any) -> None:
    with fake.Server() as server:
        client = _client(server.base_url, n_strategy="per_sample")
        client.generate_sync([GenerationRequest.completion("z", params=SamplingParams(n=4))])
        assert server.count == 4 and not any("n" in body for body in server.bodies)


def test_sampling_params_reach_the_server(fake: Any) -> None:
    params = SamplingParams(
        temperature=0.3,
        top_p=0.9,
        max_tokens=17,
        stop=["\n", "END"],
        seed=5,
        extra_body={"top_k": 20, "repetition_penalty": 1.1},
    )
    with fake.Server() as server:
        client = _client(server.base_url)
        client.generate_sync([GenerationRequest.completion("a", params=params)])
        client.generate_sync([GenerationRequest.chat("b", system="be brief")])
    completion, chat = server.bodies
    assert completion["prompt"] == "a" and completion["model"] == "fake"
    for name, value in [
        ("temperature", 0.3),
        ("top_p", 0.9),
        ("max_tokens", 17),
        ("stop", ["\n", "END"]),
        ("seed", 5),
        ("top_k", 20),
        ("repetition_penalty", 1.1),
    ]:
        assert completion[name] == value
    assert chat["messages"] == [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "b"},
    ]


def test_cancelled_run_resumes_without_duplicates_or_gaps(fake: Any, cache: RequestCache) -> None:
    total = 40
    requests = [GenerationRequest.completion(f"item-{i}") for i in range(total)]

    async def interrupted() -> int:
        client = _client(server.base_url, cache, max_concurrency=4)
        seen = 0

        async def consume() -> None:
            nonlocal seen
            async for _index, _response in client.stream(requests):
                seen += 1

        task = asyncio.create_task(consume())
        while seen < 10:
            await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        await client.aclose()
        return seen

    with fake.Server(lambda i, body: fake.Reply(delay=0.05)) as server:
        seen = asyncio.run(interrupted())
        stored = len(cache)
        sent_before = server.count
        assert seen <= stored < total  # everything yielded was already on disk

        client = _client(server.base_url, cache, max_concurrency=4)
        responses = client.generate_sync(requests)
        assert client.stats.cache_hits == stored
        assert client.stats.requests == total - stored == server.count - sent_before
    assert len(cache) == total
    assert [r.texts[0].split("|")[0] for r in responses] == [f"echo:item-{i}" for i in range(total)]
    resent = [body["prompt"] for body in server.bodies[sent_before:]]
    assert len(set(resent)) == len(resent)  # nothing asked twice in the resumed run


def test_generate_sync_refuses_a_running_loop(fake: Any) -> None:
    client = _client("http://127.0.0.1:9/v1")

    async def inside() -> None:
        with pytest.raises(RuntimeError, match=r"await client\.generate"):
            client.generate_sync([GenerationRequest.chat("x")])

    asyncio.run(inside())


def test_bad_request_objects_fail_before_any_request(fake: Any) -> None:
    with fake.Server() as server:
        client = _client(server.base_url)
        with pytest.raises(ValueError, match="exactly one"):
            client.generate_sync([GenerationRequest.chat("ok"), {"prompt": "a", "messages": []}])
        with pytest.raises(TypeError, match="GenerationRequest or a mapping"):
            client.generate_sync(["just a string"])  # type: ignore[list-item]
        assert server.count == 0
        [response] = client.generate_sync([{"prompt": "as a dict"}])
        assert response.ok and response.request.kind == "completion"
