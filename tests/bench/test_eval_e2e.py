"""End to end against the embedded local model on 127.0.0.1: ``execlens eval``.

Each benchmark/task on a 5-sample slice writes a complete log and report; a second run
asks nothing; a run killed with SIGKILL midway and restarted ends with the same bytes as
one that was never interrupted; ``--limit`` may grow or shrink a run.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
from pathlib import Path

import pytest

from execlens.bench import EvalConfig, EvalError, run_eval
from execlens.models import local_server_missing

from ..cli_helpers import eval_command, interrupt_when

pytestmark = pytest.mark.slow

SLICE = 5


@pytest.fixture(scope="module", autouse=True)
def _local_model() -> None:
    missing = local_server_missing()
    if missing:
        if os.environ.get("EXECLENS_REQUIRE_DATA"):
            pytest.fail(f"the embedded local model is required in CI: {missing}")
        pytest.skip(f"the embedded local model is not installed: {missing}")


@pytest.fixture(scope="module")
def truth_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """REval ground truth, traced once for the whole module."""
    return tmp_path_factory.mktemp("truth")


@pytest.fixture
def cache_dir(tmp_path: Path, truth_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh request cache, so a first run really asks the model."""
    path = tmp_path / "cache"
    monkeypatch.setenv("EXECLENS_CACHE_DIR", str(path))
    monkeypatch.setenv("EXECLENS_TRUTH_CACHE_DIR", str(truth_dir))
    return path


@pytest.fixture(scope="module")
def lcb_data(tmp_path_factory: pytest.TempPathFactory, data_dir: Path) -> Path:
    """LiveCodeBench-format records built from CRUXEval programs.

    The real ``livecodebench/execution-v2`` needs the hub, which tests cannot reach; the
    LCB path (full-call inputs, its prompt, extraction and scorer) is exercised on
    CRUXEval programs rewritten into LCB's record layout.
    """
    rows = []
    with (data_dir / "cruxeval" / "cruxeval.jsonl").open() as handle:
        for i, line in enumerate(handle):
            if i >= SLICE:
                break
            record = json.loads(line)
            rows.append(
                {
                    "question_id": f"q{i}",
                    "contest_id": "c0",
                    "contest_date": "2024-01-01T00:00:00",
                    "difficulty": "easy",
                    "function_name": "f",
                    "code": record["code"],
                    "input": f"f({record['input']})",
                    "output": record["output"],
                    "id": f"sample_{i}",
                    "problem_id": f"p{i}",
                    "numsteps": 10,
                }
            )
    path = tmp_path_factory.mktemp("lcb") / "execution-v2.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def _config(benchmark: str, task: str, data: Path) -> EvalConfig:
    return EvalConfig(
        benchmark=benchmark,
        task=task,
        prompt="direct",
        model="local",
        n=1,
        max_tokens=48,
        temperature=0.0,
        limit=SLICE,
        data=str(data),
    )


def _lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


CASES = [
    ("cruxeval", "output"),
    ("cruxeval", "input"),
    ("lcb-exec", "output"),
    ("reval", "coverage"),
    ("reval", "path"),
    ("reval", "state"),
    ("reval", "output"),
]


