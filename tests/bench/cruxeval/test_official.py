"""CRUXEval's official scoring rules, quirks included, on the engine."""

from __future__ import annotations

from execlens.bench.cruxeval import CruxEvalOfficialScorer, cruxeval_mode_from_path
from execlens.engine import Engine
from execlens.judge import JUDGE_LIMITS, VerdictStatus, score_sample
from execlens.tasks import prediction_task

COUNT = prediction_task(
    id="sample_0",
    code="def f(nums):\n    output = []\n    for n in nums:\n"
    "        output.append((nums.count(n), n))\n"
    "    output.sort(reverse=True)\n    return output",
    input="[1, 1, 3, 1, 3, 1]",
    output="[(4, 1), (4, 1), (4, 1), (4, 1), (2, 3), (2, 3)]",
)
IS_ONE = prediction_task(id="is_one", code="def f(x):\n    return x == 1", input="1", output="True")
DOUBLE = prediction_task(id="double", code="def f(x):\n    return x * 2", input="3", output="6")


def _statuses(score) -> list[str]:
    return [v.status.value for v in score.verdicts]


def test_input_mode_skips_answers_without_a_call_and_shrinks_the_denominator(
    engine: Engine,
) -> None:
    gens = ["garbage", "[1, 2]", "f([1, 1, 3, 1, 3, 1])", "f([1])", "f([3, 3])"]
    score = score_sample(CruxEvalOfficialScorer("input"), COUNT, gens, engine)
    assert _statuses(score) == ["skipped", "skipped", "passed", "wrong", "wrong"]
    assert score.scored == [True, False, False]  # skips are not recorded
    assert score.n == 3 and score.correct == 1  # pass@1 = 1/3, not 1/5


def test_a_list_without_true_is_reset_to_full_length(engine: Engine) -> None:
    gens = ["garbage", "f([1])", "nothing"]
    score = score_sample(CruxEvalOfficialScorer("input"), COUNT, gens, engine)
    assert score.scored == [False, False, False]
    assert _statuses(score) == ["skipped", "wrong", "skipped"]


def test_output_mode_skips_only_the_exact_reference_call(engine: Engine) -> None:
    gens = ["f([1, 1, 3, 1, 3, 1])", "f( [1, 1, 3, 1, 3, 1])", COUNT.reference, "[(4, 1)]"]
    score = score_sample(CruxEvalOfficialScorer("output"), COUNT, gens, engine)
    # The spaced call evades the filter, is executed, and passes.
    assert _statuses(score) == ["skipped", "passed", "passed", "wrong"]
    assert score.scored == [True, True, False]


def test_python_equality_semantics(engine: Engine) -> None:
    score = score_sample(
        CruxEvalOfficialScorer("output"), IS_ONE, ["True", "1", "1.0", "true", "(True)"], engine
    )
    assert [v.passed for v in score.verdicts] == [True, True, True, False, True]
    assert score.verdicts[3].status is VerdictStatus.EXCEPTION
    assert score.verdicts[3].reason == "NameError"
    sets = prediction_task(
        id="s", code="def f(x):\n    return set(x)", input="'ab'", output="{'a', 'b'}"
    )
    score = score_sample(
        CruxEvalOfficialScorer("output"), sets, ['{"b", "a"}', "['a', 'b']", "{'a'}"], engine
    )
    assert [v.passed for v in score.verdicts] == [True, False, False]
    pair = prediction_task(id="t", code="def f(x):\n    return (x, x)", input="1", output="(1, 1)")
    score = score_sample(CruxEvalOfficialScorer("output"), pair, ["[1, 1]", "(1, 1)"], engine)
    assert [v.passed for v in score.verdicts] == [False, True]  # tuple vs list fails


def test_answers_that_break_the_source_are_exceptions(engine: Engine) -> None:
    score = score_sample(
        CruxEvalOfficialScorer("input"),
        DOUBLE,
        ["f(3", "f(3) ==", "f('a')", "f(3)\nraise ValueError('after')"],
        engine,
    )
    assert [v.reason for v in score.verdicts] == [
        "SyntaxError",
        "SyntaxError",
        "assertion",
        "ValueError",
    ]


def test_mode_follows_the_path_like_the_official_script() -> None:
    assert cruxeval_mode_from_path("runs/codellama_input_generations.json") == "input"
    assert cruxeval_mode_from_path("runs/codellama_output_generations.json") == "output"
    # Any "input" in the path wins, even in a directory name.
    assert cruxeval_mode_from_path("inputs_dir/model_output.json") == "input"
    assert cruxeval_mode_from_path("whatever.json") == "output"


def test_timeouts_are_failures(engine: Engine) -> None:
    loop = prediction_task(
        id="loop", code="def f(x):\n    while x:\n        pass\n    return x", input="0", output="0"
    )
    scorer = CruxEvalOfficialScorer("input", limits=JUDGE_LIMITS.with_(wall_time=1.0))
    score = score_sample(scorer, loop, ["f(1)", "f(0)", "f(2)"], engine, probe=0.2)
    assert _statuses(score) == ["timeout", "passed", "timeout"]
    assert score.scored == [False, True, False]
