"""TRL and verl rewards: an answer's reward does not depend on its group-mates (issue 23).

The answers of a GRPO group are judged against one truth program, in one forked child
when nothing forbids it; a truth program that keeps process state (here a counter kept
on a module it imports) gave an answer 0.0 alone and 1.0 after a group-mate.  The child
is retired as soon as an answer's run leaves anything behind, so each answer is judged
as if alone.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from execlens.engine import Engine
from execlens.judge import scoring_engine
from execlens.rewards import ExeclensReward, Task, close_shared_engine
from execlens.rewards.verl_reward import compute_score

pytestmark = pytest.mark.attack

# Returns x + (how many calls this process has seen): f(0) is 1 alone, 2 after a call.
COUNTER = (
    "import json\n"
    "def f(x):\n"
    "    json.calls = getattr(json, 'calls', 0) + 1\n"
    "    return x + json.calls\n"
)
TRUTH = Task("input", COUNTER, "2").to_json()
GROUP = ["[ANSWER]f(5)[/ANSWER]", "[ANSWER]f(0)[/ANSWER]"]


@pytest.fixture(scope="module")
def single() -> Iterator[Engine]:
    """One judging server: the whole group meets it (no work stealing)."""
    with scoring_engine(workers=1) as engine:
        yield engine


def _trl(reward: ExeclensReward, completions: list[str]) -> list[float | None]:
    return reward(
        prompts=["p"] * len(completions),
        completions=completions,
        completion_ids=[[1]] * len(completions),
        ground_truth=[TRUTH] * len(completions),
        trainer_state=None,
        log_extra=lambda column, values: None,
        log_metric=lambda name, value: None,
    )


def test_attack_a_group_mate_changing_a_trl_reward(single: Engine) -> None:
    reward = ExeclensReward(engine=single)
    alone = [_trl(reward, [completion])[0] for completion in GROUP]
    assert alone == [0.0, 0.0]  # f(5) is 6, f(0) is 1: neither is 2
    assert _trl(reward, GROUP) == alone


def test_attack_a_group_mate_changing_a_verl_reward(monkeypatch: pytest.MonkeyPatch) -> None:
    # verl's batch manager, through this process's shared judging engine (one server).
    monkeypatch.setenv("EXECLENS_REWARD_WORKERS", "1")
    close_shared_engine()
    try:

        def scores(answers: list[str]) -> list[float]:
            rows = compute_score(
                data_sources=["execlens"] * len(answers),
                solution_strs=answers,
                ground_truths=[TRUTH] * len(answers),
                extra_infos=[{}] * len(answers),
            )
            assert isinstance(rows, list)
            return [row["score"] for row in rows]

        alone = [scores([answer])[0] for answer in GROUP]
        assert alone == [0.0, 0.0]
        assert scores(GROUP) == alone
    finally:
        close_shared_engine()
