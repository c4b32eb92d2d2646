"""``script_job``: a program run as ``python main.py`` inside the sandbox, read back as the
process's status and streams -- what upstream judges that decide on the process see."""

from __future__ import annotations

import pytest

from execlens.bench import script_failure, script_job, script_result
from execlens.engine import Engine

CASES = [
    ("x = 1\n", 0, ""),
    ("assert False\n", 1, "AssertionError"),
    ("import sys\nsys.exit(0)\nassert False\n", 0, ""),
    ("import sys\nsys.exit('0')\n", 1, "0"),  # a string code is printed, status 1
    ("import os\nos._exit(0)\nassert False\n", 0, ""),  # leaves at once, status 0
    ("import os\nos._exit(3)\n", 3, ""),
    # a failure whose traceback goes to /dev/null: status 1, nothing on stderr
    ("import os, sys\nsys.stderr = open(os.devnull, 'w')\nassert False\n", 1, ""),
    ("import os\nos.dup2(os.open(os.devnull, os.O_WRONLY), 2)\nassert False\n", 1, ""),
    ("import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n", -9, ""),
]


@pytest.mark.parametrize(("source", "status", "last_line"), CASES)
def test_the_process_status_and_stderr_are_what_python_main_py_gives(
    engine: Engine, source: str, status: int, last_line: str
) -> None:
    (outcome,) = engine.map([script_job(source, timeout=10)])
    run = script_result(outcome)
    assert run.problem is None and not run.timed_out
    assert run.exit_code == status
    assert run.exited_zero is (status == 0)
    assert run.last_error_line() == last_line
    assert (run.stderr_bytes == 0) is (last_line == "")


def test_a_script_past_its_time_is_killed_with_its_children(engine: Engine) -> None:
    source = (
        "import subprocess, sys, time\n"
        "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
        "time.sleep(60)\n"
    )
    (outcome,) = engine.map([script_job(source, timeout=1)])
    run = script_result(outcome)
    assert run.timed_out and run.exit_code is None and not run.exited_zero


def test_streams_are_capped_and_their_size_kept(engine: Engine) -> None:
    (outcome,) = engine.map(
        [script_job("import sys\nsys.stderr.write('e' * 100000 + '\\nlast\\n')\n", timeout=10)]
    )
    run = script_result(outcome)
    assert run.exit_code == 0 and run.stderr_bytes == 100006
    assert len(run.stderr) <= 8192 and run.last_error_line() == "last"


def test_the_hash_seed_is_fixed(engine: Engine) -> None:
    source = "print(hash('execlens'))\n"
    first, second = engine.map([script_job(source, timeout=10), script_job(source, timeout=10)])
    assert script_result(first).stdout == script_result(second).stdout != ""


def test_script_failure_names_a_timeout_and_a_failed_launcher(engine: Engine) -> None:
    from execlens.engine import Job, Limits
    from execlens.judge import VerdictStatus

    finished, slow = engine.map(
        [script_job("x = 1\n", timeout=10), script_job("while True: pass\n", timeout=1)]
    )
    assert script_failure(script_result(finished), "late") is None  # its status decides
    timed_out = script_failure(script_result(slow), "ran past 1 s")
    assert timed_out is not None and timed_out.status is VerdictStatus.TIMEOUT
    assert timed_out.detail == "ran past 1 s"
    # The launcher itself killed by its own limit: the engine's failure, named as such.
    (killed,) = engine.map(
        [Job(program="def f():\n    while True: pass\n", entry_point="f", limits=Limits(1.0))]
    )
    failed = script_failure(script_result(killed), "late")
    assert failed is not None and failed.status is VerdictStatus.TIMEOUT
    assert failed.reason != "launcher" and not failed.passed
    # A launcher that finished but returned no result to read: the launcher's fault.
    (odd,) = engine.map([Job(program="def f():\n    return 42\n", entry_point="f")])
    unread = script_failure(script_result(odd), "late")
    assert unread is not None and unread.status is VerdictStatus.SANDBOX_ERROR
    assert unread.reason == "launcher"
