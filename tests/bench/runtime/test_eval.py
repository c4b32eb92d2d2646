"""``execlens eval --benchmark runtime`` end to end against a stand-in model server.

An oracle model (it answers every prompt with the truth, read from the plan) must score
100 % on every kind -- prompts, extraction and judges agree; an always-YES model must
score exactly its own baseline, 50 % on coverage; a rerun asks nothing and writes the
same bytes.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from execlens.bench import EvalConfig, get_benchmark, run_eval

from ._oracle import truth_answer

LIMIT = 8


def _config(data: Path, base_url: str, task: str = "all", limit: int = LIMIT) -> EvalConfig:
    return EvalConfig(
        benchmark="runtime",
        task=task,
        model="fake-model",
        base_url=base_url,
        n=1,
        temperature=0.0,
        max_tokens=64,
        limit=limit,
        data=str(data),
        retries=0,
    )


def _oracle(data: Path) -> dict[str, str]:
    bench = get_benchmark("runtime")
    answers = {}
    for _, items in bench.plan(bench.load(str(data)), "all", limit=LIMIT, offset=0):
        for item in items:
            answer = truth_answer(item)
            if answer is not None:
                answers[bench.render(item, item.kind, "direct").text] = answer
    return answers


def test_an_oracle_model_scores_every_kind_perfectly(
    tmp_path: Path, cruxeval_file: Path, caches: Path, answering_model: Any
) -> None:
    answers = _oracle(cruxeval_file)
    with answering_model(lambda prompt: f"{answers.get(prompt, '?')}\n[/ANSWER]") as server:
        result = run_eval(
            _config(cruxeval_file, server.base_url), tmp_path / "run", show_progress=False
        )
    metrics = result.results["metrics"]["strict"]
    for kind in ("coverage", "path", "state", "output", "input"):
        assert metrics[kind] == 100.0, (kind, metrics)
    assert metrics["coverage f1"] == 100.0
    # No published scorer exists: official is the same judge, and never differs.
    assert result.results["metrics"]["official"] == metrics
    assert result.results["differences"]["total"] == 0
    samples = [
        json.loads(line) for line in (tmp_path / "run" / "samples.jsonl").read_text().splitlines()
    ]
    assert {s["task"] for s in samples} == {"coverage", "path", "state", "output", "input"}
    assert len(samples) == result.results["samples"] == len(answers)


def test_an_always_yes_model_scores_its_baseline_and_half_on_coverage(
    tmp_path: Path, cruxeval_file: Path, caches: Path, answering_model: Any
) -> None:
    with answering_model(lambda prompt: "[ANSWER]\nYES\n[/ANSWER]") as server:
        result = run_eval(
            _config(cruxeval_file, server.base_url, "coverage", limit=40),
            tmp_path / "run",
            show_progress=False,
        )
    results = result.results
    strict = results["metrics"]["strict"]
    assert strict["accuracy"] == 50.0  # balanced selection: YES is right half the time
    assert strict["recall"] == 100.0 and strict["precision"] == 50.0
    baselines = results["baselines"]
    assert baselines["always YES / -1 / Nil / None"] == strict == results["metrics"]["official"]
    assert baselines["always NO / -1 / Nil / None"]["accuracy"] == 50.0
    assert results["samples"] >= 10


def test_a_rerun_asks_nothing_and_writes_the_same_bytes(
    tmp_path: Path, cruxeval_file: Path, caches: Path, answering_model: Any
) -> None:
    with answering_model(lambda prompt: "[ANSWER]\nNil\n[/ANSWER]") as server:
        config = _config(cruxeval_file, server.base_url, "state")
        first = run_eval(config, tmp_path / "run", show_progress=False)
        before = {
            name: (tmp_path / "run" / name).read_bytes()
            for name in ("samples.jsonl", "results.json")
        }
        second = run_eval(config, tmp_path / "run", show_progress=False)
        asked = server.requests
    assert first.samples_scored_now > 0 and second.samples_scored_now == 0
    assert asked == first.requests
    assert before == {name: (tmp_path / "run" / name).read_bytes() for name in before}
    # Nil is exactly the constant baseline's answer.
    assert (
        first.results["metrics"]["strict"]["accuracy"]
        == first.results["baselines"]["always Nil"]["accuracy"]
    )


def test_the_cli_runs_end_to_end(
    tmp_path: Path, cruxeval_file: Path, caches: Path, answering_model: Any
) -> None:
    with answering_model(lambda prompt: "[ANSWER]\nNO\n[/ANSWER]") as server:
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "execlens",
                "eval",
                "--benchmark",
                "runtime",
                "--task",
                "all",
                "--data",
                str(cruxeval_file),
                "--model",
                "fake-model",
                "--base-url",
                server.base_url,
                "--limit",
                "5",
                "--out",
                str(tmp_path / "run"),
            ],
            capture_output=True,
            text=True,
            timeout=300,
            env={**os.environ, "COLUMNS": "250"},
        )  # a wide table: labels unabridged
    print(done.stdout)
    assert done.returncode == 0, done.stderr
    # Piped, the run still shows that it moves: plain lines instead of bars.
    assert "generating: " in done.stdout and "scoring: " in done.stdout
    results = json.loads((tmp_path / "run" / "results.json").read_text())
    assert results["benchmark"] == "runtime" and results["metrics"]["strict"]["coverage"] == 50.0
    assert "always NO / -1 / Nil / None" in done.stdout  # the baselines are in the summary
    assert (
        "baseline: always YES / -1 / Nil / None" in (tmp_path / "run" / "report.html").read_text()
    )


@pytest.mark.slow
def test_the_embedded_model_runs_end_to_end(
    tmp_path: Path, cruxeval_file: Path, caches: Path
) -> None:
    """``execlens eval --benchmark runtime --model local --limit 5``: the real embedded
    model (its llama-cpp-python server), whatever it answers."""
    from execlens.models import local_server_missing

    missing = local_server_missing()
    if missing:
        pytest.skip(f"the embedded local model is not installed: {missing}")
    config = EvalConfig(
        benchmark="runtime", task="all", model="local", limit=5, data=str(cruxeval_file)
    )
    result = run_eval(config, tmp_path / "run", show_progress=False)
    assert result.results["samples"] > 0 and result.requests > 0
    assert set(result.results["metrics"]["strict"]) >= {"coverage", "output", "input"}


def _cli(data: Path, base_url: str, out: Path) -> list[str]:
    return [
        sys.executable,
        "-m",
        "execlens",
        "eval",
        "--benchmark",
        "runtime",
        "--task",
        "all",
        "--data",
        str(data),
        "--model",
        "fake-model",
        "--base-url",
        base_url,
        "--limit",
        "12",
        "--out",
        str(out),
        "--concurrency",
        "1",
    ]


def test_a_run_killed_midway_resumes_to_the_same_bytes(
    tmp_path: Path,
    cruxeval_file: Path,
    caches: Path,
    answering_model: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """SIGKILL during generation, rerun: the same files as a run never interrupted."""
    answer = "[ANSWER]\nYES\n[/ANSWER]"
    with answering_model(lambda prompt: answer) as server:
        whole = subprocess.run(
            _cli(cruxeval_file, server.base_url, tmp_path / "whole"),
            capture_output=True,
            text=True,
            timeout=300,
        )
    assert whole.returncode == 0, whole.stderr
    monkeypatch.setenv("EXECLENS_CACHE_DIR", str(tmp_path / "second-cache"))  # ask again
    with answering_model(lambda prompt: answer, delay=0.05) as slow:
        process = subprocess.Popen(
            _cli(cruxeval_file, slow.base_url, tmp_path / "killed"),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 120
        while slow.requests < 10 and time.monotonic() < deadline:
            time.sleep(0.02)
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
        assert slow.requests >= 10 and not (tmp_path / "killed" / "results.json").exists()
        rerun = subprocess.run(
            _cli(cruxeval_file, slow.base_url, tmp_path / "killed"),
            capture_output=True,
            text=True,
            timeout=300,
        )
    assert rerun.returncode == 0, rerun.stderr
    for name in ("samples.jsonl", "results.json"):
        assert (tmp_path / "killed" / name).read_bytes() == (
            tmp_path / "whole" / name
        ).read_bytes(), name


def test_a_generations_file_is_scored_like_an_eval(
    tmp_path: Path, cruxeval_file: Path, caches: Path
) -> None:
    from execlens.bench import GenerationsError, run_score

    bench = get_benchmark("runtime")
    [(_, items)] = bench.plan(bench.load(str(cruxeval_file)), "coverage", limit=30, offset=0)
    answers = {item.sample_id: ["YES", "[ANSWER]\nNO\n[/ANSWER]"] for item in items}
    path = tmp_path / "generations.json"
    path.write_text(json.dumps(answers))
    generations = bench.read_generations(path, str(cruxeval_file), "coverage")
    assert len(generations.items) == len(items)
    result = run_score(tmp_path / "scored", bench, generations, generations_file=str(path))
    # One YES and one NO per question: exactly half right, whatever the truth.
    assert result.results["metrics"]["strict"]["accuracy"] == 50.0
    samples = [
        json.loads(x) for x in (tmp_path / "scored" / "samples.jsonl").read_text().splitlines()
    ]
    # The texts were read as eval reads a reply: the bare answer as itself, the block's
    # answer extracted.
    assert {tuple(s["answers"]) for s in samples} == {("YES", "NO")}
    path.write_text(json.dumps({"nope#0@L1": ["YES"]}))
    with pytest.raises(GenerationsError, match="not coverage questions"):
        bench.read_generations(path, str(cruxeval_file), "coverage")


def test_the_score_verb_scores_a_generations_file(
    tmp_path: Path, cruxeval_file: Path, caches: Path
) -> None:
    bench = get_benchmark("runtime")
    [(_, items)] = bench.plan(bench.load(str(cruxeval_file)), "state", limit=10, offset=0)
    path = tmp_path / "answers.json"
    path.write_text(json.dumps({item.sample_id: ["Nil"] for item in items}))
    command = [
        sys.executable,
        "-m",
        "execlens",
        "score",
        str(path),
        "--benchmark",
        "runtime",
        "--data",
        str(cruxeval_file),
        "--out",
        str(tmp_path / "scored"),
        "--json",
    ]
    done = subprocess.run(
        [*command, "--task", "state"], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    results = json.loads(done.stdout.splitlines()[-1])
    assert results["samples"] == len(items)
    assert results["metrics"]["strict"] == results["baselines"]["always Nil"]
    missing = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert missing.returncode != 0 and "needs --task" in missing.stderr
