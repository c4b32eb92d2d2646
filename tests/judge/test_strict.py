"""Strict scoring: literals only, compared in the host, nothing skipped."""

from __future__ import annotations

import pytest

from execlens.bench.cruxeval import CruxEvalOfficialScorer
from execlens.engine import Engine
from execlens.judge import (
    StrictScorer,
    Verdict,
    VerdictStatus,
    judge_input_prediction,
    judge_output_prediction,
    score_sample,
    score_samples,
)
from execlens.tasks import prediction_task

JOIN = prediction_task(
    id="join",
    code="def f(text, sep):\n    return sep.join(sorted(set(text)))",
    input="'cab', '-'",
    output="'a-b-c'",
)
PAIRS = prediction_task(
    id="pairs",
    code="def f(d):\n    return sorted(d.items())",
    input="{'b': 2, 'a': 1}",
    output="[('a', 1), ('b', 2)]",
)


def test_output_prediction_needs_no_engine() -> None:
    score = score_sample(
        StrictScorer("output"),
        PAIRS,
        [
            '[("a", 1), ("b", 2)]',
            "[['a', 1], ['b', 2]]",
            "[('a', 1)]",
            "sorted({'b': 2, 'a': 1}.items())",
            "",
            "[('a', 1), ('b', 2)",
        ],
    )
    assert [v.label for v in score.verdicts] == [
        "passed",
        "wrong:value",
        "wrong:value",
        "unparseable:call",
        "unparseable:empty",
        "unparseable:syntax",
    ]
    # A fixed denominator: every generation counts.
    assert score.scored == [True, False, False, False, False, False]


def test_sets_and_dicts_compare_by_content_not_order() -> None:
    problem = prediction_task(
        id="s", code="def f(x):\n    return {x: set(x)}", input="'ab'", output="{'ab': {'a', 'b'}}"
    )
    score = score_sample(
        StrictScorer("output"),
        problem,
        ["{'ab': {'b', 'a'}}", "{'ab': ['a', 'b']}", "{'ab': frozenset('ab')}"],
    )
    assert [v.label for v in score.verdicts] == ["passed", "wrong:value", "unparseable:call"]


def test_json_spellings_only_when_allowed() -> None:
    problem = prediction_task(
        id="b", code="def f():\n    return [True, None]", input="", output="[True, None]"
    )
    strict = score_sample(StrictScorer("output"), problem, ["[true, null]"])
    assert strict.verdicts[0].label == "unparseable:name"
    lenient = score_sample(StrictScorer("output", allow_json=True), problem, ["[true, null]"])
    assert lenient.verdicts[0].passed


def test_input_prediction_runs_the_function_on_parsed_values(engine: Engine) -> None:
    gens = [
        "f('abc', '-')",
        "f(text='bca', sep='-')",
        "f('abc', sep='+')",
        "g('abc', '-')",
        "f('ab' + 'c', '-')",
        "f('abc', '-') or True",
        "f('abc')",
        "f(*['abc', '-'])",
    ]
    score = score_sample(StrictScorer("input"), JOIN, gens, engine)
    assert [v.label for v in score.verdicts] == [
        "passed",
        "passed",
        "wrong:value",
        "unparseable:name",
        "unparseable:operator",
        "unparseable:multiple",
        "exception:TypeError",
        "unparseable:operator",
    ]
    assert score.n == len(gens)


def test_returned_values_are_compared_in_the_host(engine: Engine) -> None:
    # The program's own __eq__ never gets a vote: its object arrives as a record.
    spoof = prediction_task(
        id="spoof",
        code="class Anything:\n    def __eq__(self, other):\n        return True\n"
        "def f(x):\n    return Anything() if x else [1]",
        input="0",
        output="[1]",
    )
    score = score_sample(StrictScorer("input"), spoof, ["f(1)", "f(0)", "f(False)"], engine)
    assert [v.label for v in score.verdicts] == ["wrong:value", "passed", "passed"]
    tuple_vs_list = prediction_task(
        id="t", code="def f(x):\n    return (x, x)", input="1", output="[1, 1]"
    )
    score = score_sample(StrictScorer("input"), tuple_vs_list, ["f(1)"], engine)
    assert score.verdicts[0].label == "wrong:value"


