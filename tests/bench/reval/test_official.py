"""REval's official judging rules, one by one, on hand-made questions (real engine)."""

from __future__ import annotations

import datetime

import numpy as np
import pytest

from execlens.bench.reval import QuestionTruth, RevalContext, judge_reval, plan_reval
from execlens.engine import Engine
from execlens.values import encode

CODE = "def f(x):\n    y = x + 1\n    if y > 5:\n        return y\n    return -y\n"
CONTEXT = RevalContext("humaneval", CODE, "f", "assert f(1) == ??", line=2, var="y")
CLASS_CODE = (
    "class Box:\n    def __init__(self):\n        self.items = []\n\n"
    "    def add(self, item):\n        self.items.append(item)\n"
    "        return len(self.items)\n"
)
CLASS_TEST = (
    "import unittest\n\nclass BoxTestAdd(unittest.TestCase):\n"
    "    def setUp(self):\n        self.box = Box()\n\n"
    "    def test_add(self):\n        n = self.box.add('a')\n"
    "        self.assertEqual(n, 1)\n        self.assertTrue(self.box.items)\n\n"
    "if __name__ == '__main__':\n    unittest.main()\n"
)
CLASS_CONTEXT = RevalContext(
    "classeval",
    CLASS_CODE,
    "Box",
    "n = self.box.add('a')\nassertEqual(n, ??)\nassertTrue(??)",
    test=CLASS_TEST,
    test_class="BoxTestAdd",
)


def truth(
    *values: object, covered: bool = True, next_lines: tuple[int, ...] = (3,)
) -> QuestionTruth:
    return QuestionTruth(covered, next_lines, tuple(encode(v) for v in values))


@pytest.mark.parametrize(
    ("raw", "covered", "passed"),
    [
        ("YES", True, True),
        ("NO", True, False),
        ("NO", False, True),
        ("yes, it runs", True, True),  # first three characters, upper-cased
        ("It is executed: YES", True, False),  # 'IT ' has neither: ambiguous -> NO
        ("It is executed: YES", False, True),  # ... which is right for a line that never ran
        ("", False, True),  # empty -> NO
        ("[ANSWER]\nNO\n[/ANSWER]", False, True),
    ],
)
def test_coverage_reads_like_reval(raw: str, covered: bool, passed: bool) -> None:
    verdict = judge_reval("coverage", "official", raw, "direct", CONTEXT, truth(covered=covered))
    assert verdict.passed is passed


def test_coverage_unfinished_cot_is_no() -> None:
    verdict = judge_reval(
        "coverage", "official", "[THOUGHT] it runs... YES", "cot", CONTEXT, truth(covered=False)
    )
    assert verdict.passed and verdict.data["extraction"] == "unfinished_cot"


@pytest.mark.parametrize(
    ("raw", "next_lines", "passed"),
    [
        ("if y > 5:", (3,), True),
        ("  if y > 5:  ", (3,), True),  # stripped text
        ("3", (3,), False),  # a line number is not code text: -2
        ("-1", (-1,), True),
        ("return y", (4,), True),
        ("return -y", (4,), False),
        ("\nif y > 5:", (3,), False),  # an empty first line reads as -2
    ],
)
def test_path_matches_line_text(raw: str, next_lines: tuple[int, ...], passed: bool) -> None:
    verdict = judge_reval("path", "official", raw, "direct", CONTEXT, truth(next_lines=next_lines))
    assert verdict.passed is passed, verdict


def test_path_counts_every_duplicate_line() -> None:
    code = "def g(x):\n    x += 1\n    x += 1\n    return x\n"
    context = RevalContext("humaneval", code, "g", line=2, var="x")
    verdict = judge_reval("path", "official", "x += 1", "direct", context, truth(next_lines=(3,)))
    assert verdict.passed and verdict.data["answer"] == [2, 3]


STATE_CASES = [
    (2, "2; int", True),
    (2, "2; float", False),  # answered type is not the value's type
    (2.0, "2; float", False),  # `1; float`: the value is an int
    (2.0, "2.0000001; float", True),  # float tolerance 1e-6
    (2.5, "2.6; float", False),
    (True, "1; int", False),  # bool is not int
    (True, "True; bool", True),
    ([1, 2], "[1, 2]; list", True),
    ([1, 2], "[1, 2]; List[int]", True),  # generics dropped
    ([1, 2], "[1.0, 2.0]; list", True),  # == membership inside containers
    ((1, 2), "(1, 2); Tuple[int, int]", True),
    ("ab", "ab; str", True),  # unquoted: REval keeps the raw text
    ("ab", "'ab'; string", True),
    ({1, 2}, "{2, 1}; set", True),
    (np.array([1.0, 2.0]), "[1, 2]; numpy.ndarray", True),  # allclose
    (np.array([1.0, 2.0]), "[1, 2]; np.ndarray", False),  # locate('np.ndarray') is None
    (np.float64(1.5), "1.5; numpy.float64", True),
    (datetime.datetime(2023, 1, 2, 3, 4), "2023-01-02 03:04:00; datetime.datetime", True),
    (datetime.datetime(2023, 1, 2, 3, 4), "2023-01-02 03:04:00; datetime", False),  # a module
    (None, "None; NoneType", True),
    (2, "__import__('os').getpid(); int", False),
    (2, "x + ; int", False),  # eval fails: REval's ERROR
]