@pytest.mark.parametrize("benchmark,task", CASES)
def test_eval_writes_log_and_report_then_replays_from_cache(
    benchmark: str, task: str, tmp_path: Path, cache_dir: Path, data_dir: Path, lcb_data: Path
) -> None:
    data = {"lcb-exec": lcb_data, "reval": data_dir / "reval"}.get(benchmark, data_dir / "cruxeval")
    out = tmp_path / "run"
    first = run_eval(_config(benchmark, task, data), out, show_progress=False)
    assert first.requests == SLICE and first.cache_hits == 0
    samples = _lines(out / "samples.jsonl")
    assert len(samples) == SLICE and len({s["id"] for s in samples}) == SLICE
    for sample in samples:
        for key in ("prompt", "responses", "answers", "official", "strict", "generations"):
            assert key in sample, key
        assert len(sample["responses"]) == 1 and isinstance(sample["responses"][0], str)
    results = json.loads((out / "results.json").read_text())
    assert set(results["metrics"]) == {"official", "strict"}
    headline = task if benchmark == "reval" else "pass@1"
    assert 0.0 <= results["metrics"]["strict"][headline] <= 100.0
    report = (out / "report.html").read_text()
    assert '<svg class="chart"' in report and "Plotly" not in report

    before = {name: (out / name).read_bytes() for name in ("samples.jsonl", "results.json")}
    again = run_eval(_config(benchmark, task, data), out, show_progress=False)
    assert again.requests == 0 and again.samples_resumed == SLICE
    assert again.samples_scored_now == 0
    for name, content in before.items():
        assert (out / name).read_bytes() == content, name
    # Another directory asks again, and the cache answers every request.
    other = run_eval(_config(benchmark, task, data), tmp_path / "other", show_progress=False)
    assert other.requests == 0 and other.cache_hits == SLICE
    assert (tmp_path / "other" / "samples.jsonl").read_bytes() == before["samples.jsonl"]


def test_reval_consistency_scores_all_four_tasks(
    tmp_path: Path, cache_dir: Path, data_dir: Path
) -> None:
    config = _config("reval", "consistency", data_dir / "reval")
    config.limit = 3
    result = run_eval(config, tmp_path / "ic", show_progress=False)
    samples = _lines(tmp_path / "ic" / "samples.jsonl")
    tasks = {s["task"] for s in samples}
    assert tasks == {"coverage", "path", "state", "output"}
    assert sum(1 for s in samples if s["task"] == "state") == 3
    for mode in ("official", "strict"):
        metrics = result.results["metrics"][mode]
        assert {"coverage", "path", "state", "output", "IC"} <= set(metrics)
        assert 0.0 <= metrics["IC"] <= 100.0
    assert any("no_nil_minus1" in name for name in result.results["baselines"])


def test_eval_refuses_to_mix_runs(tmp_path: Path, cache_dir: Path, data_dir: Path) -> None:
    out = tmp_path / "run"
    run_eval(_config("cruxeval", "output", data_dir / "cruxeval"), out, show_progress=False)
    other = _config("cruxeval", "output", data_dir / "cruxeval")
    other.temperature = 0.7
    with pytest.raises(EvalError, match="temperature"):
        run_eval(other, out, show_progress=False)
    # The refused run changed nothing there.
    assert json.loads((out / "manifest.json").read_text())["identity"]["temperature"] == 0.0
    with pytest.raises(EvalError, match="no prompt"):
        run_eval(EvalConfig("cruxeval", "output", prompt="socratic"), out, show_progress=False)


def test_extra_body_reaches_the_server_and_keys_the_cache(
    tmp_path: Path, cache_dir: Path, data_dir: Path
) -> None:
    config = _config("cruxeval", "output", data_dir / "cruxeval")
    config.limit = 2
    config.extra_body = {"top_k": 1}  # llama.cpp's server takes it, like vLLM does
    first = run_eval(config, tmp_path / "a", show_progress=False)
    assert first.requests == 2
    assert first.results["sampling"]["extra_body"] == {"top_k": 1}
    # Other server fields are another request: nothing is served from the first's cache.
    plain = _config("cruxeval", "output", data_dir / "cruxeval")
    plain.limit = 2
    assert run_eval(plain, tmp_path / "b", show_progress=False).requests == 2
    # A run directory keeps its fields: resuming it with others is refused.
    config.extra_body = {"top_k": 5}
    with pytest.raises(EvalError, match="extra_body"):
        run_eval(config, tmp_path / "a", show_progress=False)


