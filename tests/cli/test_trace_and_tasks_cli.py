"""The ``trace`` and ``tasks build`` verbs, run through the real CLI."""

from __future__ import annotations

import json
import shutil
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
    result = CliRunner().invoke(app, ["trace", str(small), "--mode", "reval", "--out",
                                      str(tmp_path / "out"), "--workers", "1",
                                      "--no-progress"])
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in (tmp_path / "out" / "executions.jsonl").open()]
    assert [r["status"] for r in rows].count("ok") == 11
    assert [r["status"] for r in rows].count("skipped") == 4
    assert "gensim" in result.output


def test_trace_verb_rejects_bad_mode(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["trace", str(tmp_path), "--mode", "fast", "--out",
                                      str(tmp_path / "o")])
    assert result.exit_code != 0


def test_tasks_build_verb(data_dir: Path, tmp_path: Path) -> None:
    small = _small_reval(data_dir, tmp_path)
    out = tmp_path / "tasks.jsonl"
    result = CliRunner().invoke(app, ["tasks", "build", str(small), "--out", str(out),
                                      "--selection", "given", "--mode", "reval",
                                      "--workers", "1"])
    assert result.exit_code == 0, result.output
    tasks = [json.loads(line) for line in out.open()]
    kinds = {t["kind"] for t in tasks}
    assert kinds == {"coverage", "path", "state", "output"}
    assert all(t["mode"] == "reval" for t in tasks)
    missing = CliRunner().invoke(app, ["tasks", "build", str(tmp_path / "nope.jsonl"),
                                       "--out", str(out)])
    assert missing.exit_code == 2 and "no such file" in " ".join(missing.output.split())