def test_failures_at_run_time_keep_their_status(engine: Engine) -> None:
    from execlens.judge import JUDGE_LIMITS

    problem = prediction_task(
        id="slow", code="def f(x):\n    while x:\n        pass\n    return 0", input="0", output="0"
    )
    scorer = StrictScorer("input", limits=JUDGE_LIMITS.with_(wall_time=1.0))
    score = score_sample(scorer, problem, ["f(1)", "f(0)"], engine, probe=0.2)
    assert [v.status for v in score.verdicts] == [VerdictStatus.TIMEOUT, VerdictStatus.PASSED]


def test_a_reference_that_is_not_a_literal_is_named() -> None:
    broken = prediction_task(id="x", code="def f():\n    return 1", input="", output="f()")
    score = score_sample(StrictScorer("output"), broken, ["1", "2"])
    assert [v.label for v in score.verdicts] == ["reference_error:call"] * 2


def test_single_answer_judges(engine: Engine) -> None:
    assert judge_output_prediction(JOIN, "'a-b-c'").passed
    verdict = judge_output_prediction(JOIN, "'a-b-c' or 1")
    assert (verdict.passed, verdict.label) == (False, "unparseable:boolop")
    official_output = CruxEvalOfficialScorer("output")
    assert judge_output_prediction(
        JOIN, "'a-b-c' or 1", mode="official", engine=engine, official=official_output
    ).passed
    assert judge_input_prediction(JOIN, "f('cba', '-')", engine=engine).passed
    assert not judge_input_prediction(JOIN, "f('cba', '-') or 1", engine=engine).passed
    skipped = judge_input_prediction(
        JOIN, "'cba', '-'", mode="official", engine=engine, official=CruxEvalOfficialScorer("input")
    )
    assert skipped.status is VerdictStatus.SKIPPED
    with pytest.raises(ValueError, match="mode"):
        judge_output_prediction(JOIN, "1", mode="lenient")
    # Official mode is a benchmark's own rule: the judge names what to pass.
    with pytest.raises(ValueError, match="official=<its scorer>"):
        judge_output_prediction(JOIN, "1", mode="official")


def test_execution_scorers_need_an_engine() -> None:
    with pytest.raises(ValueError, match="engine"):
        list(score_samples([StrictScorer("input")], [(JOIN, ["f('a', '-')"])]))


def test_verdict_round_trip() -> None:
    verdict = Verdict.failing(
        VerdictStatus.UNPARSEABLE, "boolop", "`or` is not a literal", answer="[] or True"
    )
    again = Verdict.from_dict(verdict.to_dict())
    assert again == verdict and again.label == "unparseable:boolop" and again.score == 0.0
    assert Verdict.passing().score == 1.0
    with pytest.raises(ValueError):
        Verdict.failing(VerdictStatus.PASSED)


def test_async_judges(engine: Engine) -> None:
    import asyncio

    from execlens.judge import ajudge_input_prediction, ajudge_output_prediction, ascore_samples

    async def main() -> tuple[Verdict, Verdict, list]:
        return await asyncio.gather(
            ajudge_output_prediction(JOIN, "'a-b-c'"),
            ajudge_input_prediction(JOIN, "f('abc', '+')", engine=engine),
            ascore_samples([StrictScorer("output")], [(JOIN, ["'a-b-c'", "'abc'"])]),
        )

    output, wrong_input, [(problem, scores)] = asyncio.run(main())
    assert output.passed and wrong_input.label == "wrong:value"
    assert problem is JOIN and scores["strict"].scored == [True, False]
