"""``execlens export`` keeps every shipped benchmark's programs out of training data, with
no flag: CRUXEval, REval, CoverageEval and CodeMind ship their data, so a training set
is checked against them by default (``--eval-data`` adds the benchmarks that do not)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from execlens.bench import get_benchmark


def _problem(sample_id: str, code: str) -> str:
    return json.dumps({"id": sample_id, "code": code, "input": "2", "output": "6"})


def test_export_drops_programs_of_every_shipped_benchmark_without_eval_data(tmp_path: Path) -> None:
    shipped = {
        name: get_benchmark(name).eval_programs()
        for name in ("cruxeval", "reval", "coverage-eval", "codemind")
    }
    assert all(programs for programs in shipped.values())
    # One program from each benchmark's own files, reformatted and renamed (the
    # normalisation sees through both), and one new program.
    lines = [_problem("new", "def g(y):\n    return y * 3")]
    for name, programs in shipped.items():
        source = programs[len(programs) // 2]
        lines.append(_problem(name, source.replace("    ", "        ")))
    path = tmp_path / "problems.jsonl"
    path.write_text("\n".join(lines) + "\n")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "execlens",
            "export",
            str(path),
            "--out",
            str(tmp_path / "out"),
            "--kind",
            "output",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "wrote 1 (output 1)" in done.stdout, done.stdout
    assert "dropped 4 whose program matches" in done.stdout, done.stdout


def test_a_synthesis_runs_runtime_tasks_export_to_trainer_rows(tmp_path: Path) -> None:
    """The README's path: real CodeI/O functions -> collect -> runtime-tasks -> assemble
    (``runtime_tasks.jsonl``) -> ``execlens export`` -> TRL and verl rows."""
    import pyarrow.parquet as pq
    import pytest

    pytest.importorskip("reasoning_gym")
    config = tmp_path / "run.yaml"
    config.write_text(
        f"out: {tmp_path / 'run'}\nworkers: 2\n"
        "sources:\n"
        "  - package: reasoning_gym/data/codeio.jsonl.gz\n"
        "    name: codeio\n"
        "    columns: {refcode: code_sample, problem_description: task_description,\n"
        "              io_requirements: input_output_spec, input_generator: input_generator}\n"
        "    limit: 3\n"
        "stages: [collect, runtime-tasks, assemble]\n"
    )
    run = subprocess.run(
        [sys.executable, "-m", "execlens", "synth", "run", str(config)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    rows = (tmp_path / "run" / "runtime_tasks.jsonl").read_text().splitlines()
    assert rows
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "execlens",
            "export",
            str(tmp_path / "run" / "runtime_tasks.jsonl"),
            "--out",
            str(tmp_path / "data"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "from synthesized runtime tasks" in done.stdout
    written = pq.read_table(tmp_path / "data" / "verl.parquet").num_rows
    assert 0 < written <= len(rows)
    assert f"wrote {written} " in done.stdout