@pytest.mark.parametrize(("value", "raw", "passed"), STATE_CASES)
def test_state_follows_reval_eq(engine: Engine, value: object, raw: str, passed: bool) -> None:
    verdict = judge_reval("state", "official", raw, "direct", CONTEXT, truth(value), engine)
    assert verdict.passed is passed, verdict


def test_state_nil_rules(engine: Engine) -> None:
    assert judge_reval("state", "official", "Nil", "direct", CONTEXT, truth()).passed
    assert judge_reval("state", "official", "nil", "direct", CONTEXT, truth()).passed
    assert not judge_reval("state", "official", "Nil", "direct", CONTEXT, truth(3)).passed
    # A value against a Nil truth is wrong without evaluating anything.
    plan = plan_reval("state", "official", "3; int", "direct", CONTEXT, truth())
    assert not plan.jobs and not plan.verdict().passed
    # No `;` is REval's ERROR.
    verdict = judge_reval("state", "official", "3", "direct", CONTEXT, truth(3))
    assert not verdict.passed and verdict.reason == "no_semicolon"


def test_state_any_accepted_value_counts(engine: Engine) -> None:
    verdict = judge_reval("state", "official", "4; int", "direct", CONTEXT, truth(2, 3, 4), engine)
    assert verdict.passed
    # the float branch compares against every accepted value, whatever its type
    verdict = judge_reval(
        "state", "official", "3.0; float", "direct", CONTEXT, truth(3, 2.5), engine
    )
    assert verdict.passed


def test_state_answer_runs_in_the_sandbox_not_the_host(engine: Engine, tmp_path) -> None:
    marker = tmp_path / "touched"
    raw = f"open({str(marker)!r}, 'w').write('x'); int"
    judge_reval("state", "official", raw, "direct", CONTEXT, truth(1), engine)
    assert not marker.exists()


@pytest.mark.parametrize(
    ("raw", "passed", "reason"),
    [
        ("assert f(1) == -2", True, ""),
        ("assert f(1) == 2", False, "assertion"),
        ("assert f(1) == f(1)", True, ""),  # tautologies pass officially
        ("assert f(1) == -2.0", True, ""),  # == looseness
        ("assert True", False, "penalty"),
        ("assert f(1) == -2 or True", True, ""),
        ("f(1)", False, "penalty"),  # fewer asserts than the question
        ("assert f(1) == math.floor(-2.5) + 1", False, "NameError"),  # evaluator has no math
        ("assert f(1) == np.int64(-2)", True, ""),  # ... but has numpy as np
        ("assert f(1) == [i for i in range(2)]", False, "assertion"),
    ],
)
def test_output_humaneval(engine: Engine, raw: str, passed: bool, reason: str) -> None:
    verdict = judge_reval("output", "official", raw, "direct", CONTEXT, None, engine)
    assert verdict.passed is passed, verdict
    if reason:
        assert verdict.reason == reason


def test_output_humaneval_loops_time_out(engine: Engine) -> None:
    code = "def f(x):\n    while x:\n        pass\n    return x\n"
    context = RevalContext("humaneval", code, "f", "assert f(1) == ??")
    verdict = judge_reval("output", "official", "assert f(1) == 1", "direct", context, None, engine)
    assert not verdict.passed and verdict.status.value == "timeout"


@pytest.mark.parametrize(
    ("raw", "passed", "reason"),
    [
        ("n = self.box.add('a')\nassertEqual(n, 1)\nassertTrue(self.box.items)", True, ""),
        (
            "n = self.box.add('a')\nassertEqual(n, 2)\nassertTrue(self.box.items)",
            False,
            "assertion",
        ),
        # the answer's lines only: padded with the question's first line
        ("assertEqual(n, 1)\nassertTrue(['a'])", True, ""),
        ("n = self.box.add('a')\nassertEqual(n, 1)\nassertTrue(True)", False, "penalty"),
        ("n = self.box.add('a')\nassertEqual(n, n)\nassertTrue(n)", True, ""),  # tautology
        # REval rewrites every `assert` to `self.assert`: writing self.assertEqual breaks it
        (
            "n = self.box.add('a')\nself.assertEqual(n, 1)\nself.assertTrue(self.box.items)",
            False,
            "AttributeError",
        ),
    ],
)
def test_output_classeval(engine: Engine, raw: str, passed: bool, reason: str) -> None:
    verdict = judge_reval("output", "official", raw, "direct", CLASS_CONTEXT, None, engine)
    assert verdict.passed is passed, verdict
    if reason:
        assert verdict.reason == reason


def test_output_unfinished_cot_fails(engine: Engine) -> None:
    verdict = judge_reval(
        "output", "official", "[THOUGHT] f(1) is -2", "cot", CONTEXT, None, engine
    )
    assert not verdict.passed and verdict.reason == "penalty"


def test_cot_answers_are_read_after_the_thought(engine: Engine) -> None:
    raw = "[THOUGHT]\ny = 1 + 1 = 2\n[/THOUGHT]\n[ANSWER]\n2; int\n[/ANSWER]"
    assert judge_reval("state", "official", raw, "cot", CONTEXT, truth(2), engine).passed
    raw = "[THOUGHT]\ny is 2, so the branch is skipped\n[/THOUGHT]\n[ANSWER]\nNO\n[/ANSWER]"
    assert judge_reval("coverage", "official", raw, "cot", CONTEXT, truth(covered=False)).passed
