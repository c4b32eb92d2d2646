"""The tracing engine fixture, shared with tests/trace."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from execlens.engine import Engine
from execlens.trace import trace_engine


@pytest.fixture(scope="session")
def tracing_engine() -> Iterator[Engine]:
    """Two fork servers that preload ``execlens.trace._runner``."""
    with trace_engine(workers=2) as engine:
        yield engine
