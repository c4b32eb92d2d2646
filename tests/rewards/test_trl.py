"""The TRL adapter, called exactly as GRPOTrainer calls it (keywords, repeated columns)."""

from __future__ import annotations

import asyncio
from typing import Any

from execlens.engine import Engine
from execlens.rewards import (
    AsyncExeclensReward,
    ExeclensFormatReward,
    ExeclensReward,
    Shaping,
    Task,
    execlens_reward,
)

REVERSE = "def f(x):\n    return x[::-1]\n"
OUT = Task("output", REVERSE, "'cba'", call="f('abc')").to_json()
INP = Task("input", REVERSE, "'cba'").to_json()


class Logs:
    """Collects what a reward function logs through TRL's hooks."""

    def __init__(self) -> None:
        self.extra: dict[str, list[Any]] = {}
        self.metrics: dict[str, list[float]] = {}

    def log_extra(self, column: str, values: list[Any]) -> None:
        self.extra.setdefault(column, []).extend(values)

    def log_metric(self, name: str, value: float) -> None:
        self.metrics.setdefault(name, []).append(value)


def _call(fn: Any, completions: list[Any], truths: list[Any], logs: Logs) -> Any:
    return fn(
        prompts=["p"] * len(completions),
        completions=completions,
        completion_ids=[[1, 2]] * len(completions),
        ground_truth=truths,
        kind=["x"] * len(completions),
        trainer_state=None,
        log_extra=logs.log_extra,
        log_metric=logs.log_metric,
    )


def test_sync_reward_values_labels_and_metrics(engine: Engine) -> None:
    reward = ExeclensReward(shaping=Shaping.absolute_zero(), engine=engine)
    logs = Logs()
    completions = [
        "[ANSWER]'cba'[/ANSWER]",
        "[ANSWER]'abc'[/ANSWER]",
        "[] or True",
        "[ANSWER]f('abc')[/ANSWER]",
        "f([]) or True",
        "whatever",
    ]
    truths = [OUT, OUT, OUT, INP, INP, None]
    values = _call(reward, completions, truths, logs)
    assert values == [1.0, -0.5, -1.0, 1.0, -1.0, None]
    labels = logs.extra["execlens_reward_verdict"]
    assert labels == [
        "passed",
        "wrong:value",
        "unparseable:boolop",
        "passed",
        "unparseable:multiple",
        "none",
    ]
    assert logs.metrics["execlens_reward/passed"] == [2.0]
    assert logs.metrics["execlens_reward/pass_rate/output"] == [1 / 3]
    assert logs.metrics["execlens_reward/pass_rate/input"] == [0.5]


def test_names_for_trl_logging() -> None:
    from trl.trainer.utils import get_callable_name, is_async_callable

    assert get_callable_name(execlens_reward) == "execlens_reward"
    assert get_callable_name(ExeclensReward(name="crux")) == "crux"
    assert not is_async_callable(execlens_reward)
    assert is_async_callable(AsyncExeclensReward())


def test_async_reward_matches_sync(engine: Engine) -> None:
    completions = [
        [{"role": "assistant", "content": "[ANSWER]f('abc')[/ANSWER]"}],
        [{"role": "assistant", "content": "[ANSWER]f('a')[/ANSWER]"}],
    ]
    logs = Logs()
    values = asyncio.run(_call(AsyncExeclensReward(engine=engine), completions, [INP, INP], logs))
    assert values == [1.0, 0.0]
    assert logs.extra["execlens_reward_async_verdict"] == ["passed", "wrong:value"]


def test_format_reward() -> None:
    fn = ExeclensFormatReward()
    values = fn(
        prompts=["p"] * 4,
        completions=["[ANSWER]'x'[/ANSWER]", "'cba'", "[ANSWER]f(1)[/ANSWER]", "[ANSWER]x"],
        ground_truth=[OUT, OUT, INP, None],
    )
    assert values == [1.0, 0.0, 1.0, None]


def test_missing_column_names_the_fix() -> None:
    import pytest

    with pytest.raises(KeyError, match="execlens export"):
        execlens_reward(prompts=["p"], completions=["x"])


PLUS_ONE = Task("output", "def f(x):\n    return x + 1\n", "4", call="f(3)")


def test_first_line_answers_of_direct_prompts(engine: Engine) -> None:
    """A direct prompt ends at ``assert f(3) == ``: the first line is the answer, judged as
    strictly as a tagged one; what follows the line neither helps nor hurts."""
    reward = ExeclensReward(
        shaping=Shaping.absolute_zero(), engine=engine, answer_format="first_line"
    )
    logs = Logs()
    completions = [
        "4\nassert f(5) == 6",
        " 4 \n",
        "4.0\n",
        "5\n4",
        "\n4",
        "4 or True\n",
        "[] or True",
        "(lambda: 4)()\n",
        "__import__('os')._exit(0)\n",
    ]
    values = _call(reward, completions, [PLUS_ONE.to_json()] * len(completions), logs)
    assert values == [1.0, 1.0, -0.5, -0.5, -1.0, -1.0, -1.0, -1.0, -1.0]
    assert logs.extra["execlens_reward_verdict"][:5] == [
        "passed",
        "passed",
        "wrong:type_mismatch",
        "wrong:value",
        "unparseable:empty",
    ]


def test_first_line_format_reward() -> None:
    fmt = ExeclensFormatReward(value=0.5, answer_format="first_line")
    completions = ["4\nrest", "'x'\n", "[ANSWER]4[/ANSWER]", "4 or True", "\n4", "f(3)"]
    values = _call(fmt, completions, [PLUS_ONE.to_json()] * len(completions), Logs())
    assert values == [0.5, 0.5, 0.5, 0.0, 0.0, 0.0]


def test_unknown_answer_format_fails_at_construction() -> None:
    import pytest

    with pytest.raises(ValueError, match="answer format"):
        ExeclensReward(answer_format="last_line")


def test_direct_prompt_ends_where_the_answer_goes() -> None:
    from execlens.rewards import render_direct_prompt

    shot = Task("output", "def f(x):\n    return x * 2\n", "6", call="f(3)")
    prompt = render_direct_prompt(PLUS_ONE, [shot])
    assert prompt == (
        "def f(x):\n    return x * 2\nassert f(3) == 6\n\n"
        "def f(x):\n    return x + 1\nassert f(3) == "
    )


def test_direct_prompts_are_for_output_prediction() -> None:
    import pytest

    from execlens.rewards import render_direct_prompt

    with pytest.raises(ValueError, match="output-prediction"):
        render_direct_prompt(Task("input", REVERSE, "'cba'"))
