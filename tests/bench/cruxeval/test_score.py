"""Scoring CRUXEval generation files: official numbers, strict beside them, resume, errors."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from execlens.bench import (
    Generations,
    GenerationsError,
    ScoreRunError,
    ScoreRunResult,
    match_generations,
    run_score,
)
from execlens.bench.cruxeval import load_cruxeval_generations, load_cruxeval_problems
from execlens.cli import app
from execlens.engine import Engine

# The official scored files for these generations
# (facebookresearch/cruxeval: samples/evaluation_results/sample_scored_codellama-7b_temp0.2_*.json).
OFFICIAL = {
    "input": (35.94999999999998, 44.991071428571416),
    "output": (34.212500000000006, 40.286706349206355),
}


def _crux(data_dir: Path) -> Path:
    path = data_dir / "cruxeval"
    if not (path / "cruxeval.jsonl").exists():
        pytest.skip(f"CRUXEval data not found under {path}")
    return path


def _generations(data_dir: Path, task: str) -> Path:
    return _crux(data_dir) / f"codellama-7b_temp0.2_{task}_generations.json"


def _subset(
    data_dir: Path, tmp_path: Path, task: str, count: int, name: str | None = None
) -> tuple[Path, Path]:
    """The first ``count`` problems and their generations, as files."""
    records = (_crux(data_dir) / "cruxeval.jsonl").read_text().splitlines()[:count]
    data = tmp_path / "cruxeval.jsonl"
    data.write_text("\n".join(records) + "\n")
    gens = json.loads(_generations(data_dir, task).read_text())
    subset = {f"sample_{i}": gens[f"sample_{i}"] for i in range(count)}
    out = tmp_path / (name or f"{task}_generations.json")
    out.write_text(json.dumps(subset))
    return data, out


def score_run(
    out: Path, items: Sequence[tuple[Any, list[str]]], *, task: str, **options: Any
) -> ScoreRunResult:
    """Score (problem, generations) pairs as CRUXEval ``task`` through the generic runner."""
    return run_score(
        out,
        "cruxeval",
        Generations(task, list(items), context=task, notes={"official_task": task}),
        **options,
    )


def test_output_prediction_reproduces_the_official_numbers(
    data_dir: Path, engine: Engine, tmp_path: Path
) -> None:
    gens_file = _generations(data_dir, "output")
    items = match_generations(
        load_cruxeval_problems(_crux(data_dir)),
        load_cruxeval_generations(gens_file),
        str(gens_file),
    )
    result = score_run(
        tmp_path / "out",
        items,
        task="output",
        engine=engine,
        model="codellama/CodeLlama-7b-hf",
        temperature=0.2,
    )
    modes = result.results["modes"]
    assert (modes["official"]["pass@1"], modes["official"]["pass@5"]) == OFFICIAL["output"]
    # The published numbers are attached beside ours, and ours match them.
    reference = result.results["reference_numbers"]
    assert reference == {
        "pass@1": round(OFFICIAL["output"][0], 2),
        "pass@5": round(OFFICIAL["output"][1], 2),
    }
    assert round(modes["official"]["pass@1"], 2) == reference["pass@1"]
    assert "Code Llama 7B" in result.results["reference_source"]
    saved = json.loads((tmp_path / "out" / "results.json").read_text())
    assert saved["reference_numbers"] == reference and saved["model"] == "codellama/CodeLlama-7b-hf"
    # Code Llama does not exploit the scorer: strict agrees on every generation.
    assert (modes["strict"]["pass@1"], modes["strict"]["pass@5"]) == OFFICIAL["output"]
    assert result.results["differences"]["total"] == 0
    lines = (tmp_path / "out" / "samples.jsonl").read_text().splitlines()
    assert len(lines) == 800
    record = json.loads(lines[0])
    assert set(record) >= {"id", "official", "strict", "generations"}
    assert len(record["strict"]) == len(record["generations"]) == 10


@pytest.mark.slow
def test_input_prediction_reproduces_the_official_numbers(data_dir: Path, tmp_path: Path) -> None:
    gens_file = _generations(data_dir, "input")
    items = match_generations(
        load_cruxeval_problems(_crux(data_dir)),
        load_cruxeval_generations(gens_file),
        str(gens_file),
    )
    with Engine(workers=16) as engine:
        result = score_run(tmp_path / "out", items, task="input", engine=engine)
    modes = result.results["modes"]
    assert (modes["official"]["pass@1"], modes["official"]["pass@5"]) == OFFICIAL["input"]
    assert modes["official"]["verdicts"]["timeout"] == 26
    # Strict differs only where the answer needs a lambda (no literal can express it).
    diff = result.results["differences"]
    assert diff["official_pass_strict_fail"] == {"strict unparseable:operator": 8}
    assert diff["official_fail_strict_pass"] == {}
    assert {e["id"] for e in diff["examples"]["strict unparseable:operator"]} == {"sample_344"}
    assert modes["strict"]["pass@1"] == pytest.approx(35.85)


def _finished_shards(out: Path) -> int:
    from execlens.store import ShardSet

    return len(ShardSet(out, "samples-output").completed()) if out.is_dir() else 0


def test_a_run_killed_with_sigkill_resumes_to_the_same_bytes(
    data_dir: Path, tmp_path: Path
) -> None:
    gens_file = _generations(data_dir, "output")
    command = [
        sys.executable,
        "-m",
        "execlens",
        "score",
        str(gens_file),
        "--data",
        str(_crux(data_dir)),
        "--workers",
        "2",
    ]
    whole = tmp_path / "whole"
    assert (
        subprocess.run(
            command + ["--out", str(whole)], capture_output=True, timeout=300, check=False
        ).returncode
        == 0
    )
    out = tmp_path / "killed"
    process = subprocess.Popen(
        command + ["--out", str(out)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline and _finished_shards(out) < 2:
            time.sleep(0.005)
        os.killpg(process.pid, signal.SIGKILL)
    finally:
        process.wait()
    assert process.returncode == -signal.SIGKILL
    assert not (out / "results.json").exists()
    before = _finished_shards(out)
    assert 1 <= before < 8
    done = subprocess.run(
        command + ["--out", str(out), "--json"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert f"({before * 100} resumed from an earlier run" in done.stderr
    results = json.loads(done.stdout.strip().splitlines()[-1])
    assert (
        results["modes"]["official"]["pass@1"],
        results["modes"]["official"]["pass@5"],
    ) == OFFICIAL["output"]
    for name in ("samples.jsonl", "results.json"):
        assert (out / name).read_bytes() == (whole / name).read_bytes(), name
    ids = [json.loads(line)["id"] for line in (out / "samples.jsonl").read_text().splitlines()]
    assert ids == [f"sample_{i}" for i in range(800)]


def test_a_second_run_into_a_locked_directory_is_refused(data_dir: Path, tmp_path: Path) -> None:
    from execlens.store import RunDir

    data, gens = _subset(data_dir, tmp_path, "output", 4)
    out = tmp_path / "out"
    problems = load_cruxeval_problems(data)
    items = match_generations(problems, load_cruxeval_generations(gens), "")
    identity_holder = RunDir.open(out, {"someone": "else"})
    try:
        with pytest.raises(ScoreRunError, match=str(os.getpid())):
            score_run(out, items, task="output")
        result = CliRunner().invoke(app, ["score", str(gens), "--data", str(data), "-o", str(out)])
        assert result.exit_code == 2
        assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1
    finally:
        identity_holder.close()
    assert not (out / "samples.jsonl").exists()


def test_a_different_run_in_the_same_directory_is_refused(
    data_dir: Path, engine: Engine, tmp_path: Path
) -> None:
    data, gens = _subset(data_dir, tmp_path, "output", 12)
    items = match_generations(load_cruxeval_problems(data), load_cruxeval_generations(gens), "")
    out = tmp_path / "out"
    first = score_run(out, items, task="output", engine=engine)
    assert first.scored_now == 12
    again = score_run(out, items, task="output", engine=engine)
    assert (again.scored_now, again.resumed) == (0, 12)
    assert again.results["modes"] == first.results["modes"]
    with pytest.raises(ScoreRunError, match="generations_sha256"):
        score_run(out, items[:5], task="output", engine=engine)
    redone = score_run(out, items[:5], task="output", engine=engine, overwrite=True)
    assert (redone.scored_now, redone.results["samples"]) == (5, 5)


def test_official_mode_takes_its_task_from_the_path(data_dir: Path, tmp_path: Path) -> None:
    # Output-prediction answers in a file whose path says "input": the official script
    # scores them as input prediction (every answer without "f(" is skipped).
    data, gens = _subset(data_dir, tmp_path, "output", 8, name="my_input_run.json")
    result = CliRunner().invoke(
        app,
        [
            "score",
            str(gens),
            "--task",
            "output",
            "--data",
            str(data),
            "--out",
            str(tmp_path / "o"),
            "--workers",
            "2",
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    results = json.loads(result.stdout.strip().splitlines()[-1])
    assert (results["official_task"], results["task"]) == ("input", "output")
    assert results["modes"]["official"]["verdicts"].get("skipped:filter", 0) > 0
    assert results["modes"]["official"]["pass@1"] < results["modes"]["strict"]["pass@1"]


def test_the_cli_records_who_generated_the_file(data_dir: Path, tmp_path: Path) -> None:
    data, gens = _subset(data_dir, tmp_path, "output", 8)
    result = CliRunner().invoke(
        app,
        [
            "score",
            str(gens),
            "--task",
            "output",
            "--data",
            str(data),
            "--out",
            str(tmp_path / "o"),
            "--workers",
            "2",
            "--model",
            "codellama-7b",
            "--temperature",
            "0.2",
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    results = json.loads(result.stdout.strip().splitlines()[-1])
    assert results["model"] == "codellama-7b" and results["sampling"] == {"temperature": 0.2}
    # 8 of 800 samples: the published full-benchmark figure is named, not compared.
    assert "reference_numbers" not in results
    assert "slice" in results["reference_source"]


def test_bad_generation_files_get_named_errors(data_dir: Path, tmp_path: Path) -> None:
    data, gens = _subset(data_dir, tmp_path, "input", 4)
    problems = load_cruxeval_problems(data)
    partial = {"sample_0": ["f(1)"]}
    with pytest.raises(GenerationsError, match="no generations for 3 of 4"):
        match_generations(problems, partial, "partial.json")
    for content, message in (
        ("[1, 2]", "expected a JSON object"),
        ('{"sample_0": "f(1)"}', "must map to a list"),
        ('{"sample_0": [1]}', "must be a string"),
        ("{not json", "not valid JSON"),
    ):
        bad = tmp_path / "bad_input.json"
        bad.write_text(content)
        with pytest.raises(GenerationsError, match=message):
            load_cruxeval_generations(bad)
        result = CliRunner().invoke(
            app, ["score", str(bad), "--data", str(data), "--out", str(tmp_path / "x")]
        )
        assert result.exit_code == 2 and message in result.output
    # An official scored file is accepted as a generations file.
    scored = tmp_path / "scored_input.json"
    scored.write_text(json.dumps({"raw_generations": json.loads(gens.read_text()), "pass_at_1": 0}))
    assert load_cruxeval_generations(scored) == json.loads(gens.read_text())
