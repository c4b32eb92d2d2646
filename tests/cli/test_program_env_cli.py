"""The program environment by default, through the installed ``execlens`` (issue 16).

Every command here runs with ``EXECLENS_PROGRAM_PYTHON`` removed from the environment:
the interpreter programs run under must come from what ``make install`` recorded in the
host venv (``.venv/execlens-program-python`` -> ``.venv-programs/bin/python``, NumPy
1.x).  The headline check: ``execlens trace`` over the whole of REval reproduces its
coverage for all 978 runs, as tests/bench/reval/test_export.py does in-process.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from execlens.bench.reval import load_reval_problems, reval_questions

EXECLENS = Path(sys.executable).parent / "execlens"
RECORDED = Path(sys.prefix) / "execlens-program-python"


def _unset_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k != "EXECLENS_PROGRAM_PYTHON"}


def _execlens(
    *args: str, env: dict[str, str] | None = None, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(EXECLENS), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=_unset_env() if env is None else env,
        check=False,
    )


def _warnings(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("warning:")]


@pytest.fixture(scope="module")
def recorded() -> str:
    """The program interpreter ``make install`` recorded (skip when not installed so)."""
    if not EXECLENS.is_file():
        pytest.skip(f"{EXECLENS} not found: these tests drive the installed command")
    if not RECORDED.is_file():
        pytest.skip(f"{RECORDED} not found: run `make install` (it records .venv-programs)")
    return RECORDED.read_text(encoding="utf-8").strip()


@pytest.fixture(scope="module")
def bare_python(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A venv with no NumPy: a program environment that cannot reproduce REval."""
    dest = tmp_path_factory.mktemp("bare") / "venv"
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", "--without-pip", str(dest)], check=True, timeout=120)
    return str(dest / "bin" / "python")


@pytest.fixture(scope="module")
def reval_dir(data_dir: Path) -> Path:
    path = data_dir / "reval"
    if not (path / "DREval_data.jsonl").is_file():
        pytest.skip(f"REval data not found in {path}")
    return path


def test_doctor_names_the_recorded_interpreter_and_its_numpy(recorded: str) -> None:
    done = _execlens("doctor", "--json")
    assert done.returncode == 0, done.stderr
    program = json.loads(done.stdout)["program"]
    assert program["executable"] == recorded
    assert program["source"] == f"recorded by make install ({RECORDED})"
    assert int(program["packages"]["numpy"].split(".")[0]) == 1
    assert _warnings(done.stderr) == []
    human = _execlens("doctor")
    assert f"program interpreter: {recorded} (from recorded by make install" in human.stdout
    assert "program packages: numpy 1." in human.stdout


def test_doctor_warns_for_a_program_environment_without_numpy(
    recorded: str, bare_python: str
) -> None:
    done = _execlens("doctor", "--program-python", bare_python)
    assert done.returncode == 0, done.stderr  # a warning, not an error
    [warning] = _warnings(done.stderr)
    assert "reval" in warning and "numpy<2 (not installed)" in warning
    assert "error:" not in done.stderr
    assert "(from --program-python;" in done.stdout
    env = {**_unset_env(), "EXECLENS_PROGRAM_PYTHON": bare_python}
    done = _execlens("doctor", "--json", env=env)
    assert json.loads(done.stdout)["program"]["source"] == "$EXECLENS_PROGRAM_PYTHON"
    assert len(_warnings(done.stderr)) == 1


def test_doctor_warns_for_the_host_numpy_2(recorded: str) -> None:
    import numpy

    if int(numpy.__version__.split(".")[0]) < 2:
        pytest.skip("the host has NumPy 1.x: it cannot stand in for the wrong environment")
    # Only the requirement check, not a server: doctor names the environment it inspects.
    from execlens.engine import program_environment_warning

    warning = program_environment_warning({"reval": ("numpy<2",)}, sys.executable)
    assert warning is not None and f"(found {numpy.__version__})" in warning


def test_trace_warns_once_and_refuses_to_resume_under_another_interpreter(
    recorded: str, bare_python: str, reval_dir: Path, tmp_path: Path
) -> None:
    small = tmp_path / "reval"
    small.mkdir()
    rows = (reval_dir / "DREval_data.jsonl").read_text(encoding="utf-8").splitlines()
    (small / "DREval_data.jsonl").write_text(rows[0] + "\n", encoding="utf-8")
    shutil.copy(reval_dir / "DREval_tasks.jsonl", small / "DREval_tasks.jsonl")
    out = tmp_path / "out"
    env = {**_unset_env(), "EXECLENS_PROGRAM_PYTHON": bare_python}
    done = _execlens(
        "trace", str(small), "--out", str(out), "--workers", "1", "--no-progress", env=env
    )
    assert done.returncode == 0, done.stderr
    [warning] = _warnings(done.stderr)
    assert bare_python in warning and "numpy<2 (not installed)" in warning
    # The run directory is keyed by the program environment: the recorded interpreter
    # is another run, refused rather than mixed with the bare venv's traces.
    done = _execlens("trace", str(small), "--out", str(out), "--workers", "1", "--no-progress")
    assert done.returncode != 0
    assert _warnings(done.stderr) == []
    done = _execlens(
        "trace", str(small), "--out", str(out), "--workers", "1", "--no-progress", "--overwrite"
    )
    assert done.returncode == 0, done.stderr
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["identity"]["program"]["executable"] == recorded


@pytest.mark.slow
def test_trace_reproduces_reval_for_all_978_runs_with_the_variable_unset(
    recorded: str, reval_dir: Path, tmp_path: Path
) -> None:
    out = tmp_path / "x"
    done = _execlens(
        "trace", str(reval_dir), "--mode", "reval", "--out", str(out), "--no-progress", timeout=1200
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert _warnings(done.stderr) == [], done.stderr
    rows = {
        (r["task_id"], r["input_idx"]): r
        for r in map(json.loads, (out / "executions.jsonl").open(encoding="utf-8"))
    }
    statuses = [r["status"] for r in rows.values()]
    assert len(rows) == 987
    assert statuses.count("ok") == 978 and statuses.count("skipped") == 9
    # REval's reference coverage (ANCHORS.md §3, tests/bench/reval/test_export.py): of the
    # 3070 questions of runnable problems, 1661 lines are covered (HumanEval 945, ClassEval
    # 716).  The export's lines are 0-indexed, the questions' 1-indexed.
    answered, covered = 0, {"humaneval": 0, "classeval": 0}
    for question in reval_questions(load_reval_problems(reval_dir)):
        if question.question is None:
            continue
        row = rows[(question.problem.task_id, question.pair.input_idx)]
        if row["status"] == "skipped":
            continue
        answered += 1
        covered[question.problem.kind] += (question.question.lineno - 1) in row["coverage"]
    assert answered == 3070
    assert covered == {"humaneval": 945, "classeval": 716}
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["identity"]["program"]["executable"] == recorded
    assert manifest["identity"]["program"]["numpy"].startswith("1.")
