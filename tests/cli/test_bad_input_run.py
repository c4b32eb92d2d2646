"""Bad-input suite for ``execlens run`` (issue 9, items 3, 8 and 9).

One named test per ordinary mistake.  Each asserts exit code 2, exactly one ``error:``
line on stderr that names the fix, nothing on stdout and no traceback: the mistake is
caught before any sandbox starts.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from execlens.engine import MAX_OUTPUT_BYTES


def _execlens(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "execlens", *args], capture_output=True, text=True, timeout=120
    )


def _assert_usage_error(done: subprocess.CompletedProcess[str], *needles: str) -> str:
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    assert "Traceback" not in done.stderr and "Traceback" not in done.stdout
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("error: "), lines[0]
    assert done.stdout == ""
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    return lines[0]


@pytest.fixture
def program(tmp_path: Path) -> Path:
    path = tmp_path / "prog.py"
    path.write_text("def f(x):\n    return x + 1\n")
    return path


def test_run_missing_file(tmp_path: Path) -> None:
    missing = tmp_path / "missing.py"
    _assert_usage_error(_execlens("run", str(missing)), str(missing), "does not exist")


def test_run_directory_instead_of_file(tmp_path: Path) -> None:
    _assert_usage_error(_execlens("run", str(tmp_path)), "is a directory")


def test_run_non_utf8_file(tmp_path: Path) -> None:
    latin = tmp_path / "latin1.py"
    latin.write_bytes("name = 'caf\xe9'\n".encode("latin-1"))
    _assert_usage_error(_execlens("run", str(latin)), "not UTF-8", "0xe9", "save it as UTF-8")


def test_run_timeout_zero(program: Path) -> None:
    _assert_usage_error(_execlens("run", str(program), "--timeout", "0"), "--timeout", "> 0")


def test_run_timeout_negative(program: Path) -> None:
    _assert_usage_error(_execlens("run", str(program), "--timeout", "-2"), "--timeout")


def test_run_timeout_inf(program: Path) -> None:
    # Used to kill the engine's worker thread (a non-JSON float) and hang forever.
    _assert_usage_error(
        _execlens("run", str(program), "--timeout", "inf"), "--timeout", "finite", "86400"
    )


def test_run_timeout_nan(program: Path) -> None:
    _assert_usage_error(_execlens("run", str(program), "--timeout", "nan"), "--timeout", "finite")


def test_run_negative_memory(program: Path) -> None:
    _assert_usage_error(_execlens("run", str(program), "--memory", "-5"), "--memory", ">= 16")


def test_run_missing_stdin_file(program: Path, tmp_path: Path) -> None:
    missing = tmp_path / "input.txt"
    _assert_usage_error(
        _execlens("run", str(program), "--stdin", str(missing)),
        "--stdin",
        str(missing),
        "does not exist",
    )


def test_run_bogus_isolation(program: Path) -> None:
    _assert_usage_error(
        _execlens("run", str(program), "--isolation", "bogus"),
        "--isolation",
        "full, auto, degraded, none",
        "bogus",
    )


def test_run_bogus_isolation_environment(program: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The mode every verb takes from the environment when none is given."""
    monkeypatch.setenv("EXECLENS_ISOLATION", "bogus")
    _assert_usage_error(
        _execlens("run", str(program)),
        "EXECLENS_ISOLATION",
        "full, auto, degraded, none",
        "bogus",
    )


def test_run_output_limit_beyond_the_result_frame(program: Path) -> None:
    # Used to end `crashed` with all output lost once the program printed 64 MiB.
    _assert_usage_error(
        _execlens("run", str(program), "--output-limit", "200000000"),
        "--output-limit",
        str(MAX_OUTPUT_BYTES),
    )


def test_run_negative_output_limit(program: Path) -> None:
    _assert_usage_error(_execlens("run", str(program), "--output-limit", "-1"), "--output-limit")


def test_run_missing_program_python(program: Path, tmp_path: Path) -> None:
    missing = tmp_path / "no-venv" / "bin" / "python"
    _assert_usage_error(
        _execlens("run", str(program), "--program-python", str(missing)),
        "--program-python",
        "does not exist",
        "interpreter",
    )


def test_run_program_python_not_executable(program: Path) -> None:
    _assert_usage_error(
        _execlens("run", str(program), "--program-python", str(program)),
        "--program-python",
        "not an executable",
    )


def test_run_hash_seed_out_of_range(program: Path) -> None:
    _assert_usage_error(_execlens("run", str(program), "--hash-seed", "-1"), "--hash-seed")


def test_run_mount_ro_missing_path(program: Path, tmp_path: Path) -> None:
    missing = tmp_path / "no-such-data"
    _assert_usage_error(
        _execlens("run", str(program), "--mount-ro", str(missing)),
        "--mount-ro",
        str(missing),
        "does not exist",
        "give an existing",
    )


def test_run_mount_ro_over_the_sandboxs_own_proc(program: Path) -> None:
    _assert_usage_error(
        _execlens("run", str(program), "--mount-ro", "/proc"),
        "--mount-ro",
        "/proc",
        "give a directory below it",
    )
