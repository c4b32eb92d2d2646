"""Rendered prompts equal the official ones, character for character.

Expected strings are written out here from the official sources (CRUXEval prompts.py,
LiveCodeBench lcb_runner/prompts/code_execution.py, REval prompts/*.txt and the CoT
prompts REval's evaluation.py logged), independently of the templates.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from execlens.tasks.prompts import (
    CRUXEVAL_SYSTEM,
    PromptInputError,
    RevalPromptInput,
    number_code_lines,
    render_cruxeval,
    render_lcb,
    render_prompt,
    render_reval,
    reval_setup_comment,
)

SYSTEM = (
    "You are an expert at Python programming, code execution, test case generation, and fuzzing."
)


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

CRUX_DIRECT_OUTPUT = _lines(
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

CRUX_COT_OUTPUT = _lines(
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
    ("task", "style", "expected"),
    [
        ("output", "direct", CRUX_DIRECT_OUTPUT),
        ("output", "cot", CRUX_COT_OUTPUT),
        ("output", "phind", CRUX_PHIND_OUTPUT),
        ("input", "direct", CRUX_DIRECT_INPUT),
        ("input", "cot", CRUX_COT_INPUT),
    ],
)
def test_cruxeval_prompt_is_official_text(
    sample0: dict[str, str], task: str, style: str, expected: str
) -> None:
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


def test_cruxeval_chat_messages_and_sampling(sample0: dict[str, str]) -> None:
    prompt = render_cruxeval("output", "cot", code=sample0["code"], input=sample0["input"])
    assert CRUXEVAL_SYSTEM == SYSTEM
    assert prompt.messages() == [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": CRUX_COT_OUTPUT},
    ]
    assert prompt.messages(system=False) == [{"role": "user", "content": CRUX_COT_OUTPUT}]
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


def test_lcb_via_dispatch_and_bad_style() -> None:
    assert (
        render_prompt("lcb-exec", "output", "cot", code=LCB_CODE, input=LCB_INPUT).text == LCB_COT
    )
    with pytest.raises(PromptInputError):
        render_lcb("phind", code=LCB_CODE, input=LCB_INPUT)
    with pytest.raises(PromptInputError):
        render_prompt("lcb-exec", "input", "direct", code=LCB_CODE, input=LCB_INPUT)
    with pytest.raises(PromptInputError):
        render_prompt("humaneval", "output", "direct", code="x", input="y")


# ---------------------------------------------------------------- REval

HE_CODE = "def f(a, b):\n    c = a + b\n    if c > 3:\n        return c\n    return 0\n"
HE_ITEM = RevalPromptInput("humaneval", HE_CODE, "f", "(1, 5,)", "assert f(1, 5) == ??")

REVAL_COVERAGE_FEWSHOT = _lines(
    "You are given a Python function and a question on the function. Answer the question "
    "with only YES or NO, "
    "considering executing the provided code on the given input, even if the function "
    "is incorrect or incomplete. "
    "Do NOT output any extra information. Provide your answer in [ANSWER] and [/ANSWER] "
    "tags, following the "
    "examples.",
    "",
    "[PYTHON]",
    "def f(x):",
    "    if x > 2:",
    "        return x*2",
    "    else:",
    "        return x",
    "f(3)",
    "[/PYTHON]",
    "[QUESTION]",
    "Is Line 3 (        return x*2) executed when f(3) is called?",
    "[/QUESTION]",
    "[ANSWER]",
    "YES",
    "[/ANSWER]",
    "",
    "[PYTHON]",
    "class A:",
    "    def g(self, x):",
    "        if x > 2:",
    "            return self.h(x)",
    "        else:",
    "            return x",
    "",
    "    def h(self, y):",
    "        return y*2",
    "",
    "a = A()",
    "assertEqual(a.g(1), 1)",
    "[/PYTHON]",
    "[QUESTION]",
    "Is Line 9 (        return y*2) executed when the above test code is called?",
    "[/QUESTION]",
    "[ANSWER]",
    "NO",
    "[/ANSWER]",
    "",
    "",
)

_STATE_EXAMPLES = [
    (
        "f(1.1, 2)",
        "1; int",
        "1. Function f is called with arguments a=1.1 and b=2. Thus ans should be 1.1 + 2 = 3.1.\n"
        "2. Since ans is greater than 0, Line 4 is executed.\n3. At Line 4, the value "
        "of a is 1.1, so int(a) is 1. \n"
        "4. Thus ans is 1 with type int. The answer should be 1; int.",
    ),
    (
        "f(1.1, -2)",
        "Nil",
        "1. Function f is called with arguments a=1.1 and b=-2. Thus ans should be 1.1 "
        "+ (-2) = -0.9.\n"
        "2. Since ans is not greater than 0, Line 6 is executed and Line 4 is not executed.\n"
        "3. Thus the answer should be Nil.",
    ),
]


_FN = (
    "def f(a, b):\n    ans = a + b\n    if ans > 0:\n        ans = int(a)\n    else:\n"
    "        ans = b\n    return ans\n"
)


def _state_fewshot(cot: bool) -> str:
    head = (
        "You are given a Python function and a question on the function. Answer the question "
        'in "value; type" '
        "format, considering executing the provided code on the given input, even if the "
        "function is incorrect or "
        "incomplete. Make sure the value is a valid Python constant and the type is a "
        "valid Python class name. There "
        "may be multiple answers, but you should only output one. Do NOT output any extra "
        "information. "
        + (
            " Think step by step. Your thoughts should be concise and contain no more "
            "than 10 steps. For loop "
            "logics, express your thoughts without detailing each iteration. "
            if cot
            else ""
        )
        + "Provide your answer in [ANSWER] and [/ANSWER] tags, following the examples.\n\n"
    )
    fn = _FN
    out = head
    for call, answer, thought in _STATE_EXAMPLES:
        out += (
            f"[PYTHON]\n{fn}\n{call}\n[/PYTHON]\n[QUESTION]\n"
            f"Is Line 4 (        ans = int(a)) executed when {call} "
            "is called? If so, what is the value and type of the variable ans after Line "
            "4 is executed? If not, "
            "answer Nil.\n[/QUESTION]\n"
        )
        if cot:
            out += f"[THOUGHT]\n{thought}\n[/THOUGHT]\n"
        out += f"[ANSWER]\n{answer}\n[/ANSWER]\n\n"
    out += (
        "[PYTHON]\nclass A:\n    def __init__(self):\n        self.x = []\n    \n    def "
        "f(self, y):\n"
        "        self.x.append(y)\n        return y\n\na = A()\nassertEqual(a.f('a'), "
        "'a')\n[/PYTHON]\n"
        "[QUESTION]\nIs Line 6 (        self.x.append(y)) executed when the above test "
        "code is called? If so, "
        "what is the value and type of the variable self.x after Line 6 is executed? If "
        "not, answer Nil.\n"
        "[/QUESTION]\n"
    )
    if cot:
        out += (
            "[THOUGHT]\n1. The test code creates an instance of class A, and self.x is "
            "an empty list initially.\n"
            "2. The method f is called with argument y='a'.\n3. Then Line 6 is executed, "
            "appending 'a' to self.x.\n"
            "4. Thus the value of self.x is ['a'] with type list. The answer should be "
            "['a']; list.\n[/THOUGHT]\n"
        )
    return out + "[ANSWER]\n['a']; list\n[/ANSWER]\n\n"


def _path_fewshot(cot: bool) -> str:
    head = (
        "You are given a Python function and a question on the function. Answer the question "
        "with only one line of "
        "code, considering executing the provided code on the given input, even if the "
        "function is incorrect or "
        "incomplete. Do NOT output any extra information. "
        + (
            "Think step by step. Your thoughts should be concise and contain no more than "
            "10 steps. For loop logics, "
            "express your thoughts without detailing each iteration. "
            if cot
            else ""
        )
        + "Provide your answer in [ANSWER] and [/ANSWER] tags, following the examples.\n\n"
    )
    fn = _FN
    question = (
        "answer with the next line of code to be executed inside the function. Do NOT "
        "answer lines in the test "
        "code. If not or program terminates after this line, answer with -1.\n[/QUESTION]\n"
    )
    thoughts = [
        "1. Function f is called with arguments a=1.1 and b=2. Thus ans should be 1.1 "
        "+ 2 = 3.1.\n2. Since ans is "
        "greater than 0, line `ans = int(a)` is executed.\n3. After this line, the program "
        "jumps out of the if block "
        "and returns ans. Thus, the answer should be return ans.",
        "1. Function f is called with arguments a=1.1 and b=-2. Thus ans should be 1.1 "
        "- 2 = -0.9.\n2. Since ans is "
        "not greater than 0, line `ans = b` is executed, while line `ans = int(a)` is "
        "not executed.\n3. Thus the "
        "answer should be -1.",
        "1. Method f is called with argument x=3. Thus z should be self.g(3).\n2. When "
        "`self.g(3)` is called, the "
        "program jumps to method g with argument y=3.\n3. The first line of method g is "
        "`return y*2`. Thus the "
        "answer should be return y*2.",
    ]
    out = head
    for call, answer, thought in (
        ("f(1.1, 2)", "return ans", thoughts[0]),
        ("f(1.1, -2)", "-1", thoughts[1]),
    ):
        out += (
            f"[PYTHON]\n{fn}\n{call}\n[/PYTHON]\n[QUESTION]\n"
            "If the line `        ans = int(a)` is executed when "
            f"{call} is called, " + question
        )
        out += (
            f"[THOUGHT]\n{thought}\n[/THOUGHT]\n" if cot else ""
        ) + f"[ANSWER]\n{answer}\n[/ANSWER]\n\n"
    out += (
        "[PYTHON]\nclass A:\n    def f(self, x):\n        z = self.g(x)\n        return z\n    \n"
        "    def g(self, y):\n        return y*2\n\na = A()\nassertEqual(a.f(3), 6)\n[/PYTHON]\n"
        "[QUESTION]\n"
        "If the line `        z = self.g(x)` is executed when the above test code is called, "
        + question
    )
    out += (
        f"[THOUGHT]\n{thoughts[2]}\n[/THOUGHT]\n" if cot else ""
    ) + "[ANSWER]\nreturn y*2\n[/ANSWER]\n\n"
    return out


REVAL_OUTPUT_DIRECT_FEWSHOT = (
    "You are given a Python function and test code containing inputs to the function. "
    "Complete the assertion in the "
    "test code by just replacing the question marks with your answers, considering executing "
    "the provided code on "
    "the given input, even if the function is incorrect or incomplete. Do NOT output any "
    "extra information. Do NOT "
    "modify any other parts of the test code. Provide your answer as the completed code "
    "snippet in [ANSWER] and "
    "[/ANSWER] tags, following the examples.\n\n"
    '[PYTHON]\ndef g(s):\n    return s + "a"\n\nassert g("x9j") == ??\n[/PYTHON]\n[ANSWER]\n'
    'assert g("x9j") == "x9ja"\n[/ANSWER]\n\n'
    "[PYTHON]\nclass A:\n    def __init__(self, x):\n        self.x = x\n\n    def f(self, y):\n"
    "        return self.x + y\n\n# Test code starts here. Only write the completed test "
    "code in your answer.\n"
    "a = A(3)\nassertEqual(a.f(2), ??)\nassertEqual(a.f(4), ??)\n[/PYTHON]\n[ANSWER]\na = A(3)\n"
    "assertEqual(a.f(2), 5)\nassertEqual(a.f(4), 7)\n[/ANSWER]\n\n"
)

REVAL_OUTPUT_COT_FEWSHOT = (
    "You are given a Python function and test code containing inputs to the function. "
    "Complete the assertion in the "
    "test code by just replacing the question marks with your answers, considering executing "
    "the provided code on "
    "the given input, even if the function is incorrect or incomplete. Do NOT output any "
    "extra information. Do NOT "
    "modify any other parts of the test code. Think step by step. Your thoughts should "
    "be concise and contain no "
    "more than 10 steps. For loop logics, express your thoughts without detailing each "
    "iteration. Provide your "
    "answer as the completed code snippet in [ANSWER] and [/ANSWER] tags, following the "
    "example.\n\n"
    '[PYTHON]\ndef g(s):\n    return s + "a"\n\nassert g("x9j") == ??\n[/PYTHON]\n[THOUGHT]\n'
    "1. The function g is defined, which takes a single argument s. Then g is called with "
    'argument s="x9j".\n'
    '2. In the function, s is concatenated with "a" and returned.\n'
    '3. Thus the return value should be "x9ja", and the question marks should be replaced '
    'with "x9ja".\n'
    '[/THOUGHT]\n[ANSWER]\nassert g("x9j") == "x9ja"\n[/ANSWER]\n\n'
)


def test_reval_direct_coverage_humaneval() -> None:
    prompt = render_reval("coverage", "direct", HE_ITEM, lineno=4, sample_id="x/0/0")
    assert prompt.text == REVAL_COVERAGE_FEWSHOT + (
        f"[PYTHON]\n{HE_CODE}\nf(1, 5)\n[/PYTHON]\n[QUESTION]\n"
        "Is Line 4 (        return c) executed when f(1, 5) is called?\n[/QUESTION]\n[ANSWER]"
    )
    assert prompt.stop == prompt.chat_stop == ("[/ANSWER]",)
    assert prompt.system == SYSTEM
    assert (prompt.sampling.max_tokens, prompt.sampling.temperature, prompt.sampling.n) == (
        256,
        0.8,
        1,
    )


@pytest.mark.parametrize("cot", [False, True])
def test_reval_state_humaneval(cot: bool) -> None:
    prompt = render_reval("state", "cot" if cot else "direct", HE_ITEM, lineno=2, var="c")
    tail = (
        f"[PYTHON]\n{HE_CODE}\nf(1, 5)\n[/PYTHON]\n[QUESTION]\n"
        "Is Line 2 (    c = a + b) executed when f(1, 5) is "
        "called? If so, what is the value and type of the variable c after Line 2 is executed? "
        "If not, answer "
        "Nil.\n[/QUESTION]\n" + ("[THOUGHT]" if cot else "[ANSWER]")
    )
    assert prompt.text == _state_fewshot(cot) + tail
    assert prompt.sampling.max_tokens == (1024 if cot else 256)


@pytest.mark.parametrize("cot", [False, True])
def test_reval_path_humaneval_numbers_lines(cot: bool) -> None:
    prompt = render_reval("path", "cot" if cot else "direct", HE_ITEM, lineno=3)
    numbered = (
        "1\tdef f(a, b):\n2\t    c = a + b\n3\t    if c > 3:\n4\t        return c\n"
        "5\t    return 0\n6\t\n"
    )
    assert number_code_lines(HE_CODE) == numbered
    tail = (
        f"[PYTHON]\n{numbered}\nf(1, 5)\n[/PYTHON]\n[QUESTION]\n"
        "If the line `    if c > 3:` is executed when "
        "f(1, 5) is called, answer with the next line of code to be executed inside the "
        "function. Do NOT answer "
        "lines in the test code. If not or program terminates after this line, answer "
        "with -1.\n[/QUESTION]\n" + ("[THOUGHT]" if cot else "[ANSWER]")
    )
    assert prompt.text == _path_fewshot(cot) + tail


@pytest.mark.parametrize(
    ("style", "fewshot"),
    [("direct", REVAL_OUTPUT_DIRECT_FEWSHOT), ("cot", REVAL_OUTPUT_COT_FEWSHOT)],
)
def test_reval_output_humaneval(style: str, fewshot: str) -> None:
    prompt = render_reval("output", style, HE_ITEM)
    end = "[ANSWER]" if style == "direct" else "[THOUGHT]"
    assert prompt.text == fewshot + f"[PYTHON]\n{HE_CODE}\n\nassert f(1, 5) == ??\n[/PYTHON]\n{end}"


def test_reval_cot_coverage_reconstruction_keeps_official_frame() -> None:
    # cot_coverage.txt is not available: our reconstruction must keep direct_coverage's examples,
    # answers and question verbatim, add the CoT sentence REval's other CoT prompts use, and end
    # in [THOUGHT]
    text = render_reval("coverage", "cot", HE_ITEM, lineno=4).text
    assert text.startswith(
        "You are given a Python function and a question on the function. Answer the question "
        "with only YES or NO, "
        "considering executing the provided code on the given input, even if the function "
        "is incorrect or "
        "incomplete. Do NOT output any extra information. Think step by step. Your thoughts "
        "should be concise and "
        "contain no more than 10 steps. For loop logics, express your thoughts without "
        "detailing each iteration. "
        "Provide your answer in [ANSWER] and [/ANSWER] tags, following the examples.\n\n"
    )
    assert text.endswith(
        f"[PYTHON]\n{HE_CODE}\nf(1, 5)\n[/PYTHON]\n[QUESTION]\n"
        "Is Line 4 (        return c) executed when f(1, 5) is called?\n[/QUESTION]\n[THOUGHT]"
    )
    assert text.count("[THOUGHT]") == 3 and text.count("[/THOUGHT]") == 2
    assert "[ANSWER]\nYES\n[/ANSWER]" in text and "[ANSWER]\nNO\n[/ANSWER]" in text


CE_CODE = (
    "class Box:\n    def __init__(self):\n        self.items = []\n\n    def put(self, x):\n"
    "        self.items.append(x)\n        return len(self.items)\n"
)
CE_SETUP = "    def setUp(self):\n        self.box = Box()\n        self.box.put(1)\n"
CE_INPUT = "n = self.box.put(2)\nassertEqual(n, 2)\n"
CE_ITEM = RevalPromptInput(
    "classeval", CE_CODE, "Box", CE_INPUT, "n = self.box.put(2)\nassertEqual(n, ??)", CE_SETUP
)


def test_reval_classeval_setup_comments_in_both_official_spellings() -> None:
    # coverage/state: the first setUp body line is NOT commented (REval's own expression)
    assert reval_setup_comment(CE_SETUP, comment_first_line=False) == (
        "\n# setup code executed previously\n        self.box = Box()\n#         self.box.put(1)\n"
        "# "
    )
    # path/output: it is
    assert reval_setup_comment(CE_SETUP, comment_first_line=True) == (
        "\n# setup code executed previously\n#         self.box = Box()\n#         self.box.put(1)"
        "\n# "
    )
    assert reval_setup_comment(None, comment_first_line=True) == ""
    unittest_own = (
        "    def setUp(self):\n"
        '        "Hook method for setting up the test fixture before exercising it."\n'
        "        pass\n"
    )
    assert reval_setup_comment(unittest_own, comment_first_line=False) == ""


def test_reval_classeval_coverage_and_path_and_output() -> None:
    cov = render_reval("coverage", "direct", CE_ITEM, lineno=6)
    assert cov.text == REVAL_COVERAGE_FEWSHOT + (
        f"[PYTHON]\n{CE_CODE}\n"
        "\n# setup code executed previously\n        self.box = Box()\n#         self.box.put(1)\n"
        "# \n"
        "n = self.box.put(2)\nassertEqual(n, 2)\n[/PYTHON]\n[QUESTION]\n"
        "Is Line 6 (        self.items.append(x)) executed when the above test code is "
        "called?\n[/QUESTION]\n[ANSWER]"
    )
    path = render_reval("path", "direct", CE_ITEM, lineno=6)
    assert path.text == _path_fewshot(False) + (  # ClassEval code is shown without line numbers
        f"[PYTHON]\n{CE_CODE}\n"
        "\n# setup code executed previously\n#         self.box = Box()\n#         self.box.put(1)"
        "\n# \n"
        "n = self.box.put(2)\nassertEqual(n, 2)\n[/PYTHON]\n[QUESTION]\n"
        "If the line `        self.items.append(x)` is executed when the above test code "
        "is called, answer with the "
        "next line of code to be executed inside the function. Do NOT answer lines in "
        "the test code. If not or "
        "program terminates after this line, answer with -1.\n[/QUESTION]\n[ANSWER]"
    )
    out = render_reval("output", "direct", CE_ITEM)
    assert out.text == REVAL_OUTPUT_DIRECT_FEWSHOT + (
        f"[PYTHON]\n{CE_CODE}\n"
        "\n# setup code executed previously\n#         self.box = Box()\n#         self.box.put(1)"
        "\n# "
        "\n# Test code starts here. Only write the completed test code in your answer.\n"
        "n = self.box.put(2)\nassertEqual(n, ??)\n[/PYTHON]\n[ANSWER]"
    )


def test_reval_real_humaneval_question(data_dir: Path) -> None:
    with open(data_dir / "reval" / "DREval_data.jsonl", encoding="utf-8") as fh:
        problem = json.loads(fh.readline())
    item = RevalPromptInput(
        "humaneval", problem["code"], problem["entry_point"], problem["inputs"][0]
    )
    text = render_reval("coverage", "direct", item, lineno=17).text
    assert text.endswith(
        "    return False\n\nhas_close_elements([1.0, 2.0, 3.9, 4.0, 5.0, 2.2], 0.3)\n"
        "[/PYTHON]\n[QUESTION]\n"
        "Is Line 17 (                    return True) executed when "
        "has_close_elements([1.0, 2.0, 3.9, 4.0, 5.0, 2.2], 0.3) is called?\n[/QUESTION]\n[ANSWER]"
    )


@pytest.mark.parametrize(
    ("task", "item", "kwargs"),
    [
        ("coverage", HE_ITEM, {"lineno": 0}),
        ("coverage", HE_ITEM, {"lineno": 99}),
        ("coverage", HE_ITEM, {}),
        ("state", HE_ITEM, {"lineno": 2}),
        ("coverage", RevalPromptInput("humaneval", HE_CODE, "f", "(1, 5)"), {"lineno": 2}),
        ("output", RevalPromptInput("humaneval", HE_CODE, "f", "(1, 5,)"), {}),
        ("branch", HE_ITEM, {"lineno": 2}),
    ],
)
def test_reval_bad_requests_are_named_errors(
    task: str, item: RevalPromptInput, kwargs: dict[str, object]
) -> None:
    with pytest.raises(PromptInputError):
        render_reval(task, "direct", item, **kwargs)  # type: ignore[arg-type]


def test_reval_dispatch() -> None:
    direct = render_reval("state", "direct", HE_ITEM, lineno=2, var="c")
    assert render_prompt("reval", "state", "direct", item=HE_ITEM, lineno=2, var="c") == direct
    with pytest.raises(PromptInputError):
        render_prompt("reval", "state", "direct", lineno=2, var="c")
