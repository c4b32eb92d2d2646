"""``execlens eval --benchmark coverage-eval`` end to end against a stand-in server.

The client, runner, store, tracer, engine and scorers are real; the server answers each
prompt as the test says.  An oracle (the published annotation) scores 100 % in both
modes; a model that says nothing parseable scores 0 and strict names why; a rerun asks
nothing and writes the same bytes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from execlens.bench import EvalConfig, get_benchmark, run_eval
from execlens.bench.coverage_eval import render_coverage_eval

LIMIT = 4


@pytest.fixture
def caches(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private request cache (never the user's)."""
    monkeypatch.setenv("EXECLENS_CACHE_DIR", str(tmp_path / "request-cache"))
    return tmp_path / "request-cache"


def _config(base_url: str) -> EvalConfig:
    return EvalConfig(
        benchmark="coverage-eval",
        task="coverage",
        model="stand-in",
        base_url=base_url,
        limit=LIMIT,
        retries=0,
    )


def _oracle() -> dict[str, str]:
    bench = get_benchmark("coverage-eval")
    [(_, items)] = bench.plan(bench.load(None), "coverage", limit=LIMIT, offset=0)
    return {render_coverage_eval(item).text: item.coverage for item in items}


def test_an_oracle_scores_everything(tmp_path: Path, caches: Path, answering_model: Any) -> None:
    answers = _oracle()
    with answering_model(lambda prompt: answers[prompt]) as server:
        result = run_eval(_config(server.base_url), tmp_path / "run", show_progress=False)
        first = (tmp_path / "run" / "samples.jsonl").read_bytes()
        again = run_eval(_config(server.base_url), tmp_path / "run", show_progress=False)
    metrics = result.results["metrics"]
    for mode in ("official", "strict"):
        assert metrics[mode]["match"] == metrics[mode]["stmt"] == 100.0, metrics
        assert metrics[mode]["tests"] == LIMIT
    assert result.results["samples"] == LIMIT
    samples = [json.loads(line) for line in first.decode().splitlines()]
    assert [s["prompt"]["user"] for s in samples] == list(answers)  # the official prompt
    assert samples[0]["prompt"]["system"].startswith("You are a terminal.")
    assert (tmp_path / "run" / "samples.jsonl").read_bytes() == first
    assert again.results["metrics"] == metrics


def test_an_answer_without_labels_scores_nothing(
    tmp_path: Path, caches: Path, answering_model: Any
) -> None:
    with answering_model(lambda prompt: "I would need to run the code.") as server:
        result = run_eval(_config(server.base_url), tmp_path / "run", show_progress=False)
    metrics = result.results["metrics"]
    assert metrics["official"]["match"] == metrics["official"]["stmt"] == 0.0
    assert metrics["strict"]["stmt"] == 0.0
    assert result.results["modes"]["strict"]["verdicts"] == {"unparseable:no_labels": LIMIT}
