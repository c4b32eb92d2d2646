"""REval answer extraction on realistic raw outputs, well-formed and malformed.

Each expected text is what REval's evaluation.py ``_postprocess`` returns for that output.
(The CRUXEval and LiveCodeBench cases moved to tests/bench/cruxeval and tests/bench/lcb_exec.)
"""

from __future__ import annotations

import pytest

from execlens.bench.reval import (
    extract_reval_coverage,
    extract_reval_output,
    extract_reval_path,
    extract_reval_state,
    match_path_answer,
    normalise_state_type,
)
from execlens.tasks.prompts import NIL, StateAnswer

# ---------------------------------------------------------------- REval

COVERAGE_CASES = [
    ("\nYES\n", "direct", True, "YES", None),
    ("\nyes, it is executed", "direct", True, "YES", None),
    ("NO.", "direct", False, "NO", None),
    ("Not executed", "direct", False, "NO", None),  # "NOT" holds NO
    ("Yes and no", "direct", True, "YES", None),  # only the first 3 characters count
    ("N/A", "direct", False, "NO", "ambiguous"),
    ("  \n", "direct", False, "NO", "empty"),
    ("[ANSWER]\nNO\n[/ANSWER]", "direct", False, "NO", None),
    ("\nYES\n[/ANSWER", "direct", True, "YES", None),  # a truncated closing tag
    ("\n1. f(3): x > 2.\n2. Line 3 runs.\n[/THOUGHT]\n[ANSWER]\nYES\n", "cot", True, "YES", None),
    (
        "\n1. f(3): x > 2.\n2. Line 3 runs.\n[/thought]\n[answer]\nyes\n",
        "cot",
        True,
        "YES",
        None,
    ),  # upper-cased first
    ("\n1. f(3): x > 2.\n2. Line 3 runs, so YES", "cot", False, "NO", "unfinished_cot"),
    ("\n1. ...\n[/THOUGHT]\n[ANSWER]\n", "cot", False, "NO", "empty"),
]


@pytest.mark.parametrize(("raw", "style", "value", "text", "failure"), COVERAGE_CASES)
def test_reval_coverage(raw: str, style: str, value: bool, text: str, failure: str | None) -> None:
    got = extract_reval_coverage(raw, style)
    assert (got.value, got.text, got.failure) == (value, text, failure)


PATH_CODE = (
    "def f(xs):\n    total = 0\n    for x in xs:\n        total += x\n    for x in xs:\n"
    "        total += x\n"
    "    return total\n"
)
PATH_CASES = [
    # chat models answer on the first line
    ("return total", "direct", "return total", [7], None),
    # a duplicated line: every copy counts
    ("total += x\n", "direct", "total += x", [4, 6], None),
    ("    total += x   \nextra words\n", "direct", "total += x", [4, 6], None),
    ("-1", "direct", "-1", [-1], None),
    # REval strips only what follows an [ANSWER] it finds: a completion starting with a newline
    # (how base models continue "...[ANSWER]") reads as -2 officially (seen in REval's own logs)
    ("\nreturn total\n", "direct", "", [-2], "first_line_empty"),
    ("[ANSWER]\nreturn total\n", "direct", "return total", [7], None),
    # the numbered form HumanEval prompts show does not match the stored code
    ("7\t    return total\n", "direct", "7\t    return total", [-2], "no_matching_line"),
    ("Line 7", "direct", "Line 7", [-2], "no_matching_line"),
    ("", "direct", "", [-2], "empty"),
    (
        "\n1. loop.\n[/THOUGHT]\n[ANSWER]\nfor x in xs:\n[/ANSWER]",
        "cot",
        "for x in xs:",
        [3, 5],
        None,
    ),
    ("\n1. The loop continues with the next", "cot", "", [-2], "unfinished_cot"),
]


@pytest.mark.parametrize(("raw", "style", "text", "lines", "failure"), PATH_CASES)
def test_reval_path(raw: str, style: str, text: str, lines: list[int], failure: str | None) -> None:
    got = extract_reval_path(raw, style, code=PATH_CODE)
    assert (got.text, got.value, got.failure) == (text, lines, failure)


def test_reval_path_without_code_and_matching_helper() -> None:
    got = extract_reval_path("return total\n", "direct")
    assert got.text == "return total" and got.value is None and got.ok
    assert match_path_answer("-1", PATH_CODE) == [-1]
    assert match_path_answer("", PATH_CODE) == [-2]
    assert match_path_answer("return total", PATH_CODE) == [7]


