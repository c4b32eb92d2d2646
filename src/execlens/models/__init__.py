"""Model clients: OpenAI-compatible async sampling, a persistent request cache, the
embedded local model.

```python
from execlens.models import GenerationRequest, SamplingParams, open_client

with open_client("local") as client:                       # or ("Qwen/...", base_url=...)
    params = SamplingParams(n=3, temperature=0.8, max_tokens=64, seed=0)
    [response] = client.generate_sync([GenerationRequest.chat("What is 2+2?", params=params)])
    response.texts, client.stats.requests, client.stats.cache_hits
```
"""

from ._budget import (
    THINKING_MAX_TOKENS,
    Asked,
    TokenBudget,
    ask_within_budget,
    cut_chat_reply,
    limit_from_refusal,
    with_max_tokens,
)
from ._cache import RequestCache, cache_disabled_by_env, default_cache_dir, sample_key
from ._client import ClientConfig, ModelClient, NStrategy
from ._health import (
    ServerUnavailableError,
    UnknownModelError,
    check_server,
    request_failure_hint,
    served_context_length,
)
from ._local import (
    LOCAL_ALIAS,
    LocalModelError,
    LocalModelServer,
    LocalServerError,
    local_server_missing,
    locate_local_model,
    model_digest,
)
from ._resolve import (
    LOCAL_MODEL,
    ModelConfigError,
    is_local,
    open_client,
    resolve_api_key,
    resolve_client_config,
)
from ._retry import RetryPolicy
from ._stats import ClientStats
from ._types import (
    ChatMessage,
    Completion,
    EndpointKind,
    ErrorKind,
    GenerationRequest,
    GenerationResponse,
    SamplingParams,
    Usage,
)

__all__ = [
    "LOCAL_ALIAS",
    "LOCAL_MODEL",
    "THINKING_MAX_TOKENS",
    "Asked",
    "ChatMessage",
    "ClientConfig",
    "ClientStats",
    "Completion",
    "EndpointKind",
    "ErrorKind",
    "GenerationRequest",
    "GenerationResponse",
    "LocalModelError",
    "LocalModelServer",
    "LocalServerError",
    "ModelClient",
    "ModelConfigError",
    "NStrategy",
    "RequestCache",
    "RetryPolicy",
    "SamplingParams",
    "ServerUnavailableError",
    "TokenBudget",
    "UnknownModelError",
    "Usage",
    "ask_within_budget",
    "cache_disabled_by_env",
    "check_server",
    "cut_chat_reply",
    "default_cache_dir",
    "is_local",
    "limit_from_refusal",
    "local_server_missing",
    "locate_local_model",
    "model_digest",
    "open_client",
    "request_failure_hint",
    "resolve_api_key",
    "resolve_client_config",
    "sample_key",
    "served_context_length",
    "with_max_tokens",
]
