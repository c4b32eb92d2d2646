"""The reward core: strict judging per kind, every ANCHORS.md exploit at the minimum."""

from __future__ import annotations

import json

import pytest

from execlens.engine import Engine
from execlens.judge import VerdictStatus
from execlens.rewards import (
    Shaping,
    Task,
    TaskError,
    extract_answer,
    score,
    score_batch,
    well_formed,
)

REVERSE = "def f(x):\n    return x[::-1]\n"
COUNT = (
    "def f(nums):\n    output = []\n    for n in nums:\n"
    "        output.append((nums.count(n), n))\n    output.sort(reverse=True)\n"
    "    return output\n"
)
EXIT = "import sys\ndef f(x):\n    if x == 0:\n        sys.exit(0)\n    return x\n"

OUT = Task("output", REVERSE, "'cba'", call="f('abc')")
INP = Task("input", REVERSE, "'cba'")
COUNT_OUT = Task(
    "output",
    COUNT,
    "[(4, 1), (4, 1), (4, 1), (4, 1), (2, 3), (2, 3)]",
    call="f([1, 1, 3, 1, 3, 1])",
)


# The always-equal object, as a model would have to write it: a call building a class.
ALWAYS_EQUAL = "type('E', (), {'__eq__': lambda s, o: True})()"


def test_output_prediction_passes_the_literal_and_tagged_assertion(engine: Engine) -> None:
    assert score(OUT, "'cba'", engine=engine).passed
    assert score(OUT, "Reasoning...\n[ANSWER]assert f('abc') == 'cba'[/ANSWER]").passed
    assert score(OUT, "[ANSWER]'cba'[/ANSWER]").passed
    wrong = score(OUT, "'abc'")
    assert not wrong.passed and wrong.status is VerdictStatus.WRONG


def test_output_prediction_is_type_strict() -> None:
    task = Task("output", "def f():\n    return 1\n", "1", call="f()")
    verdict = score(task, "True")
    assert not verdict.passed and verdict.reason == "type_mismatch"
    assert not score(task, "1.0").passed


def test_input_prediction_reexecutes_in_the_engine(engine: Engine) -> None:
    assert score(INP, "f('abc')", engine=engine).passed
    assert score(INP, "[ANSWER]assert f('abc') == 'cba'[/ANSWER]", engine=engine).passed
    raised = score(INP, "f(1)", engine=engine)
    assert raised.status is VerdictStatus.EXCEPTION and raised.reason == "TypeError"
    assert score(INP, "f('xyz')", engine=engine).status is VerdictStatus.WRONG


# One test per exploit listed in ANCHORS.md §1 (plus sys.exit / os._exit): each gets the
# minimum reward under both shapings.
EXPLOITS = [
    (INP, "f([]) or True"),
    (INP, "[ANSWER]assert f([]) or True == 'cba'[/ANSWER]"),
    (OUT, "[] or True"),
    (OUT, "[ANSWER]assert f('abc') == [] or True[/ANSWER]"),
    (OUT, ALWAYS_EQUAL),
    (INP, f"f({ALWAYS_EQUAL})"),
    (COUNT_OUT, "f( [1, 1, 3, 1, 3, 1])"),
    (INP, "sys.exit(0)"),
    (INP, "__import__('os')._exit(0)"),
    (INP, "f('abc') or __import__('os')._exit(0)"),
    (OUT, "__import__('sys').exit(0)"),
    (OUT, "exit()"),
]


@pytest.mark.parametrize(
    ("task", "answer"), EXPLOITS, ids=[f"{t.kind}:{a[:40]}" for t, a in EXPLOITS]
)
@pytest.mark.parametrize(
    "shaping", [Shaping(), Shaping.absolute_zero()], ids=["binary", "absolute_zero"]
)
def test_exploit_gets_the_minimum_reward(
    task: Task, answer: str, shaping: Shaping, engine: Engine
) -> None:
    verdict = score(task, answer, engine=engine)
    assert not verdict.passed
    assert verdict.status is VerdictStatus.UNPARSEABLE
    assert shaping.reward(verdict) == shaping.minimum


