"""CRUXEval answer extraction on realistic raw outputs, well-formed and malformed.

Each expected text is what the official post-processing code returns for that output
(CRUXEval inference/tasks/*_prediction.py and openai/openai_prompt.py).
"""

from __future__ import annotations

import pytest

from execlens.bench import get_benchmark
from execlens.bench.cruxeval import extract_cruxeval
from execlens.tasks.prompts import apply_stop

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
    # ``stop=None`` is the documented default (the official stop strings), not an error.
    assert extract_cruxeval(COT_OUT + "[/ANSWER]\ntrailing", "output", "cot", stop=None) == got
    with pytest.raises(ValueError):
        extract_cruxeval("x", "output", "direct", flavor="vllm")
    with pytest.raises(ValueError):
        extract_cruxeval("x", "both", "direct")


def test_the_benchmark_extracts_as_its_official_code_and_stop_helper() -> None:
    bench = get_benchmark("cruxeval")
    assert bench.extract("assert f(1) == 2", None, "input", "direct", "harness").text == "f(1)"
    assert bench.extract("assert f(1) == 2", None, "output", "direct", "openai").text == "2"
    with pytest.raises(ValueError):
        bench.extract("", None, "output", "direct", "vllm")
    assert apply_stop("a [/ANSWER] b ### c", ("###", "[/ANSWER]")) == ("a ", True)
    assert apply_stop("abc", ("###",)) == ("abc", False)