STATE_CASES = [
    ("\n1; int\n", "direct", StateAnswer("1", "int"), None),
    ("Nil", "direct", NIL, None),
    ("\nnil\n", "direct", NIL, None),
    ("[Nil]", "direct", NIL, None),
    ("Nil; NoneType", "direct", NIL, None),
    ("None; NoneType", "direct", StateAnswer("None", "nonetype"), None),
    # split at the LAST semicolon: a ';' inside the value survives
    ("'a;b'; str", "direct", StateAnswer("'a;b'", "str"), None),
    ("[1, 2]; <class 'list'>", "direct", StateAnswer("[1, 2]", "list"), None),
    ("{'a': 1}; Dict[str, int]", "direct", StateAnswer("{'a': 1}", "dict"), None),
    ("(1, 2); Tuple[int, int]", "direct", StateAnswer("(1, 2)", "tuple"), None),
    ("(1, 'a'); int, str", "direct", StateAnswer("(1, 'a')", "tuple"), None),
    ("hello; String", "direct", StateAnswer("hello", "str"), None),
    ("5; Integer", "direct", StateAnswer("5", "int"), None),
    (
        "\u201chi\u201d; str",
        "direct",
        StateAnswer('"hi"', "str"),
        None,
    ),  # curly quotes straightened
    (
        "\n1. ans = 3.1\n[/THOUGHT]\n[ANSWER]\n1; int\n[/ANSWER]",
        "cot",
        StateAnswer("1", "int"),
        None,
    ),
    # more than one line: REval keeps it all and the type is garbage (judged wrong later)
    (
        "1; int\nbecause int(1.1) is 1",
        "direct",
        StateAnswer("1", "int\nbecause int(1.1) is 1"),
        None,
    ),
    ("1", "direct", None, "no_semicolon"),
    ("", "direct", None, "empty"),
    ("\n1. ans = 3.1\n2. so", "cot", None, "unfinished_cot"),
]


@pytest.mark.parametrize(("raw", "style", "value", "failure"), STATE_CASES)
def test_reval_state(raw: str, style: str, value: object, failure: str | None) -> None:
    got = extract_reval_state(raw, style)
    assert got.failure == failure
    assert got.value == value if value is not NIL else got.value is NIL


def test_state_type_normalisation() -> None:
    assert normalise_state_type(" <class 'numpy.ndarray'> ") == "numpy.ndarray"
    assert normalise_state_type("List[int]") == "list"
    # the generics pattern is greedy: nested generics keep their head, and REval's later type
    # lookup fails
    assert normalise_state_type("List[List[int]]") == "list[list"
    assert normalise_state_type("INTEGER") == "int"
    assert normalise_state_type("Optional[int]") == "optional"


OUTPUT_Q = "a = A(3)\nassertEqual(a.f(2), ??)\nassertEqual(a.f(4), ??)"
OUTPUT_CASES = [
    # without an [ANSWER] tag REval keeps the text untouched, leading newline included
    ("\nassert f(1) == 2\n", "direct", None, "\nassert f(1) == 2\n", None, None),
    # a server that ignored the stop string: cut there, as REval's runner (stop [/ANSWER]) would
    (
        "\na = A(3)\nassertEqual(a.f(2), 5)\nassertEqual(a.f(4), 7)\n[/ANSWER]\n\n[PYTHON]",
        "direct",
        OUTPUT_Q,
        "\na = A(3)\nassertEqual(a.f(2), 5)\nassertEqual(a.f(4), 7)\n",
        "\na = A(3)\nassertEqual(a.f(2), 5)\nassertEqual(a.f(4), 7)\n",
        None,
    ),
    # fewer lines than the question: REval puts the question's first lines back in front
    (
        "\nassertEqual(a.f(2), 5)\nassertEqual(a.f(4), 7)\n",
        "direct",
        OUTPUT_Q,
        "\nassertEqual(a.f(2), 5)\nassertEqual(a.f(4), 7)\n",
        "a = A(3)\nassertEqual(a.f(2), 5)\nassertEqual(a.f(4), 7)",
        None,
    ),
    (
        '\n1. f adds x.\n[/THOUGHT]\n[ANSWER]\nassert g("x9j") == "x9ja"\n',
        "cot",
        'assert g("x9j") == ??',
        'assert g("x9j") == "x9ja"',
        'assert g("x9j") == "x9ja"',
        None,
    ),
    ("\n1. f adds x and then", "cot", "assert g(1) == ??", "", "assert False", "unfinished_cot"),
    ("\n\n", "direct", "assert g(1) == ??", "\n\n", "\n\n", "empty"),
]


@pytest.mark.parametrize(("raw", "style", "question", "text", "value", "failure"), OUTPUT_CASES)
def test_reval_output(
    raw: str, style: str, question: str | None, text: str, value: str | None, failure: str | None
) -> None:
    got = extract_reval_output(raw, style, question=question)
    assert (got.text, got.value, got.failure) == (text, value, failure)


def test_reval_without_stop_emulation_applies_only_the_post_processing() -> None:
    raw = "\nreturn total\n[/ANSWER]\n\n[PYTHON]"
    # with the runner's stop the text is "\nreturn total\n": first line empty, -2
    assert extract_reval_path(raw, "direct", code=PATH_CODE).value == [-2]
    # post-processing alone finds [/ANSWER], cuts and strips
    got = extract_reval_path(raw, "direct", code=PATH_CODE, stop=False)
    assert (got.text, got.value, got.how) == (
        "return total",
        [7],
        ("before_close_tag", "first_line", "matched_lines"),
    )
