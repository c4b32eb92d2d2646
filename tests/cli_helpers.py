"""Running ``execlens`` as a user does, for the tests that drive the command line: the
command in a subprocess, the one-``error:``-line check, an ``eval`` command line, and
interrupting a run once it has got somewhere (SIGINT as Ctrl-C, SIGKILL as a crash).

Shared by the bad-input suite (tests/cli/) and the eval runs' kill-and-resume tests
(tests/bench/), which used to carry a copy each.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path

__all__ = [
    "assert_one_error_line",
    "eval_command",
    "execlens_command",
    "interrupt_when",
    "run_execlens",
]


def execlens_command(*args: str) -> list[str]:
    """``execlens ARGS`` as this interpreter runs it (``python -m execlens``)."""
    return [sys.executable, "-m", "execlens", *args]


def run_execlens(
    *args: str,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float = 300,
) -> subprocess.CompletedProcess[str]:
    """``execlens ARGS`` run to its end, its streams captured as text."""
    return subprocess.run(
        execlens_command(*args),
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd,
        env=None if env is None else dict(env),
    )


def assert_one_error_line(
    done: subprocess.CompletedProcess[str], *needles: str, code: int = 2
) -> str:
    """``done`` exited ``code`` with exactly one ``error:`` line on stderr holding every
    needle, and no traceback anywhere; returns that line."""
    assert done.returncode == code, (done.returncode, done.stdout, done.stderr)
    assert "Traceback" not in done.stderr and "Traceback" not in (done.stdout or "")
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("error: "), lines[0]
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    return lines[0]


def eval_command(
    data: Path,
    *,
    model: str,
    limit: int,
    n: int = 1,
    base_url: str | None = None,
    benchmark: str = "cruxeval",
    task: str = "output",
    extra: tuple[str, ...] = (),
) -> list[str]:
    """The ``execlens eval`` command line of a CRUXEval-style run (no ``--out``)."""
    args = ["eval", "--benchmark", benchmark, "--task", task, "--model", model]
    if base_url is not None:
        args += ["--base-url", base_url]
    args += ["--n", str(n), "--limit", str(limit), "--data", str(data), *extra]
    return execlens_command(*args)


def interrupt_when(
    process: subprocess.Popen[str] | subprocess.Popen[bytes],
    ready: Callable[[], bool],
    *,
    deadline_s: float,
    sig: signal.Signals = signal.SIGKILL,
    group: bool = False,
    poll_s: float = 0.02,
) -> bool:
    """Wait until ``ready()`` (or the process ends, or ``deadline_s`` passes), then send
    ``sig`` to the process (its whole session when ``group``: it was started with
    ``start_new_session=True``).  Returns whether the process was still running when
    signalled -- a test asserts it, or the run ended before it could be interrupted."""
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline and process.poll() is None and not ready():
        time.sleep(poll_s)
    running = process.poll() is None
    if running:
        if group:
            os.killpg(process.pid, sig)
        else:
            process.send_signal(sig)
    return running
