"""REval prompts equal the official ones, character for character.

Expected strings are written out here from REval's prompts/*.txt, independently of the
renderer; ``test_prompt_files.py`` checks every template against every question.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from execlens.bench.reval import (
    RevalPromptInput,
    number_code_lines,
    render_reval,
    reval_setup_comment,
)
from execlens.tasks.prompts import PromptInputError

SYSTEM = (
    "You are an expert at Python programming, code execution, test case generation, and fuzzing."
)


def _lines(*lines: str) -> str:
    return "\n".join(lines)


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


def _official_fewshot(data_dir: Path, name: str) -> str:
    """The few-shot part of one of REval's prompt files: everything before the question."""
    path = data_dir / "reval" / "prompts" / name
    if not path.is_file():
        pytest.skip(f"REval's prompt files not found in {path.parent}")
    return path.read_text(encoding="utf-8").split("[PYTHON]\n{code}")[0]


@pytest.mark.parametrize("style", ["direct", "cot"])
def test_reval_output_humaneval(style: str, data_dir: Path) -> None:
    prompt = render_reval("output", style, HE_ITEM)
    end = "[ANSWER]" if style == "direct" else "[THOUGHT]"
    fewshot = _official_fewshot(data_dir, f"{style}_output.txt")
    if style == "direct":
        assert fewshot == REVAL_OUTPUT_DIRECT_FEWSHOT
    assert prompt.text == fewshot + f"[PYTHON]\n{HE_CODE}\n\nassert f(1, 5) == ??\n[/PYTHON]\n{end}"


def test_reval_cot_coverage_is_the_official_file(data_dir: Path) -> None:
    # Earlier versions reconstructed cot_coverage.txt; REval's own file is used now.
    text = render_reval("coverage", "cot", HE_ITEM, lineno=4).text
    assert text.startswith(_official_fewshot(data_dir, "cot_coverage.txt"))
    assert text.endswith(
        f"[PYTHON]\n{HE_CODE}\nf(1, 5)\n[/PYTHON]\n[QUESTION]\n"
        "Is Line 4 (        return c) executed when f(1, 5) is called?\n[/QUESTION]\n[THOUGHT]"
    )


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
