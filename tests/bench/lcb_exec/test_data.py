"""LiveCodeBench execution loading from a local file, and the hub path without network."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from datetime import datetime
from pathlib import Path

import pytest

from execlens.bench import DatasetUnavailableError
from execlens.bench.lcb_exec import LCBExecSample, load_lcb_exec, render_lcb

# Records shaped like livecodebench/execution-v2 rows (fields of lcb_runner's CodeExecutionProblem).
ROWS = [
    {
        "question_id": "2727",
        "contest_id": "biweekly-contest-104",
        "contest_date": "2023-05-13T00:00:00",
        "difficulty": "easy",
        "function_name": "countSeniors",
        "code": "def countSeniors(details: List[str]) -> int:\n"
        "    return sum(int(d[11:13]) > 60 for d in details)",
        "input": 'countSeniors(details = ["7868190130M7522", "5303914400F9211"])',
        "output": "2",
        "id": "sample_10",
        "problem_id": "2727",
        "numsteps": 553,
    },
    {
        "question_id": "2791",
        "contest_id": "weekly-contest-347",
        "contest_date": "2023-05-28T00:00:00",
        "difficulty": "medium",
        "function_name": "removeTrailingZeros",
        "code": "def removeTrailingZeros(num: str) -> str:\n    return num.rstrip('0')",
        "input": 'removeTrailingZeros(num = "51230100")',
        "output": "'512301'",
        "id": "sample_2",
        "problem_id": "2791",
        "numsteps": 501,
    },
]


def _write(path: Path, rows: list[object]) -> Path:
    path.write_text(
        "\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows), encoding="utf-8"
    )
    return path


def test_loads_typed_records_in_official_order(tmp_path: Path) -> None:
    result = load_lcb_exec(_write(tmp_path / "test.jsonl", ROWS))
    assert result.errors == []
    # lcb_runner sorts by the number in id: sample_2 before sample_10
    assert [s.sample_id for s in result] == ["sample_2", "sample_10"]
    second = result.records[1]
    assert isinstance(second, LCBExecSample)
    assert second.contest_date == datetime(2023, 5, 13)
    assert second.numsteps == 553
    assert second.input == 'countSeniors(details = ["7868190130M7522", "5303914400F9211"])'
    prompt = render_lcb("direct", code=second.code, input=second.input)
    assert second.render("direct") == render_lcb(
        "direct", code=second.code, input=second.input, sample_id="sample_10"
    )
    assert prompt.text.endswith(
        f"[PYTHON]\n{second.code}\nassert {second.input} == ??\n[/PYTHON]\n[ANSWER]\n"
    )
    # a directory with a known file name, and a JSON list, load the same
    assert load_lcb_exec(tmp_path).records == result.records
    (tmp_path / "rows.json").write_text(json.dumps(ROWS), encoding="utf-8")
    assert load_lcb_exec(tmp_path / "rows.json").records == result.records


def test_malformed_records_are_named(tmp_path: Path) -> None:
    bad_date = {**ROWS[0], "id": "sample_3", "contest_date": "last Tuesday"}
    no_steps = {**ROWS[0], "id": "sample_4"}
    del no_steps["numsteps"]
    bool_steps = {**ROWS[0], "id": "sample_5", "numsteps": True}
    millis = {
        **ROWS[1],
        "id": "sample_6",
        "contest_date": 1684972800000,
    }  # a timestamp column exported as ms
    path = _write(
        tmp_path / "test.jsonl", [ROWS[0], bad_date, no_steps, "{oops", bool_steps, millis, ROWS[0]]
    )
    result = load_lcb_exec(path)
    assert [(e.line, e.field) for e in result.errors] == [
        (2, "contest_date"),
        (3, "numsteps"),
        (4, None),
        (5, "numsteps"),
        (7, "id"),
    ]
    assert (
        str(result.errors[0]) == f"{path}:2: field 'contest_date': not an ISO date: 'last Tuesday'"
    )
    assert [s.id for s in result] == ["sample_6", "sample_10"]
    assert result.records[0].contest_date == datetime(2023, 5, 25)


HUB_SCRIPT = textwrap.dedent(
    """
    from execlens.bench import DatasetUnavailableError, benchmark_names, get_benchmark
    for name in benchmark_names():
        try:
            get_benchmark(name).load(None)
        except DatasetUnavailableError as exc:
            print(name, "UNAVAILABLE", exc)
        else:
            print(name, "LOADED")
    """
)


def test_hub_loading_offline_fails_with_a_clear_named_error(tmp_path: Path) -> None:
    # a fresh process, an empty cache and the hub libraries' offline switches: no network
    # is touched; every registered benchmark's default source is tried.
    env = {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
        "HF_HOME": str(tmp_path / "hf"),
        "HF_DATASETS_CACHE": str(tmp_path / "hf" / "datasets"),
    }
    run = subprocess.run(
        [sys.executable, "-c", HUB_SCRIPT], capture_output=True, text=True, env=env, timeout=300
    )
    assert run.returncode == 0, run.stderr
    lines = dict(line.split(" ", 1) for line in run.stdout.strip().splitlines())
    # Benchmarks whose data ships with execlens (licences permitting) load offline;
    # LiveCodeBench's needs the hub, and the runtime benchmark has no default source.
    shipped = {"cruxeval", "reval", "coverage-eval", "codemind"}
    # Benchmarks whose upstream data has no licence: nothing ships, no default source.
    bring_your_own = {"re2bench", "cruxeval-x"}
    assert shipped | bring_your_own | {"lcb-exec", "runtime"} <= set(lines), run.stdout
    hubs = {"lcb-exec": "hf://livecodebench/execution-v2:test"}
    for name, line in lines.items():
        if name in shipped:
            assert line == "LOADED", (name, line)
            continue
        if name in bring_your_own:
            assert line.startswith("UNAVAILABLE cannot load "), line
            assert "has no default source" in line and "--data PATH" in line, line
            continue
        assert line.startswith("UNAVAILABLE cannot load " + hubs.get(name, "")), line
        assert "pass a local copy with --data PATH" in line


def test_missing_local_path_is_a_named_error(tmp_path: Path) -> None:
    with pytest.raises(DatasetUnavailableError, match="no such file or directory"):
        load_lcb_exec(tmp_path / "missing")
    with pytest.raises(DatasetUnavailableError, match="looked for execution-v2.jsonl"):
        load_lcb_exec(tmp_path)
