"""A benchmark folder's own question kinds (issue 24): declared as plug-ins (the
``execlens.question_kinds`` entry points in ``pyproject.toml``), so any process finds them
without importing the folder first -- a fresh interpreter, a judge worker -- after the
built-in six, with scope ``given`` (never built from a trace, never asked by the runtime
benchmark); the folder's strict mode is the core's task scorer."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import tomllib
from functools import partial
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import pytest

from execlens.engine import Engine
from execlens.judge import JudgePool, judge_task
from execlens.tasks import Task

ROOT = Path(__file__).resolve().parents[2]
ADDED = ["re2bench_output", "re2bench_input", "re2bench_loop", "re2bench_branch"]
FOLDERS = ("execlens.bench.re2bench", "execlens.bench.codemind")

PROBE = """
import json, sys
from execlens.tasks.kinds import kind_names
folders = ("execlens.bench.re2bench", "execlens.bench.codemind")
imported_before = [m for m in folders if m in sys.modules]
before = kind_names()
from execlens.bench import get_benchmark
from execlens.bench.runtime import BENCHMARK as runtime
from execlens.judge import TaskScorer
import execlens.bench.re2bench, execlens.bench.codemind
from execlens.tasks.kinds import get_kind
after = kind_names()
strict = {
    "re2bench": get_benchmark("re2bench").scorers("input", "direct", None)["strict"],
    "codemind": get_benchmark("codemind").scorers("sr", "direct", None)["strict"],
}
print(json.dumps({
    "imported_before": imported_before,
    "before": before,
    "after": after,
    "scopes": {name: get_kind(name).scope for name in after[6:]},
    "runtime_tasks": sorted(runtime.tasks),
    "strict": {k: type(s.inner).__name__ for k, s in strict.items()},
    "core": all(isinstance(s.inner, TaskScorer) for s in strict.values()),
}))
"""


def _env() -> dict[str, str]:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")]),
    }
    env.pop("EXECLENS_PLUGINS", None)
    return env


def _fresh(code: str, *args: str) -> Any:
    """The last stdout line of ``code`` run in a fresh interpreter, as JSON."""
    done = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=300, env=_env()
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_folders_kinds_are_declared_and_installed_as_plug_ins() -> None:
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["entry-points"][
        "execlens.question_kinds"
    ]
    assert sorted(declared.values()) == sorted(FOLDERS)
    installed = {entry.name: entry.value for entry in entry_points(group="execlens.question_kinds")}
    # Entry points are read from the installed metadata: a stale install lacks them.
    assert installed.items() >= declared.items(), (
        "the installed execlens metadata lacks the question-kind entry points: "
        "reinstall it (pip install --no-deps -e .)"
    )


def test_a_fresh_process_knows_the_folders_kinds_without_importing_them() -> None:
    found = _fresh(PROBE)
    assert found["imported_before"] == []
    built_in = ["coverage", "path", "state", "output", "input", "trace"]
    assert found["before"][:6] == built_in
    assert set(found["before"][6:]) == {*ADDED, "codemind_sr"}
    assert found["after"] == found["before"]  # importing the folders adds nothing
    assert set(found["scopes"].values()) == {"given"}
    assert not set(found["runtime_tasks"]) & {*ADDED, "codemind_sr"}
    assert found["core"] and found["strict"] == {"re2bench": "TaskScorer", "codemind": "TaskScorer"}


# A re2bench output task and a codemind SR task, each with a right and a wrong answer.
CASES = [
    (
        {
            "kind": "re2bench_output",
            "program": "def f(x):\n    return [x, x]\n",
            "reference": [2, 2],
            "function": "f",
            "id": "re2",
        },
        ['[OUTPUT]{"output": [2, 2]}[/OUTPUT]', '[OUTPUT]{"output": [2, "2"]}[/OUTPUT]'],
    ),
    (
        {
            "kind": "codemind_sr",
            "program": "def add(a, b):\n    return a + b\n",
            "reference": "def check(candidate):\n    assert candidate(2, 3) == 5\n",
            "function": "add",
            "id": "sr",
        },
        # The program itself (judge_task takes the answer as read: no fence to take off).
        ["def add(a, b):\n    return a + b\n", "def add(a, b):\n    return a - b\n"],
    ),
]

JUDGE_FRESH = """
import json, sys
from execlens.tasks import Task
from execlens.judge import judge_task
cases = json.loads(sys.argv[1])
imported = [m for m in ("execlens.bench.re2bench", "execlens.bench.codemind") if m in sys.modules]
verdicts = [
    [judge_task(Task(**fields), answer).to_dict() for answer in answers]
    for fields, answers in cases
]
print(json.dumps({"imported_before": imported, "verdicts": verdicts}))
"""

WORKER = textwrap.dedent(
    """
    import sys
    from execlens.judge import judge_task

    FOLDERS = ("execlens.bench.re2bench", "execlens.bench.codemind")

    def judge_pairs(get_engine, shard):
        imported = [m for m in FOLDERS if m in sys.modules]
        return imported, [judge_task(task, answer, engine=get_engine()) for task, answer in shard]
    """
)


def _in_process(engine: Any) -> list[list[dict[str, Any]]]:
    import execlens.bench.codemind
    import execlens.bench.re2bench  # noqa: F401 - the folders as an eval run has them

    return [
        [judge_task(Task(**fields), answer, engine=engine).to_dict() for answer in answers]
        for fields, answers in CASES
    ]


def test_a_fresh_process_judges_folder_kinds_as_the_folder_does(engine: Any) -> None:
    expected = _in_process(engine)
    assert [[v["passed"] for v in row] for row in expected] == [[True, False], [True, False]]
    found = _fresh(JUDGE_FRESH, json.dumps(CASES))
    assert found["imported_before"] == []
    assert found["verdicts"] == expected


def test_a_judge_worker_judges_folder_kinds_as_the_folder_does(
    engine: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = _in_process(engine)
    (tmp_path / "folder_kind_probe.py").write_text(WORKER)
    monkeypatch.syspath_prepend(str(tmp_path))
    import folder_kind_probe

    shard = [(Task(**fields), answer) for fields, answers in CASES for answer in answers]
    env = {"EXECLENS_JUDGE_WORKERS": "0"}
    with JudgePool(1, partial(Engine, workers=1), env=env) as pool:
        [(imported, verdicts)] = pool.map(folder_kind_probe.judge_pairs, [shard])
    assert imported == []  # the worker had not imported the folders: the kinds found them
    assert [v.to_dict() for v in verdicts] == [v for row in expected for v in row]
