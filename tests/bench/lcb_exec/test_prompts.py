"""LiveCodeBench code-execution prompts equal the official ones, character for character.

Expected strings are written out here from lcb_runner/prompts/code_execution.py,
independently of the templates.
"""

from __future__ import annotations

import pytest

from execlens.bench import BenchmarkError, get_benchmark
from execlens.bench.lcb_exec import render_lcb
from execlens.tasks.prompts import PromptInputError

SYSTEM = (
    "You are an expert at Python programming, code execution, test case generation, and fuzzing."
)


def _lines(*lines: str) -> str:
    return "\n".join(lines)


# ---------------------------------------------------------------- LiveCodeBench

LCB_CODE = _lines(
    "def countSeniors(details: List[str]) -> int:",
    "    return sum(int(d[11:13]) > 60 for d in details)",
)
LCB_INPUT = 'countSeniors(details = ["7868190130M7522", "5303914400F9211"])'

LCB_DIRECT = _lines(
    "You are given a Python function and an assertion containing an input to the function. "
    "Complete the assertion "
    "with a literal (no unsimplified expressions, no function calls) containing the output "
    "when executing the "
    "provided code on the given input, even if the function is incorrect or incomplete. "
    "Do NOT output any extra "
    "information. Provide the full assertion with the correct output in [ANSWER] and [/ANSWER] "
    "tags, following "
    "the examples.",
    "",
    "[PYTHON]",
    "def repeatNumber(number : int) -> int:",
    "    return number",
    "assert repeatNumber(number = 17) == ??",
    "[/PYTHON]",
    "[ANSWER]",
    "assert repeatNumber(number = 17) == 17",
    "[/ANSWER]",
    "",
    "[PYTHON]",
    "def addCharacterA(string : str) -> str:",
    '    return string + "a"',
    'assert addCharacterA(string = "x9j") == ??',
    "[/PYTHON]",
    "[ANSWER]",
    'assert addCharacterA(string = "x9j") == "x9ja"',
    "[/ANSWER]",
    "",
    "[PYTHON]",
    LCB_CODE,
    f"assert {LCB_INPUT} == ??",
    "[/PYTHON]",
    "[ANSWER]",
    "",
)

LCB_COT = _lines(
    "You are given a Python function and an assertion containing an input to the function. "
    "Complete the assertion "
    "with a literal (no unsimplified expressions, no function calls) containing the output "
    "when executing the "
    "provided code on the given input, even if the function is incorrect or incomplete. "
    "Do NOT output any extra "
    "information. Execute the program step by step before arriving at an answer, and provide "
    "the full assertion "
    "with the correct output in [ANSWER] and [/ANSWER] tags, following the examples.",
    "",
    "[PYTHON]",
    "def performOperation(s):",
    "    s = s + s",
    '    return "b" + s + "a"',
    'assert performOperation(s = "hi") == ??',
    "[/PYTHON]",
    "[THOUGHT]",
    "Let's execute the code step by step:",
    "",
    "1. The function performOperation is defined, which takes a single argument s.",
    '2. The function is called with the argument "hi", so within the function, s is initially '
    '"hi".',
    '3. Inside the function, s is concatenated with itself, so s becomes "hihi".',
    '4. The function then returns a new string that starts with "b", followed by the value '
    "of s (which is now "
    '"hihi"), and ends with "a".',
    '5. The return value of the function is therefore "bhihia".',
    "[/THOUGHT]",
    "[ANSWER]",
    'assert performOperation(s = "hi") == "bhihia"',
    "[/ANSWER]",
    "",
    "[PYTHON]",
    LCB_CODE,
    f"assert {LCB_INPUT} == ??",
    "[/PYTHON]",
    "[THOUGHT]",
    "",
)


@pytest.mark.parametrize(("style", "expected"), [("direct", LCB_DIRECT), ("cot", LCB_COT)])
def test_lcb_prompt_is_official_text(style: str, expected: str) -> None:
    prompt = render_lcb(style, code=LCB_CODE, input=LCB_INPUT, sample_id="sample_7")
    assert prompt.text == expected
    assert prompt.messages()[0] == {"role": "system", "content": SYSTEM}
    # completion runners stop at ###; the chat runner sends no stop at all
    assert prompt.stop == ("###",) and prompt.chat_stop == ()
    assert (
        prompt.sampling.max_tokens,
        prompt.sampling.temperature,
        prompt.sampling.top_p,
        prompt.sampling.n,
    ) == (2000, 0.2, 0.95, 10)


def test_lcb_bad_style_and_tasks_are_named_errors() -> None:
    with pytest.raises(PromptInputError):
        render_lcb("phind", code=LCB_CODE, input=LCB_INPUT)
    bench = get_benchmark("lcb-exec")
    assert list(bench.tasks) == ["output"] and bench.tasks["output"].styles == ("direct", "cot")
    with pytest.raises(BenchmarkError, match="unknown benchmark 'humaneval'"):
        get_benchmark("humaneval")
