"""Shared fixtures: the real engine, and the shared benchmark data."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from execlens.engine import Engine

REPO_ROOT = Path(__file__).resolve().parents[1]


def _data_root() -> Path:
    configured = os.environ.get("EXECLENS_TEST_DATA", "../shared/data")
    path = Path(configured)
    return path if path.is_absolute() else (REPO_ROOT / path).resolve()


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """The shared benchmark data (``EXECLENS_TEST_DATA``); skips when absent."""
    root = _data_root()
    if not root.is_dir():
        message = f"benchmark data not found at {root} (set EXECLENS_TEST_DATA)"
        if os.environ.get("EXECLENS_REQUIRE_DATA"):
            pytest.fail(message)  # CI must have it: a skip there would hide real failures
        pytest.skip(message)
    return root


@pytest.fixture(scope="session")
def engine() -> Iterator[Engine]:
    """One engine for the whole test session (2 servers, every available layer)."""
    with Engine(workers=2) as shared:
        yield shared
