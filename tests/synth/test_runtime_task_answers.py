"""Issue 17's teaching loop, per question kind: what ``runtime-tasks`` trains is what the
rewards pay for and what the runtime benchmark reads.

The real ``runtime-tasks`` stage runs on a few CRUXEval programs (each rewritten as a
CodeI/O ``main_solution`` with keyword inputs, as ``collect`` hands them on); for every
kind, each synthesized assistant turn gets the maximum reward from the TRL adapter and
from verl's ``compute_score`` against the record's own ``ground_truth``, and the runtime
benchmark's extraction reads from it the answer the judge accepts.
"""

from __future__ import annotations

import ast
import json
import os
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from execlens.bench import get_benchmark
from execlens.judge import judge_task
from execlens.rewards import ExeclensReward, Shaping, Task, compute_score
from execlens.synth import StageContext, SynthConfig
from execlens.synth.stages._runtime_tasks import RuntimeTasksStage
from execlens.values import parse_call

KINDS = ("coverage", "path", "state", "output", "input", "trace")
DATA = Path(os.environ.get("EXECLENS_TEST_DATA", Path(__file__).parents[3] / "shared" / "data"))


def _collected(limit: int = 6) -> list[dict[str, Any]]:
    """CRUXEval programs as ``collect`` records: ``f`` renamed ``main_solution``, each
    input given as keyword arguments."""
    path = DATA / "cruxeval" / "cruxeval.jsonl"
    if not path.exists():
        pytest.skip(f"no CRUXEval data at {path}")
    records = []
    for line in path.read_text().splitlines():
        row = json.loads(line)
        tree = ast.parse(row["code"])
        function = tree.body[0]
        if len(tree.body) != 1 or not isinstance(function, ast.FunctionDef):
            continue
        names = [a.arg for a in function.args.args]
        if function.args.vararg or function.args.kwarg or "f(" in row["code"].split(":", 1)[1]:
            continue  # recursion or *args: not a plain keyword call once renamed
        call = parse_call(f"f({row['input']})")
        if len(call.args) != len(names) or call.kwargs:
            continue
        given = dict(zip(names, call.args))
        if not all(isinstance(v, (int, str, list, dict, bool)) for v in given.values()):
            continue  # CodeI/O inputs are JSON values
        records.append(
            {
                "id": row["id"],
                "refcode": row["code"].replace("def f(", "def main_solution(", 1),
                "pairs": [{"input": given, "output": None}],
            }
        )
        if len(records) == limit:
            break
    return records


@pytest.fixture(scope="module")
def synthesized() -> dict[str, list[dict[str, Any]]]:
    config = SynthConfig.model_validate(
        {
            "out": "unused",
            "sources": [{"path": str(DATA / "cruxeval" / "cruxeval.jsonl")}],
            "stages": ["collect", "runtime-tasks"],
            "runtime_tasks": {
                "kinds": list(KINDS),
                "pairs_per_function": 1,
                "max_tasks_per_pair": 2,
            },
        }
    )
    stage = RuntimeTasksStage(StageContext(config))
    records = list(stage.run(_collected(), 0, 1))
    by_kind: dict[str, list[dict[str, Any]]] = {kind: [] for kind in KINDS}
    for record in records:
        by_kind[record["kind"]].append(record)
    return by_kind


@pytest.mark.parametrize("kind", KINDS)
def test_a_synthesized_answer_earns_the_maximum_reward_and_the_benchmark_reads_it(
    synthesized: dict[str, list[dict[str, Any]]], kind: str
) -> None:
    records = synthesized[kind]
    assert records, f"no {kind} task was synthesized"
    benchmark = get_benchmark("runtime")
    best = Shaping().correct
    truths = [r["ground_truth"] for r in records]
    answers = [r["messages"][-1]["content"] for r in records]
    assert all(a.startswith("[ANSWER]") and a.endswith("[/ANSWER]") for a in answers)
    trl = ExeclensReward()(prompts=["?"] * len(records), completions=answers, ground_truth=truths)
    assert trl == [best] * len(records), list(zip(answers, trl))
    for truth, answer in zip(truths, answers):
        assert compute_score("execlens", answer, truth)["score"] == best, answer
        task = Task.from_json(truth)
        extracted = benchmark.extract(answer, SimpleNamespace(kind=kind), kind, "cot", "")
        assert not extracted.failure, (answer, extracted)
        assert judge_task(task, extracted.text).passed, (answer, extracted.text)


@pytest.mark.parametrize("kind", KINDS)
def test_the_sft_prompt_is_the_grpo_prompt(
    synthesized: dict[str, list[dict[str, Any]]], kind: str
) -> None:
    """One wording: a record's user turn is its kind's prompt of its ground truth, the
    user turn the rewards' TRL/verl exports carry (``render_messages``)."""
    from execlens.rewards import render_messages, tasks_from_runtime
    from execlens.tasks.kinds import task_prompt

    for record in synthesized[kind]:
        task = Task.from_json(record["ground_truth"])
        user = record["messages"][0]["content"]
        assert user == task_prompt(task) == render_messages(task)[1]["content"]
        if kind != "input":  # input prediction is exported from problems, not traces
            assert render_messages(tasks_from_runtime(task))[1]["content"] == user
