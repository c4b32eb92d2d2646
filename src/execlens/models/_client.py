"""The OpenAI-compatible async client: cache first, bounded fan-out, one retry layer."""

from __future__ import annotations

import asyncio
import logging
import time
import weakref
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr

from ._cache import RequestCache, cache_disabled_by_env, sample_key
from ._interrupt import run_interruptibly
from ._retry import RetryPolicy, classify
from ._stats import ClientStats
from ._types import (
    Completion,
    ErrorKind,
    GenerationRequest,
    GenerationResponse,
    SamplingParams,
    Usage,
)

if TYPE_CHECKING:
    import openai

logger = logging.getLogger("execlens.models")

NStrategy = Literal["auto", "native", "per_sample"]
RequestLike = GenerationRequest | Mapping[str, Any]


class ClientConfig(BaseModel):
    """Where and how to reach one model behind an OpenAI-compatible server.

    ``n_strategy``: ``native`` sends ``n`` to the server; ``per_sample`` sends one request
    per sample; ``auto`` tries ``n`` once and falls back for good if the server returns
    fewer choices (llama-cpp-python does).  ``cache_namespace`` replaces ``base_url`` in
    cache keys — for servers whose address changes between runs but whose model does not
    (the embedded local model runs on a fresh port each time).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str
    base_url: str
    api_key: SecretStr = SecretStr("EMPTY")
    max_concurrency: int = Field(default=64, ge=1)
    timeout: float = Field(default=600.0, gt=0.0)
    retry: RetryPolicy = RetryPolicy()
    n_strategy: NStrategy = "auto"
    cache_namespace: str | None = None
    default_params: SamplingParams = SamplingParams()
    extra_headers: dict[str, str] = Field(default_factory=dict)

    @property
    def namespace(self) -> str:
        """The server identity used in cache keys."""
        return (self.cache_namespace or self.base_url).rstrip("/")


@dataclass
class _LoopState:
    """Objects bound to one event loop (httpx pools and asyncio primitives are)."""

    client: openai.AsyncOpenAI
    semaphore: asyncio.Semaphore
    n_probe: asyncio.Lock


def _coerce(request: RequestLike) -> GenerationRequest:
    if isinstance(request, GenerationRequest):
        return request
    if isinstance(request, Mapping):
        return GenerationRequest.model_validate(request)
    raise TypeError(f"expected a GenerationRequest or a mapping, got {type(request).__name__}")


class ModelClient:
    """Sample completions from an OpenAI-compatible server (vLLM, SGLang, llama.cpp, OpenAI).

    Every sample goes through the request cache first; misses are sent with at most
    ``max_concurrency`` requests in flight, retried on transient failures, and written
    to the cache the moment they arrive.  Failures come back as samples with a named
    ``error`` instead of raising, and are never cached.
    """

    def __init__(self, config: ClientConfig, *, cache: RequestCache | bool = True) -> None:
        """``cache``: ``True`` opens the default cache (unless ``EXECLENS_DISABLE_CACHE``),
        ``False`` disables caching, or pass a ``RequestCache`` to share one."""
        self.config = config
        self.stats = ClientStats()
        self._owns_cache = False
        self.cache: RequestCache | None
        if isinstance(cache, RequestCache):
            self.cache = cache
        elif cache and not cache_disabled_by_env():
            self.cache = RequestCache()
            self._owns_cache = True
        else:
            self.cache = None
        # Learnt once per client: does the server honour ``n``?
        self.native_n: bool | None = {"auto": None, "native": True, "per_sample": False}[
            config.n_strategy
        ]
        self._states: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _LoopState] = (
            weakref.WeakKeyDictionary()
        )

    # -- public API -------------------------------------------------------------------

    async def generate(
        self,
        requests: Iterable[RequestLike],
        *,
        on_response: Callable[[int, GenerationResponse], None] | None = None,
    ) -> list[GenerationResponse]:
        """Responses for ``requests``, in input order.

        ``on_response(index, response)`` is called as each request completes (for
        progress bars or writing shards as you go).
        """
        batch = [_coerce(r) for r in requests]  # bad input fails before any request
        results: list[GenerationResponse | None] = [None] * len(batch)
        async for index, response in self.stream(batch):
            results[index] = response
            if on_response is not None:
                on_response(index, response)
        return [r for r in results if r is not None]

    async def stream(
        self, requests: Iterable[RequestLike]
    ) -> AsyncIterator[tuple[int, GenerationResponse]]:
        """Yield ``(input index, response)`` as requests complete, in completion order.

        Requests are taken from ``requests`` lazily, a bounded window at a time, so a
        generator of a million prompts does not become a million tasks.
        """
        state = self._state()
        window = max(4 * self.config.max_concurrency, 64)
        source = iter(enumerate(requests))
        pending: dict[asyncio.Task[GenerationResponse], int] = {}
        exhausted = False
        try:
            while True:
                while not exhausted and len(pending) < window:
                    item = next(source, None)
                    if item is None:
                        exhausted = True
                        break
                    index, request = item
                    task = asyncio.create_task(self._one(_coerce(request), state))
                    pending[task] = index
                if not pending:
                    return
                done, _ = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
                for task in sorted(done, key=pending.__getitem__):
                    index = pending.pop(task)
                    yield index, task.result()
        finally:
            # Cancelled or abandoned: stop what is in flight; what finished is cached.
            for task in pending:
                task.cancel()
            if pending:
                await asyncio.gather(*pending, return_exceptions=True)

    async def generate_one(self, request: RequestLike) -> GenerationResponse:
        """The response for one request."""
        return await self._one(_coerce(request), self._state())

    def generate_sync(
        self,
        requests: Iterable[RequestLike],
        *,
        on_response: Callable[[int, GenerationResponse], None] | None = None,
    ) -> list[GenerationResponse]:
        """``generate`` for code without an event loop (runs one with ``asyncio.run``)."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            pass
        else:
            raise RuntimeError(
                "generate_sync() was called inside a running event loop; "
                "use `await client.generate(...)` instead"
            )

        async def run() -> list[GenerationResponse]:
            try:
                return await self.generate(requests, on_response=on_response)
            finally:
                await self._close_loop_client()

        # Not asyncio.run: a Ctrl-C whose cancellation is absorbed below us must still
        # stop the run (see _interrupt).
        return run_interruptibly(run)

    async def aclose(self) -> None:
        """Close this loop's HTTP client and, if this client opened it, the cache."""
        await self._close_loop_client()
        self.close()

    def close(self) -> None:
        """Close the cache if this client opened it (HTTP clients close with their loop)."""
        if self._owns_cache and self.cache is not None:
            self.cache.close()
            self.cache = None

    def __enter__(self) -> ModelClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    async def __aenter__(self) -> ModelClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    def __repr__(self) -> str:
        return f"ModelClient(model={self.config.model!r}, base_url={self.config.base_url!r})"

    # -- internals --------------------------------------------------------------------

    def _state(self) -> _LoopState:
        loop = asyncio.get_running_loop()
        state = self._states.get(loop)
        if state is None:
            import openai  # deferred: it costs ~0.4 s to import, and only sampling needs it

            client = openai.AsyncOpenAI(
                base_url=self.config.base_url,
                api_key=self.config.api_key.get_secret_value(),
                timeout=self.config.timeout,
                max_retries=0,  # the one retry layer is ours (_request)
                default_headers=self.config.extra_headers or None,
            )
            state = _LoopState(
                client=client,
                semaphore=asyncio.Semaphore(self.config.max_concurrency),
                n_probe=asyncio.Lock(),
            )
            self._states[loop] = state
        return state

    async def _close_loop_client(self) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        state = self._states.pop(loop, None)
        if state is not None:
            await state.client.close()

    async def _one(self, request: GenerationRequest, state: _LoopState) -> GenerationResponse:
        params = request.params or self.config.default_params
        keys = [
            sample_key(
                kind=request.kind,
                namespace=self.config.namespace,
                model=self.config.model,
                request=request,
                params=params,
                sample_index=i,
            )
            for i in range(params.n)
        ]
        found = self.cache.get_many(keys) if self.cache is not None else {}
        samples = {i: found[k] for i, k in enumerate(keys) if k in found}
        missing = [i for i in range(params.n) if i not in samples]
        self.stats.add(cache_hits=len(samples), cache_misses=len(missing))
        if missing:
            samples.update(await self._sample(request, params, keys, missing, state))
        return GenerationResponse(
            request=request,
            model=self.config.model,
            completions=tuple(samples[i] for i in range(params.n)),
        )

    async def _sample(
        self,
        request: GenerationRequest,
        params: SamplingParams,
        keys: list[str],
        missing: list[int],
        state: _LoopState,
    ) -> dict[int, Completion]:
        got: dict[int, Completion] = {}
        remaining = list(missing)
        while remaining:
            if len(remaining) == 1 or self.native_n is False:
                parts = await asyncio.gather(
                    *(self._request(request, params, keys, [i], state) for i in remaining)
                )
                for part in parts:
                    got.update(part)
                break
            if self.native_n is None:
                # Learn whether the server honours ``n`` from one request, not from a
                # burst of concurrent ones that would each come back short.
                async with state.n_probe:
                    if self.native_n is not None:
                        continue
                    part = await self._request(request, params, keys, remaining, state)
                    if all(c.ok for c in part.values()):
                        self.native_n = len(part) >= len(remaining)
            else:
                part = await self._request(request, params, keys, remaining, state)
            got.update(part)
            remaining = [i for i in remaining if i not in got]
        return got

    def _call_kwargs(
        self, request: GenerationRequest, params: SamplingParams, first: int, count: int
    ) -> dict[str, Any]:
        kwargs: dict[str, Any] = {
            "model": self.config.model,
            "temperature": params.temperature,
            "top_p": params.top_p,
            "timeout": self.config.timeout,
        }
        if params.max_tokens is not None:
            kwargs["max_tokens"] = params.max_tokens
        if params.stop:
            kwargs["stop"] = list(params.stop)
        if params.seed is not None:
            # Distinct seeds per sample, so per-sample requests do not all repeat sample 0.
            kwargs["seed"] = params.seed + first
        if count > 1:
            kwargs["n"] = count
        if params.extra_body:
            kwargs["extra_body"] = dict(params.extra_body)
        if request.messages is not None:
            kwargs["messages"] = [m.model_dump() for m in request.messages]
        else:
            kwargs["prompt"] = request.prompt
        return kwargs

    async def _request(
        self,
        request: GenerationRequest,
        params: SamplingParams,
        keys: list[str],
        indexes: list[int],
        state: _LoopState,
    ) -> dict[int, Completion]:
        """One logical request for samples ``indexes`` (retried); returns what it got."""
        kwargs = self._call_kwargs(request, params, indexes[0], len(indexes))
        endpoint = (
            state.client.chat.completions.create
            if request.kind == "chat"
            else state.client.completions.create
        )
        policy = self.config.retry
        attempts = 0
        while True:
            attempts += 1
            async with state.semaphore:
                started = time.monotonic()  # latency is the last attempt's, not queueing
                self.stats.enter()
                try:
                    # A hard deadline too: httpx's timeout is per read, and a server that
                    # trickles bytes could otherwise hold a slot for ever.
                    async with asyncio.timeout(self.config.timeout):
                        response = await endpoint(**kwargs)
                    failure = None
                except Exception as exc:  # classified below; anything unnamed is re-raised
                    failure = classify(exc)
                    if failure is None:
                        raise
                finally:
                    self.stats.leave()
            if failure is None:
                parsed = self._parse(response, request, indexes, attempts, started)
                if parsed:
                    self._store(request, keys, parsed)
                    return parsed
                failure_kind, message = ErrorKind.INVALID_RESPONSE, "response had no choices"
            elif failure.retryable and attempts <= policy.max_retries:
                self.stats.add(retries=1)
                wait = policy.delay(attempts - 1, failure.retry_after)
                logger.info(
                    "%s from %s (attempt %d); retrying in %.2f s",
                    failure.kind.value,
                    self.config.base_url,
                    attempts,
                    wait,
                )
                await asyncio.sleep(wait)
                continue
            else:
                failure_kind, message = failure.kind, failure.message
            # info, not warning: the sample carries the error and every caller sums the
            # failures up in one message; a warning per request would reach stderr through
            # logging's last-resort handler, a line for each of thousands of requests.
            logger.info(
                "%s after %d attempt(s) from %s: %s",
                failure_kind.value,
                attempts,
                self.config.base_url,
                message,
            )
            self.stats.error(failure_kind.value, len(indexes))
            latency = time.monotonic() - started
            return {
                i: Completion(
                    index=i,
                    error=failure_kind,
                    error_message=message,
                    attempts=attempts,
                    latency=latency,
                )
                for i in indexes
            }

    def _parse(
        self,
        response: Any,
        request: GenerationRequest,
        indexes: list[int],
        attempts: int,
        started: float,
    ) -> dict[int, Completion]:
        choices = sorted(getattr(response, "choices", None) or [], key=lambda c: c.index or 0)
        raw_usage = getattr(response, "usage", None)
        usage = Usage(
            prompt_tokens=getattr(raw_usage, "prompt_tokens", 0) or 0,
            completion_tokens=getattr(raw_usage, "completion_tokens", 0) or 0,
        )
        self.stats.add(prompt_tokens=usage.prompt_tokens, completion_tokens=usage.completion_tokens)
        latency = time.monotonic() - started
        used = choices[: len(indexes)]
        parsed: dict[int, Completion] = {}
        for index, choice in zip(indexes, used, strict=False):
            if request.kind == "chat":
                message = choice.message
                text = message.content or ""
                # vLLM/SGLang reasoning parsers put the chain of thought beside the answer.
                reasoning = getattr(message, "reasoning_content", None) or getattr(
                    message, "reasoning", None
                )
            else:
                text, reasoning = choice.text or "", None
            parsed[index] = Completion(
                index=index,
                text=text,
                reasoning=reasoning if isinstance(reasoning, str) else None,
                finish_reason=choice.finish_reason,
                usage=usage,
                choices_in_request=len(used),
                attempts=attempts,
                latency=latency,
            )
        return parsed

    def _store(
        self, request: GenerationRequest, keys: list[str], parsed: dict[int, Completion]
    ) -> None:
        if self.cache is None:
            return
        self.cache.put_many(
            ((keys[i], c) for i, c in parsed.items()),
            model=self.config.model,
            namespace=self.config.namespace,
            kind=request.kind,
        )
