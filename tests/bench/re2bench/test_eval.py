"""``execlens eval --benchmark re2bench`` end to end on a made-up checkout: a stand-in
server (the client, runner, engine and judges are real) gives right, wrong and hostile
answers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from execlens.bench import EvalConfig, get_benchmark, run_eval
from execlens.engine import Engine

from ...standin_model import StandInModel, user_message
from .conftest import IO_PROBLEMS


def _run(
    tmp_path: Path, engine: Engine, checkout: Path, task: str, answer: Any
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    bench = get_benchmark("re2bench")
    items = bench.plan(bench.load(str(checkout)), task, limit=None, offset=0)[0][1]
    replies = {bench.render(item, task, "direct").text: answer(item) for item in items}
    with StandInModel(lambda body: replies[user_message(body)]) as server:
        config = EvalConfig(
            benchmark="re2bench",
            task=task,
            model="stand-in",
            base_url=server.base_url,
            data=str(checkout),
            retries=0,
        )
        result = run_eval(config, tmp_path / task, show_progress=False, engine=engine)
    samples = [
        json.loads(line) for line in (tmp_path / task / "samples.jsonl").read_text().splitlines()
    ]
    return result.results, samples


def _labels(samples: list[dict[str, Any]]) -> dict[str, tuple[str, str]]:
    return {
        s["id"].split("/", 1)[1]: (s["generations"][0]["official"], s["generations"][0]["strict"])
        for s in samples
    }


def test_output_prediction_right_prefix_and_hostile(
    tmp_path: Path, engine: Engine, checkout: Path, request_cache: Path
) -> None:
    pwned = tmp_path / "pwned"

    def answer(item: Any) -> str:
        truth = item.output
        if item.problem_id == "sample_7":  # a correct prefix
            value: Any = truth[:1]
        elif item.problem_id == "HumanEval_3":  # hostile: code in a string
            return (
                '[OUTPUT]\n{"output": "__import__(\'pathlib\').Path('
                f"'{pwned}').touch()\"}}\n[/OUTPUT]"
            )
        else:
            value = truth
        return (
            f"[THOUGHT]\nstep by step\n[/THOUGHT]\n[OUTPUT]\n{json.dumps({'output': value})}"
            "\n[/OUTPUT]"
        )

    results, samples = _run(tmp_path, engine, checkout, "output", answer)
    labels = _labels(samples)
    assert labels["sample_7"] == ("passed", "wrong:partial=0.0000")
    assert labels["HumanEval_3"][0].startswith("wrong") and labels["HumanEval_3"][1].startswith(
        "wrong"
    )
    assert labels["ClassEval_5@Counter.bump"] == ("passed", "passed")
    assert labels["proj__proj-1@@text.happy.py@@clean"] == ("passed", "passed")
    assert labels["atcoder_ABC001_A"] == ("passed", "passed")  # Avatar: stdin programs
    assert not pwned.exists()
    metrics = results["metrics"]
    assert metrics["official"]["total_rs"] == round(100 * 5 / 6, 2)
    assert metrics["strict"]["total_rs"] == round(100 * 4 / 6, 2)
    assert metrics["official"]["difficult_rs"] == 100.0
    assert len(samples) == len(IO_PROBLEMS)


def test_loop_and_branch_end_to_end(
    tmp_path: Path, engine: Engine, checkout: Path, request_cache: Path
) -> None:
    loop = (
        "[ANSWER]\n3 for n in nums: [STATE]n=[1, 2, 3][/STATE] "
        "[STATE]out=[[], [2], [2]][/STATE]\n[/ANSWER]"
    )
    results, samples = _run(tmp_path, engine, checkout, "loop", lambda item: loop)
    assert _labels(samples)["sample_7"] == ("passed", "passed")
    branch = "[ANSWER]\n4 if n % 2: ## [BRANCH]taken=[Y, N, maybe, Y][/BRANCH]\n[/ANSWER]"
    results, samples = _run(tmp_path, engine, checkout, "branch", lambda item: branch)
    assert _labels(samples)["sample_7"] == ("passed", "wrong:partial=0.0000")
    assert results["metrics"]["official"]["easy_rs"] == 100.0