def test_a_program_that_exits_on_the_answered_input_is_wrong_not_passed(engine: Engine) -> None:
    task = Task("input", EXIT, "0")
    verdict = score(task, "f(0)", engine=engine)
    assert not verdict.passed
    assert verdict.status is not VerdictStatus.PASSED
    assert score(Task("input", EXIT, "5"), "f(5)", engine=engine).passed


def test_shaping_values() -> None:
    shaping = Shaping.absolute_zero()
    assert shaping.reward(score(OUT, "'cba'")) == 1.0
    assert shaping.reward(score(OUT, "'abc'")) == -0.5
    assert shaping.reward(score(OUT, "nope(")) == -1.0
    assert Shaping.named("binary") == Shaping()
    with pytest.raises(ValueError, match="unknown shaping"):
        Shaping.named("lenient")


def test_batch_mixes_kinds_and_keeps_order(engine: Engine) -> None:
    tasks = [OUT, INP, OUT.to_json(), INP.to_json(), "not json", {"kind": "output"}]
    answers = ["'cba'", "f('abc')", "'x'", "f('zz')", "'cba'", "'cba'"]
    verdicts = score_batch(tasks, answers, engine=engine)
    assert [v.passed for v in verdicts] == [True, True, False, False, False, False]
    assert verdicts[4].status is VerdictStatus.REFERENCE_ERROR
    assert verdicts[5].status is VerdictStatus.REFERENCE_ERROR
    assert Shaping().reward(verdicts[4]) is None


def test_answers_sharing_a_program_run_in_one_work_item(engine: Engine) -> None:
    from execlens.judge import Executor

    with Executor(engine) as executor:
        verdicts = score_batch(
            [INP] * 6,
            ["f('abc')", "f('cba')", "f('abc')", "f(1)", "f([])", "f('a')"],
            executor=executor,
        )
        assert [v.passed for v in verdicts] == [True, False, True, False, False, False]
        assert executor.stats.batches == 1  # one program: one child for the whole group


def test_conversational_completions() -> None:
    messages = [{"role": "assistant", "content": "[ANSWER]'cba'[/ANSWER]"}]
    assert score(OUT, messages).passed


def test_ground_truth_round_trip_and_errors() -> None:
    assert Task.from_json(OUT.to_json()) == OUT
    assert json.loads(OUT.to_json())["kind"] == "output"
    with pytest.raises(TaskError, match="unknown task kind"):
        Task("guess", REVERSE, "1")
    with pytest.raises(TaskError, match="needs its line"):
        Task("coverage", REVERSE, True)


def test_extraction_and_format() -> None:
    hedged = extract_answer("x [ANSWER]1[/ANSWER] y [ANSWER]2[/ANSWER]", "output")
    assert (hedged.text, hedged.problem) == ("2", "hedged")  # two answers: no hedging
    assert extract_answer("x [ANSWER]2[/ANSWER] y [ANSWER]2[/ANSWER]", "output").ok
    assert extract_answer("[ANSWER]assert f('a==b') == 3", "input").text == "f('a==b')"
    assert extract_answer("'abc'", "output").text == "'abc'"
    assert well_formed(OUT, "[ANSWER]'zz'[/ANSWER]")
    assert not well_formed(OUT, "'cba'")  # right, but not in the asked-for form
    assert not well_formed(INP, "[ANSWER]g(1)[/ANSWER]")


def test_the_judging_engine_logs_the_isolation_it_runs_under(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The training log records what the rewards were judged under (issue 23)."""
    import logging

    from execlens.rewards import close_shared_engine, shared_executor

    monkeypatch.setenv("EXECLENS_REWARD_WORKERS", "1")
    close_shared_engine()
    try:
        with caplog.at_level(logging.INFO, logger="execlens.rewards"):
            shared_executor()
    finally:
        close_shared_engine()
    [message] = [r.getMessage() for r in caplog.records if "isolation" in r.getMessage()]
    summary = json.loads(message.split(": ", 1)[1])
    assert summary["mode"] == "auto" and summary["method"] in ("root", "user namespace")
    assert summary["layers"]["filesystem"] != "missing"
