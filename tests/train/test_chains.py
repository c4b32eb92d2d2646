"""``execlens train chains``: teacher chains from the embedded model's real server, judged,
the accepted ones kept as SFT rows, acceptance counted per task kind."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from execlens.models import LocalModelServer
from execlens.rewards import Task, export_tasks, score

PROGRAMS = [
    "def f(x):\n    return x\n",
    "def f(x):\n    return x + 1\n",
    "def f(s):\n    return s + 'a'\n",
]


def _tasks() -> list[Task]:
    out = [
        Task("output", PROGRAMS[0], "3", call="f(3)", id="o0"),
        Task("output", PROGRAMS[1], "5", call="f(4)", id="o1"),
        Task("output", PROGRAMS[2], "'ba'", call="f('b')", id="o2"),
    ]
    inp = [Task("input", PROGRAMS[0], "3", id="i0"), Task("input", PROGRAMS[1], "5", id="i1")]
    return out + inp


def _check_exit(result: subprocess.CompletedProcess[str], stats: dict) -> None:
    """Exit 0 with chains kept; a run that kept none (the tiny embedded model at 64
    tokens may write none that passes) ends with exit 2 and one ``error:`` line naming
    the count and the stats file -- never an empty success."""
    if stats["accepted"]:
        assert result.returncode == 0, result.stderr[-3000:]
        return
    assert result.returncode == 2, result.stderr[-3000:]
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "0 of 10 chains accepted" in errors[0], result.stderr
    assert "chains.stats.json" in errors[0]
    assert "Traceback" not in result.stderr


@pytest.mark.slow
def test_chains_cli_against_the_embedded_server(
    local_server: LocalModelServer, tmp_path: Path
) -> None:
    tasks = _tasks()
    export_tasks(tasks, tmp_path / "export", formats=["trl"])
    served = local_server.start().client_config()
    config = {
        "kind": "chains",
        "model": served.model,
        "base_url": served.base_url,
        "data": "export",
        "output_dir": "chains",
        "samples": 2,
        "temperature": 0.8,
        "max_tokens": 64,
    }
    (tmp_path / "chains.json").write_text(json.dumps(config))
    env = {**os.environ, "EXECLENS_CACHE_DIR": str(tmp_path / "cache")}
    result = subprocess.run(
        [sys.executable, "-m", "execlens", "train", "chains", str(tmp_path / "chains.json")],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )
    stats = json.loads((tmp_path / "chains" / "chains.stats.json").read_text())
    _check_exit(result, stats)
    # Every task was asked `samples` times, counted under its kind.
    assert stats["sampled"] == {"output": 6, "input": 4}
    assert stats["failed_requests"] == 0
    rows = [
        json.loads(line) for line in (tmp_path / "chains" / "chains.jsonl").read_text().splitlines()
    ]
    assert len(rows) == sum(stats["accepted"].values())
    for kind, rate in stats["acceptance"].items():
        assert rate == stats["accepted"].get(kind, 0) / stats["sampled"][kind]
        assert f"  {kind}: {stats['accepted'].get(kind, 0)}/{stats['sampled'][kind]}" in (
            result.stdout
        )
    by_id = {t.id: t for t in tasks}
    for row in rows:
        # SFT-ready: the task's question, then the teacher's chain -- which really passes.
        assert [m["role"] for m in row["messages"]] == ["system", "user", "assistant"]
        assert score(by_id[row["task_id"]], row["messages"][-1]["content"]).passed
    # A rerun asks nothing again: every sample comes from the request cache.
    again = subprocess.run(
        [sys.executable, "-m", "execlens", "train", "chains", str(tmp_path / "chains.json")],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )
    _check_exit(again, stats)
    assert json.loads((tmp_path / "chains" / "chains.stats.json").read_text()) == stats
