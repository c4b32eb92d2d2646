"""Answer extraction on realistic raw outputs, well-formed and malformed.

Each expected text is what the official post-processing code returns for that output
(CRUXEval inference/tasks/*_prediction.py and openai/openai_prompt.py, LiveCodeBench
extraction_utils.extract_execution_code, REval evaluation.py ``_postprocess``).
"""

from __future__ import annotations

import pytest

from execlens.tasks.prompts import (
    NIL,
    StateAnswer,
    apply_stop,
    extract_answer,
    extract_cruxeval,
    extract_lcb,
    extract_reval_coverage,
    extract_reval_output,
    extract_reval_path,
    extract_reval_state,
    match_path_answer,
    normalise_state_type,
)

COT_OUT = (
    "Let's execute the code step by step:\n1. f is called with nums = [1, 1, 3, 1, 3, 1].\n"
    "2. Each (count, n) pair is appended and sorted in reverse.\n[/THOUGHT]\n[ANSWER]\n"
    "assert f([1, 1, 3, 1, 3, 1]) == [(4, 1), (4, 1), (4, 1), (4, 1), (2, 3), (2, 3)]\n"
)

# (raw, task, style, flavor, expected text, expected failure)
CRUX_CASES = [
    # direct output: the continuation of "[ANSWER]\n"
    (
        "assert f([1, 1, 3, 1, 3, 1]) == [(4, 1), (2, 3)]\n",
        "output",
        "direct",
        "harness",
        "[(4, 1), (2, 3)]",
        None,
    ),
    # the stop string was not honoured by the server: cut there first
    (
        "assert f('a') == 'ab'\n[/ANSWER]\n\n[PYTHON]\ndef f(x): ...",
        "output",
        "direct",
        "harness",
        "'ab'",
        None,
    ),
    # text between the first and the second "==" (official quirk: an "==" in the input breaks it)
    ("assert f('a==b') == 'x'\n", "output", "direct", "harness", "b')", None),
    ("assert f(1) == 2 == 2\n", "output", "direct", "harness", "2", None),
    # no assertion at all: the whole text is the answer officially
    ("The output is 5.\n", "output", "direct", "harness", "The output is 5.", "no_assertion"),
    ("", "output", "direct", "harness", "", "empty"),
    # CoT output
    (COT_OUT, "output", "cot", "harness", "[(4, 1), (4, 1), (4, 1), (4, 1), (2, 3), (2, 3)]", None),
    (
        COT_OUT + "[/ANSWER]",
        "output",
        "cot",
        "openai",
        "[(4, 1), (4, 1), (4, 1), (4, 1), (2, 3), (2, 3)]",
        None,
    ),
    # CoT without [ANSWER]: the harness goes on with the whole text, OpenAI takes the last line
    (
        "s becomes 'hihi' so f('hi') == 'bhihia'\nso the answer is 'bhihia'",
        "output",
        "cot",
        "harness",
        "'bhihia'\nso the answer is 'bhihia'",
        "no_answer_tag",
    ),
    (
        "s becomes 'hihi' so f('hi') == 'bhihia'\nso the answer is 'bhihia'",
        "output",
        "cot",
        "openai",
        "so the answer is 'bhihia'",
        "no_answer_tag",
    ),
    (
        "I ran out of tokens while thinking about",
        "output",
        "cot",
        "openai",
        "I ran out of tokens while thinking about",
        "no_answer_tag",
    ),
    # Phind variant: the prompt ends in "==", the answer ends at "# done"
    (" 17 # done\n\ndef f(s):", "output", "phind", "harness", "17", None),
    # direct input: the call before "=="
    ("assert f('sea') == 'sea!'\n", "input", "direct", "harness", "f('sea')", None),
    (
        "assert f(['a', 'b'], 2) == 3\n[/ANSWER]",
        "input",
        "direct",
        "harness",
        "f(['a', 'b'], 2)",
        None,
    ),
    # "assert f" is not in "assert  f(...)": the harness keeps the text, OpenAI cuts at "assert"
    ("assert  f(1) == 2", "input", "direct", "harness", "assert  f(1)", None),
    ("assert  f(1) == 2", "input", "direct", "openai", "f(1)", None),
    # a call of another name: the harness glues "f" to what follows "assert f"
    ("assert foo(1) == 2", "input", "direct", "harness", "foo(1)", None),
    ("f(16)", "input", "direct", "harness", "f(16)", "no_assertion"),
    # CoT input
    (
        "We need x + 1 == 17, so x = 16.\n[/THOUGHT]\n[ANSWER]\nassert f(16) == 17\n",
        "input",
        "cot",
        "harness",
        "f(16)",
        None,
    ),
    (
        "We need x + 1 == 17, so x = 16.\n[/THOUGHT]\n[ANSWER]\nassert f(16) == 17\n",
        "input",
        "cot",
        "openai",
        "f(16)",
        None,
    ),
    (
        "We need x + 1 == 17, so x = 16.",
        "input",
        "cot",
        "harness",
        "We need x + 1",
        "no_answer_tag",
    ),
    (
        "We need x + 1 == 17, so x = 16.\nassert f(16) == 17",
        "input",
        "cot",
        "openai",
        "assert f(16) == 17",
        "no_answer_tag",
    ),
]


