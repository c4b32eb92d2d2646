"""Bad input to the program environment by default (issue 16): a recorded interpreter
that is gone (``.venv-programs`` deleted after ``make install``) is exit 2 and one
``error:`` line naming the record, from every verb that starts programs, never a silent
fall back to the host's NumPy 2 and never a traceback.

The "host venv" is a real second prefix: a venv whose ``sys.prefix`` holds its own
``execlens-program-python`` and which imports this checkout's execlens and the test
venv's packages through a ``.pth`` file.
"""

from __future__ import annotations

import os
import shutil
import site
import subprocess
import sys
from pathlib import Path

import pytest

import execlens


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A venv with the record under test and this venv's packages on its path."""
    dest = tmp_path_factory.mktemp("host") / "venv"
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", "--without-pip", str(dest)], check=True, timeout=120)
    [site_dir] = (dest / "lib").glob("python3*/site-packages")
    paths = [str(Path(execlens.__file__).resolve().parents[1]), *site.getsitepackages()]
    (site_dir / "host-packages.pth").write_text("\n".join(paths) + "\n", encoding="utf-8")
    return dest


def _execlens(host: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "EXECLENS_PROGRAM_PYTHON"}
    return subprocess.run(
        [str(host / "bin" / "python"), "-m", "execlens", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )


def _assert_usage_error(done: subprocess.CompletedProcess[str], *needles: str) -> None:
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    assert "Traceback" not in done.stderr and "Traceback" not in done.stdout
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("error: "), lines[0]
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])


@pytest.fixture
def gone(host: Path, tmp_path: Path) -> str:
    """Record an interpreter that does not exist."""
    missing = str(tmp_path / "deleted-programs" / "bin" / "python")
    (host / "execlens-program-python").write_text(missing + "\n", encoding="utf-8")
    return missing


def test_run_with_a_recorded_interpreter_that_is_gone(
    host: Path, gone: str, tmp_path: Path
) -> None:
    program = tmp_path / "p.py"
    program.write_text("def f():\n    return 1\n")
    _assert_usage_error(
        _execlens(host, "run", str(program), "--call", "f()"),
        "recorded by make install",
        str(host / "execlens-program-python"),
        gone,
    )


def test_doctor_with_a_recorded_interpreter_that_is_gone(host: Path, gone: str) -> None:
    _assert_usage_error(_execlens(host, "doctor"), "recorded by make install", gone)


def test_trace_with_a_recorded_interpreter_that_is_gone(
    host: Path, gone: str, data_dir: Path, tmp_path: Path
) -> None:
    reval = data_dir / "reval"
    if not (reval / "DREval_data.jsonl").is_file():
        pytest.skip(f"REval data not found in {reval}")
    small = tmp_path / "reval"
    small.mkdir()
    first = (reval / "DREval_data.jsonl").read_text(encoding="utf-8").splitlines()[0]
    (small / "DREval_data.jsonl").write_text(first + "\n", encoding="utf-8")
    shutil.copy(reval / "DREval_tasks.jsonl", small / "DREval_tasks.jsonl")
    _assert_usage_error(
        _execlens(host, "trace", str(small), "--out", str(tmp_path / "o"), "--no-progress"),
        "recorded by make install",
        gone,
    )


def test_the_flag_still_overrides_a_broken_record(host: Path, gone: str, tmp_path: Path) -> None:
    programs = tmp_path / "programs"
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", "--without-pip", str(programs)], check=True, timeout=120)
    program = tmp_path / "p.py"
    program.write_text("import sys\ndef f():\n    return sys.prefix\n")
    done = _execlens(
        host,
        "run",
        str(program),
        "--call",
        "f()",
        "--json",
        "--program-python",
        str(programs / "bin" / "python"),
    )
    assert done.returncode == 0, done.stderr
    assert str(programs) in done.stdout
