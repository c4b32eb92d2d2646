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


@pytest.fixture(scope="session")
def reval_reference() -> None:
    """Skips where REval's reference numbers cannot be reproduced: NumPy 2.

    Several REval programs call NumPy 1.x APIs (``np.mat``, removed in 2.0), so under
    NumPy 2 they raise and every count derived from them moves.  The project pins
    NumPy < 2 wherever wheels exist (Python 3.11/3.12); 3.13 only has NumPy 2.
    """
    # The programs' NumPy is the program environment's ($EXECLENS_PROGRAM_PYTHON), not
    # necessarily the host's: ask the interpreter the engine will run them under.
    import subprocess

    from execlens.engine import resolve_program_python

    python = resolve_program_python()
    done = subprocess.run(
        [python, "-c", "from importlib.metadata import version; print(version('numpy'))"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    numpy_version = done.stdout.strip() or "not installed"
    if not numpy_version[:1].isdigit() or int(numpy_version.split(".")[0]) >= 2:
        pytest.skip(f"REval's programs need NumPy < 2 (np.mat...); {python} has {numpy_version}")
