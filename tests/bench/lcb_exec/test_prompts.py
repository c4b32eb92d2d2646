"""LiveCodeBench code-execution prompts equal the official ones, character for character.

Expected strings are written out here from lcb_runner/prompts/code_execution.py,
independently of the templates; its instructions are CRUXEval's, word for word, so they
are ``output_prompt_text``'s (tests/bench/conftest.py): the ``*_REST`` constants are what
follows them.
"""

from __future__ import annotations

from typing import Any

import pytest

from execlens.bench import BenchmarkError, get_benchmark
from execlens.bench.lcb_exec import render_lcb
from execlens.tasks.prompts import PromptInputError


def _lines(*lines: str) -> str:
    return "\n".join(lines)


# ---------------------------------------------------------------- LiveCodeBench

LCB_CODE = _lines(
    "def countSeniors(details: List[str]) -> int:",
    "    return sum(int(d[11:13]) > 60 for d in details)",
)
LCB_INPUT = 'countSeniors(details = ["7868190130M7522", "5303914400F9211"])'

LCB_DIRECT_REST = _lines(
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

LCB_COT_REST = _lines(
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


@pytest.mark.parametrize(("style", "text"), [("direct", LCB_DIRECT_REST), ("cot", LCB_COT_REST)])
def test_lcb_prompt_is_official_text(output_prompt_text: Any, style: str, text: str) -> None:
    prompt = render_lcb(style, code=LCB_CODE, input=LCB_INPUT, sample_id="sample_7")
    assert prompt.text == output_prompt_text.prompt(style, text)
    assert prompt.messages()[0] == {"role": "system", "content": output_prompt_text.SYSTEM}
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
