"""``execlens eval`` against a stand-in model server: failures, retries, kills, --limit.

The runner, the client, the request cache, the store and the scorers are all real; only
the model server is a stand-in (tests/bench/conftest.py), so these run in seconds.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest

from execlens.bench import EvalConfig, ModelRequestsFailed, run_eval
from execlens.bench.cruxeval import load_cruxeval
from execlens.store import ShardSet

from ..cli_helpers import eval_command, interrupt_when


def _config(data_dir: Path, base_url: str, limit: int = 5, n: int = 2) -> EvalConfig:
    return EvalConfig(
        benchmark="cruxeval",
        task="output",
        model="fake-model",
        base_url=base_url,
        n=n,
        temperature=0.0,
        max_tokens=32,
        limit=limit,
        data=str(data_dir / "cruxeval"),
        retries=0,
    )


def _ids(path: Path) -> list[str]:
    return [json.loads(line)["id"] for line in path.read_text().splitlines()]


def test_a_run_writes_its_log_results_and_report(
    tmp_path: Path, data_dir: Path, fake_model: Any, request_cache: Path
) -> None:
    out = tmp_path / "run"
    result = run_eval(_config(data_dir, fake_model.base_url), out, show_progress=False)
    assert (result.requests, result.samples_scored_now) == (5, 5)
    samples = [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]
    assert [s["id"] for s in samples] == [f"sample_{i}" for i in range(5)]
    assert all(s["answers"] == ["'abc'", "'abc'"] and len(s["strict"]) == 2 for s in samples)
    results = json.loads((out / "results.json").read_text())
    assert results["metrics"]["strict"] == {"pass@1": 0.0}  # n = 2: no pass@5 headline
    assert "pass@5" in results["modes"]["official"] and results["flags"]
    assert '<svg class="chart"' in (out / "report.html").read_text()


def test_a_server_that_is_down_fails_the_run_and_a_rerun_asks_exactly_the_failures(
    tmp_path: Path,
    data_dir: Path,
    request_cache: Path,
    model_server: Any,
    down_port: int,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A server that dies after the health check: without the check, a down server is one.
    monkeypatch.setenv("EXECLENS_NO_HEALTH_CHECK", "1")
    out = tmp_path / "run"
    port = down_port
    down = _config(data_dir, f"http://127.0.0.1:{port}/v1")
    with pytest.raises(ModelRequestsFailed, match="5 of 5 samples got no answer"):
        run_eval(down, out, show_progress=False)
    assert not (out / "samples.jsonl").exists() and not (out / "results.json").exists()
    manifest = (out / "manifest.json").read_bytes()

    # Back up, but failing one sample's request: the other four are kept.
    code3 = load_cruxeval(data_dir / "cruxeval").records[3].code
    with model_server(port, fail=lambda body: code3 in body["messages"][-1]["content"]) as flaky:
        with pytest.raises(ModelRequestsFailed, match="1 of 5 samples") as failed:
            run_eval(down, out, show_progress=False)
        assert "4 kept" in str(failed.value) and flaky.requests == 5
    assert not (out / "results.json").exists()
    assert (out / "manifest.json").read_bytes() == manifest  # never rewritten

    with model_server(port) as healthy:
        done = run_eval(down, out, show_progress=False)
        assert healthy.requests == 1  # exactly the one that failed
    assert (done.samples_resumed, done.samples_scored_now) == (4, 1)
    assert _ids(out / "samples.jsonl") == [f"sample_{i}" for i in range(5)]
    assert json.loads((out / "results.json").read_text())["samples"] == 5


def test_the_cli_exits_nonzero_with_one_error_line_when_the_server_is_down(
    tmp_path: Path,
    data_dir: Path,
    request_cache: Path,
    down_port: int,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from typer.testing import CliRunner

    from execlens.cli import app

    # Down from the start: the health check says so before anything is written.
    arguments = [
        "eval",
        "--benchmark",
        "cruxeval",
        "--task",
        "output",
        "--model",
        "m",
        "--base-url",
        f"http://127.0.0.1:{down_port}/v1",
        "--limit",
        "2",
        "--n",
        "1",
        "--retries",
        "0",
        "--data",
        str(data_dir / "cruxeval"),
        "-o",
        str(tmp_path / "o"),
    ]
    result = CliRunner().invoke(app, arguments)
    assert result.exit_code == 2 and not (tmp_path / "o").exists()
    assert result.stderr.startswith("error: cannot connect to")
    assert result.stderr.count("\n") == 1 and "is the server running" in result.stderr
    # Down after the check (skipped here): the requests fail, nothing is recorded.
    monkeypatch.setenv("EXECLENS_NO_HEALTH_CHECK", "1")
    result = CliRunner().invoke(
        app,
        [
            "eval",
            "--benchmark",
            "cruxeval",
            "--task",
            "output",
            "--model",
            "m",
            "--base-url",
            f"http://127.0.0.1:{down_port}/v1",
            "--limit",
            "2",
            "--n",
            "1",
            "--retries",
            "0",
            "--data",
            str(data_dir / "cruxeval"),
            "-o",
            str(tmp_path / "o"),
        ],
    )
    assert result.exit_code == 1
    assert result.stderr.startswith("error: 2 of 2 samples got no answer")
    assert result.stderr.count("\n") == 1 and "rerun" in result.stderr


def test_eval_killed_with_sigkill_mid_run_resumes_to_the_same_bytes(
    tmp_path: Path, data_dir: Path, request_cache: Path, model_server: Any
) -> None:
    limit = 250  # three shards of 100
    with model_server(delay=0.002) as server:
        command = eval_command(
            data_dir / "cruxeval",
            model="fake-model",
            base_url=server.base_url,
            limit=limit,
            extra=("--temperature", "0", "--workers", "2"),
        )
        env = {**os.environ, "EXECLENS_CACHE_DIR": str(request_cache)}
        out = tmp_path / "killed"
        victim = subprocess.Popen(
            command + ["-o", str(out)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        shards = ShardSet(out, "samples-output")
        interrupt_when(
            victim,
            lambda: out.is_dir() and bool(shards.completed()),
            deadline_s=120,
            group=True,
            poll_s=0.005,
        )
        victim.wait()
        assert victim.returncode == -signal.SIGKILL
        assert not (out / "results.json").exists()
        finished = len(shards.completed())
        assert 1 <= finished < 3
        asked_before = server.requests
        resumed = subprocess.run(
            command + ["-o", str(out)], env=env, capture_output=True, text=True, timeout=300
        )
        assert resumed.returncode == 0, resumed.stderr
        assert f"{finished * 100} resumed" in resumed.stdout.replace("\n", " ")
        # Finished shards were not asked again; the rest came from the server or cache.
        assert server.requests - asked_before <= limit - finished * 100
        whole = tmp_path / "whole"
        assert (
            subprocess.run(
                command + ["-o", str(whole)], env=env, capture_output=True, timeout=300
            ).returncode
            == 0
        )
    for name in ("samples.jsonl", "results.json"):
        assert (out / name).read_bytes() == (whole / name).read_bytes(), name
    assert _ids(out / "samples.jsonl") == [f"sample_{i}" for i in range(limit)]


def test_limit_may_grow_and_shrink_a_run(
    tmp_path: Path, data_dir: Path, fake_model: Any, request_cache: Path
) -> None:
    out = tmp_path / "run"
    config = _config(data_dir, fake_model.base_url, limit=2)
    small = run_eval(config, out, show_progress=False)
    assert (small.samples_scored_now, small.results["samples"]) == (2, 2)
    # The isolation the verdicts were computed under, in results.json and the manifest.
    manifest = json.loads((out / "manifest.json").read_text())
    assert small.results["isolation"] == manifest["environment"]["isolation"]
    assert small.results["isolation"]["layers"]["pid_namespace"] != "missing"
    config.limit = 4
    grown = run_eval(config, out, show_progress=False)
    assert (grown.samples_resumed, grown.samples_scored_now, grown.requests) == (2, 2, 2)
    assert _ids(out / "samples.jsonl") == [f"sample_{i}" for i in range(4)]
    config.limit = 3
    shrunk = run_eval(config, out, show_progress=False)
    assert (shrunk.requests, shrunk.samples_scored_now, shrunk.results["samples"]) == (0, 0, 3)
    assert _ids(out / "samples.jsonl") == [f"sample_{i}" for i in range(3)]
    config.offset, config.limit = 1, 2  # another slice of the same run
    assert _ids(run_eval(config, out, show_progress=False).out_dir / "samples.jsonl") == [
        "sample_1",
        "sample_2",
    ]
    # The same slice in a fresh directory: the same bytes.
    fresh = tmp_path / "fresh"
    run_eval(config, fresh, show_progress=False)
    for name in ("samples.jsonl", "results.json"):
        assert (fresh / name).read_bytes() == (out / name).read_bytes(), name
