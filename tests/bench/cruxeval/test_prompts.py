"""CRUXEval's rendered prompts equal the official ones, character for character.

Expected strings are written out here from the official sources (CRUXEval prompts.py),
independently of the templates; the output-prediction instructions, which LiveCodeBench
repeats, are ``output_prompt_text``'s (tests/bench/conftest.py): the ``*_REST``
constants are what follows them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from execlens.bench.cruxeval import CRUXEVAL_SYSTEM, render_cruxeval
from execlens.tasks.prompts import PromptInputError


def _lines(*lines: str) -> str:
    return "\n".join(lines)


# ---------------------------------------------------------------- CRUXEval (sample_0)


@pytest.fixture(scope="module")
def sample0(data_dir: Path) -> dict[str, str]:
    with open(data_dir / "cruxeval" / "cruxeval.jsonl", encoding="utf-8") as fh:
        row = json.loads(fh.readline())
    assert row["id"] == "sample_0"
    return row


S0_CODE = _lines(
    "def f(nums):",
    "    output = []",
    "    for n in nums:",
    "        output.append((nums.count(n), n))",
    "    output.sort(reverse=True)",
    "    return output",
)

CRUX_DIRECT_OUTPUT_REST = _lines(
    "",
    "[PYTHON]",
    "def f(n):",
    "    return n",
    "assert f(17) == ??",
    "[/PYTHON]",
    "[ANSWER]",
    "assert f(17) == 17",
    "[/ANSWER]",
    "",
    "[PYTHON]",
    "def f(s):",
    '    return s + "a"',
    'assert f("x9j") == ??',
    "[/PYTHON]",
    "[ANSWER]",
    'assert f("x9j") == "x9ja"',
    "[/ANSWER]",
    "",
    "[PYTHON]",
    S0_CODE,
    "assert f([1, 1, 3, 1, 3, 1]) == ??",
    "[/PYTHON]",
    "[ANSWER]",
    "",
)

CRUX_COT_OUTPUT_REST = _lines(
    "",
    "[PYTHON]",
    "def f(s):",
    "    s = s + s",
    '    return "b" + s + "a"',
    'assert f("hi") == ??',
    "[/PYTHON]",
    "[THOUGHT]",
    "Let's execute the code step by step:",
    "",
    "1. The function f is defined, which takes a single argument s.",
    '2. The function is called with the argument "hi", so within the function, s is initially '
    '"hi".',
    '3. Inside the function, s is concatenated with itself, so s becomes "hihi".',
    '4. The function then returns a new string that starts with "b", followed by the value '
    "of s (which is now "
    '"hihi"), and ends with "a".',
    '5. The return value of the function is therefore "bhihia".',
    "[/THOUGHT]",
    "[ANSWER]",
    'assert f("hi") == "bhihia"',
    "[/ANSWER]",
    "",
    "[PYTHON]",
    S0_CODE,
    "assert f([1, 1, 3, 1, 3, 1]) == ??",
    "[/PYTHON]",
    "[THOUGHT]",
    "",
)

CRUX_PHIND_OUTPUT = _lines(
    "Based on the given Python code, which may contain errors, complete the assert statement "
    "with the output when "
    "executing the code on the given test case. Do NOT output any extra information, even "
    "if the function is "
    'incorrect or incomplete. Output "# done" after the assertion.',
    "",
    "def f(n):",
    "    return n",
    "assert f(17) == 17 # done",
    "",
    "def f(s):",
    '    return s + "a"',
    'assert f("x9j") == "x9ja" # done',
    "",
    S0_CODE,
    "assert f([1, 1, 3, 1, 3, 1]) ==",
)

S0_OUT = "[(4, 1), (4, 1), (4, 1), (4, 1), (2, 3), (2, 3)]"

CRUX_DIRECT_INPUT = _lines(
    "You will be given a function f and an output in the form f(??) == output. Find any "
    "input such that executing "
    "f on the input leads to the given output. There may be multiple answers, but you "
    "should only output one. In "
    "[ANSWER] and [/ANSWER] tags, complete the assertion with one such input that will "
    "produce the output when "
    "executing the function.",
    "",
    "[PYTHON]",
    "def f(my_list):",
    "    count = 0",
    "    for i in my_list:",
    "        if len(i) % 2 == 0:",
    "            count += 1",
    "    return count",
    "assert f(??) == 3",
    "[/PYTHON]",
    "[ANSWER]",
    'assert f(["mq", "px", "zy"]) == 3',
    "[/ANSWER]",
    "",
    "[PYTHON]",
    "def f(s1, s2):",
    "    return s1 + s2",
    'assert f(??) == "banana"',
    "[/PYTHON]",
    "[ANSWER]",
    'assert f("ba", "nana") == "banana"',
    "[/ANSWER]",
    "",
    "[PYTHON]",
    S0_CODE,
    f"assert f(??) == {S0_OUT}",
    "[/PYTHON]",
    "[ANSWER]",
    "",
)

CRUX_COT_INPUT = _lines(
    "You will be given a function f and an output in the form f(??) == output. Your task "
    "is to find any input such "
    "that executing f on the input leads to the given output. There may be multiple answers, "
    "but only output one. "
    "First, think step by step. You MUST surround the answer with [ANSWER] and [/ANSWER] "
    "tags. Express your answer "
    "as a passing assertion containing the input and the given output.",
    "",
    "[PYTHON]",
    "def f(x):",
    "    return x + 1",
    "assert f(??) == 17",
    "[/PYTHON]",
    "[THOUGHT]",
    # the two trailing spaces below are in the official text
    "To find an input such that executing f on the input leads to the given output, we "
    "can work backwards from the "
    "given assertion. We know that f(??) == 17. ",
    "",
    "Since the function f(x) returns x + 1, for f(??) to be equal to 17, the value of "
    "?? should be 16. ",
    "[/THOUGHT]",
    "[ANSWER]",
    "assert f(16) == 17",
    "[/ANSWER]",
    "",
    "[PYTHON]",
    S0_CODE,
    f"assert f(??) == {S0_OUT}",
    "[/PYTHON]",
    "[THOUGHT]",
    "",
)


@pytest.mark.parametrize(
    ("task", "style", "instruction", "text"),
    [
        ("output", "direct", "direct", CRUX_DIRECT_OUTPUT_REST),
        ("output", "cot", "cot", CRUX_COT_OUTPUT_REST),
        ("output", "phind", None, CRUX_PHIND_OUTPUT),
        ("input", "direct", None, CRUX_DIRECT_INPUT),
        ("input", "cot", None, CRUX_COT_INPUT),
    ],
)
def test_cruxeval_prompt_is_official_text(
    sample0: dict[str, str],
    output_prompt_text: Any,
    task: str,
    style: str,
    instruction: str | None,
    text: str,
) -> None:
    expected = output_prompt_text.prompt(instruction, text) if instruction else text
    prompt = render_cruxeval(
        task,
        style,
        code=sample0["code"],
        input=sample0["input"],
        output=sample0["output"],
        sample_id=sample0["id"],
    )
    assert prompt.text == expected
    assert prompt.completion == expected
    assert prompt.sample_id == "sample_0"
    assert prompt.stop == (("# done",) if style == "phind" else ("[/ANSWER]",))


def test_cruxeval_chat_messages_and_sampling(
    sample0: dict[str, str], output_prompt_text: Any
) -> None:
    prompt = render_cruxeval("output", "cot", code=sample0["code"], input=sample0["input"])
    cot_output = output_prompt_text.prompt("cot", CRUX_COT_OUTPUT_REST)
    assert CRUXEVAL_SYSTEM == output_prompt_text.SYSTEM
    assert prompt.messages() == [
        {"role": "system", "content": output_prompt_text.SYSTEM},
        {"role": "user", "content": cot_output},
    ]
    assert prompt.messages(system=False) == [{"role": "user", "content": cot_output}]
    assert (
        prompt.sampling.max_tokens == 1000
        and prompt.sampling.n == 10
        and prompt.sampling.top_p == 0.95
    )
    assert prompt.sampling.temperature == 0.2 and prompt.sampling.extra_temperatures == (0.8,)
    assert render_cruxeval("input", "direct", code="x", output="1").sampling.max_tokens == 100


def test_cruxeval_inputs_are_inserted_verbatim() -> None:
    # the argument text is not parsed or re-quoted, and braces in code are not template syntax
    code = "def f(a, b):\n    return {'{{x}}': a, '{%': b}"
    prompt = render_cruxeval("output", "direct", code=code, input="'bcksrut', 'q'")
    assert f"{code}\nassert f('bcksrut', 'q') == ??\n[/PYTHON]\n[ANSWER]\n" in prompt.text


@pytest.mark.parametrize(
    ("task", "style", "fields"),
    [
        ("input", "phind", {"code": "x", "output": "1"}),
        ("middle", "direct", {"code": "x", "input": "1"}),
        ("output", "direct", {"code": "x", "output": "1"}),
        ("input", "cot", {"code": "x", "input": "1"}),
    ],
)
def test_cruxeval_bad_requests_are_named_errors(
    task: str, style: str, fields: dict[str, str]
) -> None:
    with pytest.raises(PromptInputError):
        render_cruxeval(task, style, **fields)
