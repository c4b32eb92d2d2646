"""The run directory lock: one live holder, taken over when the holder is killed."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from execlens.store import RunDir, RunLockedError

from .conftest import start_child, wait_ready

HOLDER = """
import sys, time
from execlens.store import RunDir
with RunDir.open(sys.argv[1], {"job": "hold"}):
    print("ready", flush=True)
    time.sleep(60)
"""


def test_second_process_is_refused_naming_the_holders_pid(run_path: Path) -> None:
    child = start_child(HOLDER, str(run_path))
    try:
        wait_ready(child)
        with pytest.raises(RunLockedError) as caught:
            RunDir.open(run_path, {"job": "hold"})
        assert caught.value.pid == child.pid
        assert f"pid {child.pid}" in str(caught.value)
        assert str(run_path) in str(caught.value)
        assert "\n" not in str(caught.value)
    finally:
        child.kill()
        child.communicate()


def test_a_sigkilled_holders_lock_is_taken_over(run_path: Path) -> None:
    child = start_child(HOLDER, str(run_path))
    wait_ready(child)
    child.send_signal(signal.SIGKILL)
    child.communicate()
    assert child.returncode == -signal.SIGKILL
    with RunDir.open(run_path, {"job": "hold"}) as run:
        assert run.manifest.identity == {"job": "hold"}
        assert (run_path / ".lock").read_text().strip().isdigit()


def test_second_open_in_the_same_process_is_refused_until_closed(run_path: Path) -> None:
    first = RunDir.open(run_path, {"job": 1})
    with pytest.raises(RunLockedError):
        RunDir.open(run_path, {"job": 1})
    first.close()
    with RunDir.open(run_path, {"job": 1}):
        pass
