"""Reading answers out of responses: the last [ANSWER] block, assertion sides, failures."""

from __future__ import annotations

import pytest

from execlens.bench.runtime import extract_runtime


@pytest.mark.parametrize(
    ("raw", "kind", "text"),
    [
        ("YES\n[/ANSWER]", "coverage", "YES"),  # the prompt opened the block
        ("[ANSWER]\nNO\n[/ANSWER] trailing", "coverage", "NO"),
        ("[THOUGHT]x is 3[/THOUGHT]\n[ANSWER]\nYES\n[/ANSWER]", "coverage", "YES"),
        ("[ANSWER] NO [/ANSWER] then [ANSWER]\nYES\n[/ANSWER]", "coverage", "YES"),  # the last
        ("[ANSWER]\n`return y`\n[/ANSWER]", "path", "return y"),
        ("[ANSWER]\n3; int\nmore\n[/ANSWER]", "state", "3; int"),
        ("assert f([1]) == [1, 2]\n[/ANSWER]", "output", "[1, 2]"),
        ("assert f('a==b') == 'a==b'", "output", "'a==b'"),  # '==' inside a string
        ("ZeroDivisionError\n[/ANSWER]", "output", "ZeroDivisionError"),
        ("[ANSWER]\n```python\nassert f(16) == 17\n```\n[/ANSWER]", "input", "f(16)"),
        ("f(1, b=2)\n[/ANSWER]", "input", "f(1, b=2)"),
        # A model that repeats the program first: its last assertion is the answer.
        ("[ANSWER]\ndef f(x):\n    return x + 1\nassert f(5) == 6\n[/ANSWER]", "input", "f(5)"),
    ],
)
def test_the_answer_is_read_from_the_last_block(raw: str, kind: str, text: str) -> None:
    extraction = extract_runtime(raw, kind)
    assert extraction.ok, extraction
    assert extraction.text == text


@pytest.mark.parametrize(
    ("raw", "kind", "failure"),
    [
        ("[THOUGHT]\nI think it runs.\n[/THOUGHT]", "coverage", "no_answer_block"),
        ("[ANSWER]\n[/ANSWER]", "state", "empty"),
        ("[ANSWER]\nassert f(1) != 2\n[/ANSWER]", "output", "assertion"),
        ("[ANSWER]\ndef f(x):\n    return x\n[/ANSWER]", "output", "no_assertion"),
    ],
)
def test_a_response_without_an_answer_is_named(raw: str, kind: str, failure: str) -> None:
    assert extract_runtime(raw, kind).failure == failure


def test_extraction_never_runs_the_answer() -> None:
    # An answer that would have a side effect if evaluated is only text to the judge.
    extraction = extract_runtime(
        "[ANSWER]\nassert f(1) == __import__('os').getcwd()\n[/ANSWER]", "output"
    )
    assert extraction.text == "__import__('os').getcwd()"
