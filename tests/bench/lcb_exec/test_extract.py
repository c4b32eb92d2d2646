"""LiveCodeBench code-execution answer extraction on realistic raw outputs.

Each expected text is what LiveCodeBench's extraction_utils.extract_execution_code
returns for that output.
"""

from __future__ import annotations

import pytest

from execlens.bench import get_benchmark
from execlens.bench.lcb_exec import extract_lcb

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


def test_the_benchmark_extracts_as_its_official_code() -> None:
    bench = get_benchmark("lcb-exec")
    raw = "assert f(a=1) == 2\n[/ANSWER]"
    assert bench.extract(raw, None, "output", "direct", "openai").text == "2"
    with pytest.raises(ValueError):
        bench.extract(raw, None, "output", "phind", "openai")
