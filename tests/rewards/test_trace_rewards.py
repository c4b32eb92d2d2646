"""Full-trace rewards through the TRL and verl adapters: exact traces pay 1, wrong ones
their step credit under the ``steps`` shaping (0 under binary), unparseable ones nothing;
the answer is read from the final part only."""

from __future__ import annotations

from typing import Any

import pytest

from execlens.engine import Engine
from execlens.rewards import (
    ExeclensReward,
    Shaping,
    Task,
    render_messages,
    tasks_from_runtime,
)
from execlens.rewards.verl_reward import compute_score
from execlens.tasks import RuntimeProgram, build_tasks

PROGRAM = (
    "def f(n):\n    total = 0\n    for i in range(n):\n        if i % 2:\n"
    "            total += i\n    return total\n"
)


@pytest.fixture(scope="module")
def truth(engine: Engine) -> str:
    [built] = build_tasks(
        [RuntimeProgram("test", "p", 0, PROGRAM, call="f(3)")], engine=engine, kinds=("trace",)
    )
    return tasks_from_runtime(built).to_json()


def _trl(fn: Any, completions: list[str], truth: str) -> list[float | None]:
    return fn(
        prompts=["p"] * len(completions),
        completions=completions,
        completion_ids=[[1]] * len(completions),
        ground_truth=[truth] * len(completions),
        trainer_state=None,
    )


def test_trl_binary_and_step_credit(truth: str) -> None:
    reference = Task.from_json(truth).reference
    assert reference == [2, 3, 4, 3, 4, 5, 3, 4, 3, 6]
    exact = f"Walking through it.\n[ANSWER]{reference}[/ANSWER]"
    half = "[ANSWER][2, 3, 4, 3, 4, 6][/ANSWER]"  # 5 of 10 steps right, then wrong
    padded = "[ANSWER][2, 3, 4, 3, 4, 6, 3, 6, 3, 6, 3, 6, 3, 6][/ANSWER]"
    garbage = "[ANSWER]lines two and three[/ANSWER]"
    thought_only = "<think>[ANSWER][2, 3, 4, 3, 4, 5, 3, 6][/ANSWER]</think>\n\nno idea"
    batch = [exact, half, padded, garbage, thought_only]
    assert _trl(ExeclensReward(), batch, truth) == [1.0, 0.0, 0.0, 0.0, 0.0]
    steps = _trl(ExeclensReward(shaping=Shaping.named("steps")), batch, truth)
    assert steps[0] == 1.0 and steps[1] == pytest.approx(0.5)
    assert steps[2] < steps[1]  # padding a wrong answer lowers its credit
    assert steps[3:] == [0.0, 0.0]  # unparseable; the thought is never scored
    negative = _trl(ExeclensReward(shaping=Shaping(wrong=-1.0, step_credit=True)), batch, truth)
    assert negative[1] == pytest.approx(0.0) and negative[0] == 1.0


def test_verl_compute_score(truth: str) -> None:
    reference = Task.from_json(truth).reference
    right = compute_score("execlens", f"[ANSWER]{reference}[/ANSWER]", truth, shaping="steps")
    half = compute_score("execlens", "[ANSWER][2, 3, 4, 3, 4, 6][/ANSWER]", truth, shaping="steps")
    binary = compute_score("execlens", "[ANSWER][2, 3, 4, 3, 4, 6][/ANSWER]", truth)
    assert right["score"] == 1.0 and right["step_credit"] == 1.0
    assert half["score"] == pytest.approx(0.5) and half["acc"] == 0.0
    assert binary["score"] == 0.0 and binary["step_credit"] == pytest.approx(0.5)
    rows = compute_score(
        data_sources=["execlens"] * 2,
        ground_truths=[truth] * 2,
        solution_strs=["[ANSWER][2][/ANSWER]", "nothing"],
        shaping="steps",
    )
    assert [set(r) for r in rows] == [set(rows[0])] * 2  # the same keys on every row


def test_prompt_numbers_every_line(truth: str) -> None:
    user = render_messages(Task.from_json(truth))[1]["content"]
    assert "    total = 0  # 2" in user and "which lines are executed" in user
    assert "[ANSWER][2, 3, 2, 4][/ANSWER]" in user
