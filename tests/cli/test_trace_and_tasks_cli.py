"""The ``trace`` and ``tasks build`` verbs, run through the real CLI."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from execlens.cli import app


def _small_reval(data_dir: Path, tmp_path: Path) -> Path:
    source = data_dir / "reval" / "DREval_data.jsonl"
    if not source.is_file():
        pytest.skip("REval data not found")
    rows = source.read_text(encoding="utf-8").splitlines()
    small = tmp_path / "reval"
    small.mkdir()
    # Two HumanEval problems and the first gensim one (reported as skipped).
    picked = [rows[0], rows[1]] + [r for r in rows if '"DREval/117"' in r]
    (small / "DREval_data.jsonl").write_text("\n".join(picked) + "\n", encoding="utf-8")
    tasks = data_dir / "reval" / "DREval_tasks.jsonl"
    shutil.copy(tasks, small / "DREval_tasks.jsonl")
    return small


def test_trace_verb_writes_jetbrains_layout(data_dir: Path, tmp_path: Path) -> None:
    small = _small_reval(data_dir, tmp_path)
    result = CliRunner().invoke(
        app,
        [
            "trace",
            str(small),
            "--mode",
            "reval",
            "--out",
            str(tmp_path / "out"),
            "--workers",
            "1",
            "--no-progress",
        ],
    )
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in (tmp_path / "out" / "executions.jsonl").open()]
    assert [r["status"] for r in rows].count("ok") == 11
    assert [r["status"] for r in rows].count("skipped") == 4
    assert "gensim" in result.output


def test_trace_verb_rejects_bad_mode(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app, ["trace", str(tmp_path), "--mode", "fast", "--out", str(tmp_path / "o")]
    )
    assert result.exit_code != 0
    assert "exact, frame-blind (reval = frame-blind)" in " ".join(result.output.split())


def test_reval_is_an_alias_of_frame_blind_in_the_api() -> None:
    from execlens.trace import MODES, TraceRequest, canonical_mode

    assert MODES == ("exact", "frame-blind") and canonical_mode("reval") == "frame-blind"
    assert TraceRequest(program="x = 1", call="None", mode="reval").mode == "frame-blind"


def test_tasks_build_verb(data_dir: Path, tmp_path: Path) -> None:
    small = _small_reval(data_dir, tmp_path)
    out = tmp_path / "tasks.jsonl"
    result = CliRunner().invoke(
        app,
        [
            "tasks",
            "build",
            str(small),
            "--out",
            str(out),
            "--selection",
            "given",
            "--mode",
            "reval",
            "--workers",
            "1",
        ],
    )
    assert result.exit_code == 0, result.output
    tasks = [json.loads(line) for line in out.open()]
    kinds = {t["kind"] for t in tasks}
    assert kinds == {"coverage", "path", "state", "output"}
    assert all(t["mode"] == "frame-blind" for t in tasks)  # reval: its alias
    missing = CliRunner().invoke(
        app, ["tasks", "build", str(tmp_path / "nope.jsonl"), "--out", str(out)]
    )
    assert missing.exit_code == 2 and "no such file" in " ".join(missing.output.split())


# --- SIGKILL and rerun: the real CLI process, killed mid-run, resumes byte-identically.

EXECLENS = str(Path(sys.executable).with_name("execlens"))


def _kill_when(args: list[str], markers: Path, at_least: int) -> bool:
    """Start the CLI, SIGKILL it once ``markers`` holds ``at_least`` files; killed?"""
    child = subprocess.Popen([EXECLENS, *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while child.poll() is None and time.monotonic() < deadline:
        if markers.is_dir() and len(list(markers.glob("*.json"))) >= at_least:
            child.send_signal(signal.SIGKILL)
            break
        time.sleep(0.005)
    child.communicate(timeout=120)
    return child.returncode == -signal.SIGKILL


def _complete(args: list[str]) -> str:
    done = subprocess.run([EXECLENS, *args], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stderr


def test_tasks_build_sigkill_and_rerun_is_byte_identical(data_dir: Path, tmp_path: Path) -> None:
    source = data_dir / "cruxeval" / "cruxeval.jsonl"
    if not source.is_file():
        pytest.skip("CRUXEval data not found")
    common = [
        "tasks",
        "build",
        str(source),
        "--limit",
        "160",
        "--selection",
        "balanced",
        "--workers",
        "2",
        "--no-progress",
    ]
    _complete([*common, "-o", str(tmp_path / "reference.jsonl")])

    out = tmp_path / "killed.jsonl"
    markers = tmp_path / ".killed.jsonl.run" / ".done" / "traces"
    assert _kill_when([*common, "-o", str(out)], markers, 1)
    first = len(list(markers.glob("*.json")))
    assert not out.exists()  # killed before the tasks were written
    assert _kill_when([*common, "-o", str(out)], markers, first + 1)
    summary = _complete([*common, "-o", str(out)])
    assert out.read_bytes() == (tmp_path / "reference.jsonl").read_bytes()
    assert "from 160 runs" in summary


def test_trace_sigkill_and_rerun_is_byte_identical(data_dir: Path, tmp_path: Path) -> None:
    source = data_dir / "reval"
    if not (source / "DREval_data.jsonl").is_file():
        pytest.skip("REval data not found")
    small = tmp_path / "reval"
    small.mkdir()
    rows = (source / "DREval_data.jsonl").read_text(encoding="utf-8").splitlines()
    picked = rows[:12] + rows[90:94]  # HumanEval and ClassEval problems that run fast
    (small / "DREval_data.jsonl").write_text("\n".join(picked) + "\n", encoding="utf-8")
    shutil.copy(source / "DREval_tasks.jsonl", small / "DREval_tasks.jsonl")
    common = ["trace", str(small), "--mode", "reval", "--workers", "2", "--no-progress"]
    _complete([*common, "-o", str(tmp_path / "reference")])

    out = tmp_path / "killed"
    assert _kill_when([*common, "-o", str(out)], out / ".done" / "traces", 1)
    assert not (out / "executions.jsonl").exists()
    _complete([*common, "-o", str(out)])
    for name in ("executions.jsonl", "states.jsonl"):
        assert (out / name).read_bytes() == (tmp_path / "reference" / name).read_bytes()


def test_second_run_into_the_same_out_is_refused_naming_the_pid(
    data_dir: Path, tmp_path: Path
) -> None:
    source = data_dir / "cruxeval" / "cruxeval.jsonl"
    if not source.is_file():
        pytest.skip("CRUXEval data not found")
    out = tmp_path / "tasks.jsonl"
    args = [
        "tasks",
        "build",
        str(source),
        "--limit",
        "400",
        "--workers",
        "1",
        "--no-progress",
        "-o",
        str(out),
    ]
    first = subprocess.Popen(
        [EXECLENS, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        markers = tmp_path / ".tasks.jsonl.run" / ".done" / "traces"
        deadline = time.monotonic() + 60
        while not (markers.is_dir() and any(markers.iterdir())):
            assert first.poll() is None and time.monotonic() < deadline
            time.sleep(0.01)
        second = subprocess.run([EXECLENS, *args], capture_output=True, text=True, timeout=60)
        assert second.returncode == 2
        assert second.stderr.startswith("error: ") and second.stderr.count("\n") == 1
        assert f"pid {first.pid}" in second.stderr
    finally:
        first.kill()
        first.communicate()
