"""The tracing engine the REval tests trace the dataset on."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from execlens.engine import Engine
from execlens.trace import trace_engine


@pytest.fixture(scope="session")
def tracing_engine() -> Iterator[Engine]:
    """Two fork servers that preload the tracer."""
    with trace_engine(workers=2) as engine:
        yield engine
