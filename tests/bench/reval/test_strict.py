"""Strict REval judging: answers parsed as data, compared type-strictly, nothing executed."""

from __future__ import annotations

import datetime

import numpy as np
import pytest

from execlens.bench.reval import (
    MaskTruth,
    OutputTruth,
    QuestionTruth,
    RevalContext,
    plan_reval,
)
from execlens.bench.reval._masks import instrumented_test_method, mask_sites
from execlens.values import AnswerParseError, encode, parse_state_value

CODE = "def f(x):\n    y = x + 1\n    return y\n"
CONTEXT = RevalContext("humaneval", CODE, "f", "assert f(1) == ??", line=2, var="y")


def judge(
    task: str, raw: str, truth: object, context: RevalContext = CONTEXT, style: str = "direct"
):
    plan = plan_reval(task, "strict", raw, style, context, truth)  # type: ignore[arg-type]
    assert not plan.jobs, "strict judging never executes the answer"
    return plan.verdict()


def truth(
    *values: object, covered: bool = True, next_lines: tuple[int, ...] = (3,)
) -> QuestionTruth:
    return QuestionTruth(covered, next_lines, tuple(encode(v) for v in values))


def test_coverage_has_no_default_answer() -> None:
    assert judge("coverage", "NO", truth(covered=False)).passed
    ambiguous = judge("coverage", "Maybe YES", truth(covered=False))
    assert not ambiguous.passed and ambiguous.status.value == "unparseable"
    assert not judge("coverage", "", truth(covered=False)).passed


def test_path_needs_a_line() -> None:
    assert judge("path", "return y", truth(next_lines=(3,))).passed
    assert judge("path", "-1", truth(next_lines=(-1,))).passed
    missing = judge("path", "no idea", truth(next_lines=(-1,)))
    assert not missing.passed and missing.status.value == "unparseable"


@pytest.mark.parametrize(
    ("value", "raw", "passed"),
    [
        (2, "2; int", True),
        (2, "2.0; float", False),
        (2.0, "2; float", False),
        (2.0, "2.0000001; float", False),  # no tolerance
        (True, "1; int", False),
        (True, "True; bool", True),
        ([1, 2], "[1, 2]; List[int]", True),
        ([1, 2], "(1, 2); tuple", False),
        ("ab", "'ab'; str", True),
        ("ab", "ab; str", False),  # not a literal
        ({"a": int}, "{'a': int}; dict", True),  # builtin classes as data
        (int, "int; type", True),
        (int, "<class 'int'>; type", True),
        (np.float64(1.5), "1.5; numpy.float64", True),
        (np.float64(1.5), "np.float64(1.5); np.float64", True),
        (np.float64(1.5), "1.5; float", False),  # the type must be named right
        (np.array([1, 2]), "[1, 2]; numpy.ndarray", True),
        (np.array([1, 2]), "[1, 2]; list", False),
        (
            datetime.datetime(2023, 1, 2, 3, 4),
            "datetime.datetime(2023, 1, 2, 3, 4); datetime",
            True,
        ),
        (datetime.datetime(2023, 1, 2, 3, 4), "2023-01-02 03:04:00; datetime.datetime", False),
        (bytearray(b"ab"), "bytearray(b'ab'); bytearray", True),
        (2, "1 + 1; int", False),
        (2, "__import__('os').getpid(); int", False),
        (2, "2", False),  # the type is part of the answer
    ],
)
def test_state(value: object, raw: str, passed: bool) -> None:
    assert judge("state", raw, truth(value)).passed is passed


def test_state_nil() -> None:
    assert judge("state", "Nil", truth()).passed
    assert not judge("state", "Nil", truth(1)).passed
    assert not judge("state", "1; int", truth()).passed


def test_parse_state_value_never_evaluates() -> None:
    assert parse_state_value("[deque([1]), {'k': datetime.date(2020, 1, 2)}]")[1][
        "k"
    ] == datetime.date(2020, 1, 2)
    for text in ("f(1)", "os.system('true')", "[x for x in y]", "np.save('x', 1)", "a.b"):
        with pytest.raises(AnswerParseError):
            parse_state_value(text)


HE_TRUTH = OutputTruth((MaskTruth((encode([1, 2]),)),))


