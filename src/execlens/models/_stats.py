"""Counters a run can report and tests can assert on ("0 requests" after a cached rerun)."""

from __future__ import annotations

import threading
from collections import Counter
from dataclasses import dataclass, field
from typing import Any


@dataclass
class ClientStats:
    """What a client has done since it was created (or since ``reset``).

    ``requests`` counts HTTP attempts actually sent, retries included; ``cache_hits`` and
    ``cache_misses`` count samples; token counts are for live requests only (cached
    samples cost nothing); ``errors`` counts failed samples by error kind.
    """

    requests: int = 0
    retries: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cache_hits: int = 0
    cache_misses: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    in_flight: int = 0
    max_in_flight: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def add(self, **amounts: int) -> None:
        """Add to counters by name (thread-safe: sync callers may share a client)."""
        with self._lock:
            for name, amount in amounts.items():
                setattr(self, name, getattr(self, name) + amount)

    def error(self, kind: str, count: int = 1) -> None:
        """Count ``count`` failed samples of ``kind``."""
        with self._lock:
            self.errors[kind] += count

    def enter(self) -> None:
        """One more request in flight."""
        with self._lock:
            self.in_flight += 1
            self.requests += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)

    def leave(self) -> None:
        """One request fewer in flight."""
        with self._lock:
            self.in_flight -= 1

    def reset(self) -> None:
        """Zero every counter (requests still in flight stay counted in ``in_flight``)."""
        with self._lock:
            self.requests = self.retries = 0
            self.prompt_tokens = self.completion_tokens = 0
            self.cache_hits = self.cache_misses = 0
            self.errors = Counter()
            self.max_in_flight = self.in_flight

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready snapshot."""
        with self._lock:
            return {
                "requests": self.requests,
                "retries": self.retries,
                "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens,
                "cache_hits": self.cache_hits,
                "cache_misses": self.cache_misses,
                "errors": dict(self.errors),
                "max_in_flight": self.max_in_flight,
            }
