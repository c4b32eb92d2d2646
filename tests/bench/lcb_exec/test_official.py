"""LiveCodeBench's official code-execution scoring, quirks included, on the engine."""

from __future__ import annotations

from execlens.bench.lcb_exec import LCBOfficialScorer
from execlens.engine import Engine
from execlens.judge import score_sample
from execlens.tasks import prediction_task


def _statuses(score) -> list[str]:
    return [v.status.value for v in score.verdicts]


LCB = prediction_task(
    id="sample_3",
    code="def countPairs(nums: List[int], target: int) -> int:\n"
    "    return sum(1 for i in range(len(nums)) for j in range(i + 1, len(nums))\n"
    "               if nums[i] + nums[j] < target)",
    input="countPairs(nums = [-1, 1, 2, 3, 1], target = 2)",
    output="3",
    function="countPairs",
    call="countPairs(nums = [-1, 1, 2, 3, 1], target = 2)",
)


def test_lcb_prelude_binds_its_names(engine: Engine) -> None:
    probe = prediction_task(
        id="p",
        code="def f():\n    return [type(bisect).__name__, np.__name__, pd.__name__, "
        "re_search('b', 'abc').group(), inf > 1, comb(4, 2), List.__name__, "
        "commonprefix(['ab', 'ac'])]",
        input="f()",
        output="['module', 'numpy', 'pandas', 'b', True, 6, 'List', 'a']",
        call="f()",
    )
    score = score_sample(
        LCBOfficialScorer(),
        probe,
        ["['module', 'numpy', 'pandas', 'b', True, 6, 'List', 'a']"],
        engine,
    )
    assert score.verdicts[0].passed, score.verdicts[0]


def test_lcb_skips_the_input_call_and_resets_only_when_nothing_ran(engine: Engine) -> None:
    scorer = LCBOfficialScorer()
    score = score_sample(
        scorer, LCB, ["3", "countPairs(nums = [-1, 1, 2, 3, 1], target = 2)", "4"], engine
    )
    assert _statuses(score) == ["passed", "skipped", "wrong"]
    assert score.scored == [True, False]
    # Unlike CRUXEval, a list of only failures keeps its shrunken length...
    score = score_sample(
        scorer, LCB, ["countPairs(nums = [-1, 1, 2, 3, 1], target = 2)", "4"], engine
    )
    assert score.scored == [False]
    # ...and is reset only when no check ran at all.
    score = score_sample(
        scorer, LCB, ["countPairs(nums = [-1, 1, 2, 3, 1], target = 2)"] * 3, engine
    )
    assert score.scored == [False, False, False]
    # The full call with other spacing is not filtered, and passes by execution.
    score = score_sample(scorer, LCB, ["countPairs(nums=[-1, 1, 2, 3, 1], target=2)"], engine)
    assert score.scored == [True]