@pytest.mark.parametrize(
    ("raw", "passed", "reason"),
    [
        ("assert f(1) == [1, 2]", True, ""),
        ("[1, 2]", True, ""),  # the value alone, for a single mask
        ("assert f(1) == (1, 2)", False, "value"),
        ("assert f(1) == f(1)", False, "call"),  # a tautology is not a literal
        ("assert f(1) == [1, 2] or True", False, "shape"),
        ("assert f(2) == [1, 2]", False, "shape"),  # the call must stay the question's
        ("assert f(1) == [1, 1+1]", False, "operator"),
    ],
)
def test_output_humaneval(raw: str, passed: bool, reason: str) -> None:
    verdict = judge("output", raw, HE_TRUTH)
    assert verdict.passed is passed, verdict
    if reason:
        assert verdict.reason == reason


ORIGINAL = (
    "n = self.box.add('a')\nassertEqual(n, 1)\nassertAlmostEqual(self.box.mean(), 0.33,"
    " places=2)\nassertTrue(self.box.items)"
)
TEMPLATE = (
    "n = self.box.add('a')\nassertEqual(n, ??)\nassertAlmostEqual(self.box.mean(), ??,"
    " places=2)\nassertTrue(??)"
)
CE_CONTEXT = RevalContext(
    "classeval", "class Box: ...", "Box", TEMPLATE, test="", test_class="BoxTest"
)


def test_mask_sites_describe_the_masks() -> None:
    sites = mask_sites(TEMPLATE, ORIGINAL)
    assert [s.assertion for s in sites] == ["assertEqual", "assertAlmostEqual", "assertTrue"]
    assert [s.hidden for s in sites] == ["1", "0.33", "self.box.items"]
    assert [s.leak for s in sites] == ["", "", "hides_expression"]
    assert sites[1].places == 2 and sites[0].records_other and not sites[2].records_other
    method = instrumented_test_method(TEMPLATE, ORIGINAL)
    assert (
        "self.assertEqual(__execlens_record__('0:other', n), __execlens_record__('0', 1))" in method
    )


CE_TRUTH = OutputTruth(
    (
        MaskTruth((encode(1),), (encode(1),), "assertEqual"),
        MaskTruth((encode(0.33),), (encode(1 / 3),), "assertAlmostEqual", places=2),
        MaskTruth((encode(["a"]),), (), "assertTrue", leak="hides_expression"),
    )
)


@pytest.mark.parametrize(
    ("raw", "passed", "reason"),
    [
        (TEMPLATE.replace("??", "{}").format(1, 0.33, ["a"]), True, ""),
        (TEMPLATE.replace("??", "{}").format(1, 0.333333, ["a"]), True, ""),  # within places=2
        (TEMPLATE.replace("??", "{}").format(1, 0.4, ["a"]), False, "value"),
        (TEMPLATE.replace("??", "{}").format(1.0, 0.33, ["a"]), False, "value"),  # 1.0 is not 1
        (TEMPLATE.replace("??", "{}").format(1, 0.33, True), False, "value"),  # truthy is not it
        (TEMPLATE.replace("??", "{}").format("n", 0.33, ["a"]), False, "name"),  # tautology
        # self.assertX is read as assertX; the answer may give only the masked lines
        (
            "self.assertEqual(n, 1)\nself.assertAlmostEqual(self.box.mean(), 0.33, places=2)\n"
            "self.assertTrue(['a'])",
            True,
            "",
        ),
        ("assertEqual(n, 1)", False, "unfilled_mask"),  # padded with lines that still have ??
        (
            "n = self.box.add('b')\nassertEqual(n, 1)\nassertAlmostEqual(self.box.mean(), 0.33, "
            "places=2)\nassertTrue(['a'])",
            False,
            "shape",
        ),
    ],
)
def test_output_classeval(raw: str, passed: bool, reason: str) -> None:
    verdict = judge("output", raw, CE_TRUTH, CE_CONTEXT)
    assert verdict.passed is passed, verdict
    if reason:
        assert verdict.reason == reason


def test_output_without_recorded_values_is_a_reference_error() -> None:
    verdict = judge("output", "assert f(1) == 2", OutputTruth((), error="the call raised"))
    assert not verdict.passed and verdict.status.value == "reference_error"
