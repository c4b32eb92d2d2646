"""The ``execlens run`` and ``execlens doctor`` commands, through the real CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest


def _execlens(
    *args: str, stdin: str | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "execlens", *args],
        capture_output=True,
        text=True,
        input=stdin,
        timeout=120,
        env=env,
    )


@pytest.fixture(scope="module")
def program_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A bare venv's interpreter: a program environment without NumPy."""
    dest = tmp_path_factory.getbasetemp() / "cli-program-venv"
    if not (dest / "bin" / "python").exists():
        base = getattr(sys, "_base_executable", sys.executable)
        subprocess.run([base, "-m", "venv", "--without-pip", str(dest)], check=True, timeout=120)
    return dest / "bin" / "python"


def test_run_json_reports_value_and_output(tmp_path: Path) -> None:
    program = tmp_path / "prog.py"
    program.write_text("def f(a, b):\n    print('adding')\n    return [a + b]\n")
    done = _execlens("run", str(program), "--call", "f(1, 2)", "--json")
    assert done.returncode == 0, done.stderr
    outcome = json.loads(done.stdout.strip().splitlines()[-1])
    assert outcome["status"] == "ok"
    assert outcome["value"] == {
        "__type__": "list",
        "__value__": [{"__type__": "int", "__value__": 3}],
    }
    assert outcome["stdout"] == "adding\n" and outcome["stderr"] == ""
    assert outcome["duration"] >= 0


def test_run_timeout_exits_nonzero(tmp_path: Path) -> None:
    program = tmp_path / "loop.py"
    program.write_text("while True:\n    pass\n")
    done = _execlens("run", str(program), "--timeout", "0.5", "--json")
    assert done.returncode == 1
    assert json.loads(done.stdout)["status"] == "timeout"


def test_run_human_output_and_stdin_program() -> None:
    done = _execlens("run", "-", "--call", "1 / 0", stdin="x = 1\n")
    assert done.returncode == 1
    assert "exception" in done.stdout and "ZeroDivisionError" in done.stdout


def test_doctor_names_every_layer() -> None:
    done = _execlens("doctor", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    names = {layer["name"] for layer in report["layers"]}
    assert {
        "network",
        "filesystem",
        "pid_namespace",
        "unprivileged_uid",
        "process_limit",
        "seccomp",
        "rlimits",
        "clean_env",
        "ipc_namespace",
        "uts_namespace",
        "landlock",
        "cgroup",
    } <= names
    assert report["self_test"] is True
    # How each active layer was had, and how the namespaces were.
    assert report["method"] in ("root", "user namespace", "landlock")
    for layer in report["layers"]:
        assert bool(layer["via"]) == (
            layer["active"] and layer["name"] not in ("clean_env", "reaper")
        )
    if report["method"] != "landlock":  # namespaces: all had the same way
        namespaced = ("network", "ipc_namespace", "uts_namespace", "pid_namespace")
        vias = {layer["via"] for layer in report["layers"] if layer["name"] in namespaced}
        assert vias == {report["method"]}
    # The program interpreter: $EXECLENS_PROGRAM_PYTHON, else the one make install
    # recorded in the host venv, else ours.
    recorded = Path(sys.prefix) / "execlens-program-python"
    expected = os.environ.get("EXECLENS_PROGRAM_PYTHON") or (
        recorded.read_text().strip() if recorded.is_file() else sys.executable
    )
    assert report["program"]["executable"] == expected
    assert set(report["program"]["packages"]) == {"numpy", "pandas"}
    human = _execlens("doctor")
    for name in names:
        assert name in human.stdout
    assert f"namespaces via {report['method']}" in " ".join(human.stdout.split())


def test_run_under_a_program_python(tmp_path: Path, program_python: Path) -> None:
    program = tmp_path / "where.py"
    program.write_text("import sys\ndef f():\n    return sys.prefix\n")
    done = _execlens(
        "run", str(program), "--call", "f()", "--json", "--program-python", str(program_python)
    )
    assert done.returncode == 0, done.stderr
    outcome = json.loads(done.stdout.strip().splitlines()[-1])
    assert outcome["value"] == {"__type__": "str", "__value__": str(program_python.parent.parent)}


def test_doctor_reports_the_program_environment_from_the_variable(program_python: Path) -> None:
    env = {**os.environ, "EXECLENS_PROGRAM_PYTHON": str(program_python)}
    done = _execlens("doctor", "--json", env=env)
    assert done.returncode == 0, done.stderr
    program = json.loads(done.stdout)["program"]
    assert program["executable"] == str(program_python)
    assert program["prefix"] == str(program_python.parent.parent)
    assert program["packages"] == {"numpy": None, "pandas": None}
    human = _execlens("doctor", env=env)
    assert "program interpreter" in human.stdout and "numpy not installed" in human.stdout
