"""Helpers for the store's tests: real child processes that hold or write a run."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest


def start_child(source: str, *args: str) -> subprocess.Popen[str]:
    """A Python child running ``source``; it prints ``ready`` once it holds the run."""
    return subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(source), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_ready(child: subprocess.Popen[str]) -> None:
    """Block until the child printed ``ready`` (fails with its stderr if it died)."""
    assert child.stdout is not None
    line = child.stdout.readline()
    if line.strip() != "ready":
        child.kill()
        _, err = child.communicate()
        pytest.fail(f"child did not start: {line!r} {err}")


@pytest.fixture
def run_path(tmp_path: Path) -> Path:
    """A not-yet-existing run directory."""
    return tmp_path / "run"