def test_cli_rejects_extra_body_that_is_not_a_json_object(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from execlens.cli import app

    for bad, message in (("{top_k: 1}", "not valid JSON"), ("[1]", "JSON object")):
        result = CliRunner().invoke(
            app,
            [
                "eval",
                "--benchmark",
                "cruxeval",
                "--task",
                "output",
                "--extra-body",
                bad,
                "--out",
                str(tmp_path / "x"),
            ],
        )
        assert result.exit_code == 2 and message in result.stderr, result.output
        assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1
    assert not (tmp_path / "x").exists()


def test_limit_may_grow_and_shrink_a_run(tmp_path: Path, cache_dir: Path, data_dir: Path) -> None:
    out = tmp_path / "run"
    config = _config("cruxeval", "output", data_dir / "cruxeval")
    config.limit = 2
    small = run_eval(config, out, show_progress=False)
    assert (small.samples_scored_now, small.results["samples"]) == (2, 2)
    config.limit = 4
    grown = run_eval(config, out, show_progress=False)
    assert (grown.samples_resumed, grown.samples_scored_now, grown.requests) == (2, 2, 2)
    assert [s["id"] for s in _lines(out / "samples.jsonl")] == [f"sample_{i}" for i in range(4)]
    config.limit = 3
    shrunk = run_eval(config, out, show_progress=False)
    assert (shrunk.requests, shrunk.samples_scored_now, shrunk.results["samples"]) == (0, 0, 3)
    assert [s["id"] for s in _lines(out / "samples.jsonl")] == [f"sample_{i}" for i in range(3)]
    # The same slice in a fresh directory: the same bytes.
    fresh = tmp_path / "fresh"
    run_eval(config, fresh, show_progress=False)
    for name in ("samples.jsonl", "results.json"):
        assert (fresh / name).read_bytes() == (out / name).read_bytes(), name


def _cache_rows(cache: Path) -> int:
    database = cache / "requests.sqlite"
    if not database.exists():
        return 0
    try:
        with sqlite3.connect(database, timeout=1) as connection:
            return connection.execute("SELECT COUNT(*) FROM samples").fetchone()[0]
    except sqlite3.Error:
        return 0


def test_eval_killed_with_sigkill_resumes_to_the_same_bytes(
    tmp_path: Path, cache_dir: Path, data_dir: Path
) -> None:
    out = tmp_path / "run"
    command = eval_command(
        data_dir / "cruxeval",
        model="local",
        n=2,
        limit=SLICE,
        extra=("--max-tokens", "48", "--temperature", "0"),
    )
    env = {**os.environ, "EXECLENS_CACHE_DIR": str(cache_dir)}
    victim = subprocess.Popen(
        command + ["--out", str(out)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    killed = interrupt_when(
        victim, lambda: _cache_rows(cache_dir) >= 3, deadline_s=180, group=True, poll_s=0.1
    )
    assert killed, "the run finished before it could be killed"
    victim.wait()
    assert victim.returncode == -signal.SIGKILL
    cached_before = _cache_rows(cache_dir)
    assert 3 <= cached_before < 2 * SLICE
    assert not (out / "results.json").exists()

    resumed = subprocess.run(
        command + ["--out", str(out)], env=env, capture_output=True, text=True, timeout=300
    )
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    samples = _lines(out / "samples.jsonl")
    assert [s["id"] for s in samples] == [f"sample_{i}" for i in range(SLICE)]
    assert all(len(s["responses"]) == 2 for s in samples)
    assert f"{2 * SLICE - cached_before} model requests" in resumed.stdout.replace("\n", " ")
    assert _cache_rows(cache_dir) == 2 * SLICE
    # A run never interrupted (its answers from the same cache) writes the same bytes.
    whole = tmp_path / "whole"
    assert (
        subprocess.run(
            command + ["--out", str(whole)], env=env, capture_output=True, timeout=300
        ).returncode
        == 0
    )
    for name in ("samples.jsonl", "results.json"):
        assert (out / name).read_bytes() == (whole / name).read_bytes(), name