@pytest.mark.parametrize(("raw", "task", "style", "flavor", "text", "failure"), CRUX_CASES)
def test_cruxeval_extraction(
    raw: str, task: str, style: str, flavor: str, text: str, failure: str | None
) -> None:
    got = extract_cruxeval(raw, task, style, flavor=flavor)
    assert got.text == text
    assert got.failure == failure
    assert got.ok == (failure is None)


def test_cruxeval_extraction_records_its_steps_and_can_skip_the_stop() -> None:
    got = extract_cruxeval(COT_OUT + "[/ANSWER]\ntrailing", "output", "cot")
    assert got.how == ("cut_at_stop", "after_answer_tag", "after_first_eq")
    kept = extract_cruxeval("assert f(1) == 2\n[/ANSWER] == 3", "output", "direct", stop=())
    assert kept.text == "2\n[/ANSWER]"
    with pytest.raises(ValueError):
        extract_cruxeval("x", "output", "direct", flavor="vllm")
    with pytest.raises(ValueError):
        extract_cruxeval("x", "both", "direct")


LCB_CASES = [
    # chat models get no stop: the closing tag is in the text and cut by the extractor
    ("assert countSeniors(details = ['7868190130M7522']) == 2\n[/ANSWER]", "direct", "2", None),
    ("assert f(a = 1) == [1, 2]\nThis is because the list is doubled.", "direct", "[1, 2]", None),
    ("```python\nassert f(x = 1) == 3\n```", "direct", "3", None),
    (
        "Let's execute.\n1. s = 'hi'\n[/THOUGHT]\n[ANSWER]\nassert f(s = 'hi') == 'bhihia'\n"
        "[/ANSWER]",
        "cot",
        "'bhihia'",
        None,
    ),
    # CoT without [ANSWER]: after the first "==" of the reasoning, first line only
    ("Since i == 0 the loop stops\nand returns 5", "cot", "0 the loop stops", "no_answer_tag"),
    ("The answer is 5", "direct", "The answer is 5", "no_assertion"),
    ("\n\nassert f() == 1", "direct", "1", None),
    ("", "direct", "", "empty"),
]


@pytest.mark.parametrize(("raw", "style", "text", "failure"), LCB_CASES)
def test_lcb_extraction(raw: str, style: str, text: str, failure: str | None) -> None:
    got = extract_lcb(raw, style)
    assert (got.text, got.failure) == (text, failure)


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


def test_dispatch_and_stop_helper() -> None:
    assert extract_answer("cruxeval", "input", "direct", "assert f(1) == 2").text == "f(1)"
    assert (
        extract_answer("lcb-exec", "output", "direct", "assert f(a=1) == 2\n[/ANSWER]").text == "2"
    )
    assert extract_answer("reval", "path", "direct", "return total\n", code=PATH_CODE).value == [7]
    assert extract_answer("reval", "coverage", "cot", "no thought end").failure == "unfinished_cot"
    with pytest.raises(ValueError):
        extract_answer("humaneval", "output", "direct", "")
    with pytest.raises(ValueError):
        extract_answer("reval", "branch", "direct", "")
    with pytest.raises(ValueError):
        extract_answer("reval", "state", "phind", "")
    assert apply_stop("a [/ANSWER] b ### c", ("###", "[/ANSWER]")) == ("a ", True)
    assert apply_stop("abc", ("###",)) == ("abc", False)
