"""CodeMind prompts: IER (scripts/create_prompt_ier.py) and SR (scripts/create_prompt_sr.py).

CodeMind has one prompt per model family; execlens renders the one its chat models
(``gpt-*``/CodeQwen: ``create_prompt_gpt_codeqwen``) get, text for text, built by the
same concatenation and ``str.replace`` chain as upstream.

Deviations, all forced by upstream's state at d55bbc1 or by the chat protocol:

* **ClassEval IER**: ``create_prompt_ier.py`` has no ClassEval branch (``prompt`` is never
  bound: UnboundLocalError).  ClassEval's inputs are calls (``Test.test()``), so its
  prompt takes the function-call branch HumanEval and MBPP take ("What would be the
  return value of ```Test.test()```?", the ``sum_of_integer`` example);
* **the message**: upstream's ``chatgpt_generator`` sends the whole prompt as the
  *system* message; here it is the user message and there is no system message (the
  runner always sends the prompt as a user turn);
* **SR** uses HumanEval's branch (no signature line: the prompt's ``def`` holds it);
  style ``test`` adds ``asserts.txt`` as upstream's ``--use_test`` does.

Sampling as upstream's chat runner: greedy (T = 0), one sample, 1024 tokens
(``chatgpt_generator``'s ``max_len``), no stop strings.
"""

from __future__ import annotations

from execlens.tasks.prompts import PromptInputError, RenderedPrompt, SamplingDefaults

__all__ = ["IER_STYLES", "IER_TASKS", "SR_STYLES", "codemind_sampling", "render_ier", "render_sr"]

#: Data part -> its IER task.
IER_TASKS = {"humaneval": "ier-humaneval", "crux": "ier-cruxeval", "classeval": "ier-classeval"}

IER_STYLES = ("direct",)
"""One IER prompt: the chat-model prompt (an analysis, then the output).  Named
``direct`` because it is CodeMind's only prompt and the CLI's default style."""
SR_STYLES = ("direct", "test")
"""SR without (``direct``, upstream's ``no_test``) or with the tests (``--use_test``)."""

# --- scripts/create_prompt_ier.py, verbatim ------------------------------------------

_EXAMPLE_PYTHON_FUNCTION = '''
def sum_of_integer(N, A, B):
    sum_1 = 0
    for i in range(1,N+1):
        sum_order = 0
        i_str = str(i)
        n = len(i_str)
        for j in range(0,n):
            sum_order += int(i_str[j])
        if A <= sum_order <= B:
            sum_1 += i
    return sum_1
'''

_EXAMPLE_PYTHON_CRUXEVAL = '''
def f(s):
    return s + "a"
'''

_FORMAT_REQUIREMENT = """
First analyze step by step about how the code processes the input to generate the output. 
Then print the output of the code based on your analysis.

Follow the following format:
<<<Analysis>>>
{YOUR ANALYSIS}
<<<Output>>>
{OUTPUT}
[END-OF-RESPONSE]
"""  # the first line ends in a space, as upstream's does

_EXAMPLE_REASONING_PYTHON = """
<<<Analysis>>>
The variable N, variable A and variable B are initialized to 20, 2 and 5, respectively.
variable sum_1 is initialized to 0, which will be used to accumulate the sum of numbers meeting the condition.
The code then enters a loop that iterates from 1 to N (inclusive), meaning it will consider numbers from 1 to 20.
For each number i in this range, it calculates the sum of its digits and stores it in sum_order.
The code checks if sum_order is within the range [A, B], which is [2, 5] in this case. If it is, it adds the current number i to sum_1. The condition is met when i is 2,3,4,5,11,12,13,14 and 20.
After the loop finishes, the code prints the final value of sum_1, which is 84.
<<<Output>>>
84
[END-OF-RESPONSE]
"""

_EXAMPLE_REASONING_PYTHON_CRUXEVAL = """
The function f takes a string s as input and returns the concatenation of s with the string "a".
To determine the output of executing the function f on the input "hi", we need to concatenate "hi" with "a".
Therefore, the output of executing the function f on the input "hi" is "hia".
<<<Output>>>
'hia'
[END-OF-RESPONSE]
"""

_EXAMPLE_INPUT_FUNCTION = "sum_of_integer(20, 2, 5)"
_EXAMPLE_INPUT_CRUXEVAL = 'f("hi")'
_QUESTION_RETURN_VALUE = "What would be the return value of "
_INSTRUCTION = ("I want you to act as a {language} code executor. I will give you a piece of "
                "{language} code and its input. You need to think step by step and then print "
                "the output of code execution.")

# --- scripts/create_prompt_sr.py, verbatim -------------------------------------------

_SR_TEMPLATE = """Your task is to write a Python function {signature}to solve a programming problem.
You must use the same function name, signature and variable names as the example test case.
Do not generate test cases. You should only write the function.
[Formatting Instructions]
- Start your code with ```python
- End your code with ```
- In the python code, you must use exactly the same signature as the example test case.

Problem: 
```
{nl}
```
{assertion}
"""  # "Problem: " ends in a space, as upstream's does


def codemind_sampling() -> SamplingDefaults:
    """Upstream's chat runner: T = 0, one sample, 1024 tokens (``chatgpt_generator``)."""
    return SamplingDefaults(max_tokens=1024, temperature=0.0, n=1,
                            source="Intelligent-CAT-Lab/CodeMind: scripts/prompt.py "
                                   "chatgpt_generator (temp=0.0, max_len=1024)")


def _ier_text(code: str, code_input: str, part: str) -> str:
    """``create_prompt_gpt_codeqwen(code, code_input, dataset, 'Python')``."""
    template = ("<Instruction> " + "$PROMPT_INSTRUCTION$\n" + "</Instruction>\n"
                + "Below is an example:\n<Example>\nConsider the following code\n"
                + "$EXAMPLE_CODE$" + "\n[Question]\n" + "$QUESTION$" + "```"
                + "$EXAMPLE_INPUT$" + "```$?$" + _FORMAT_REQUIREMENT + "[Answer]\n"
                + "$EXAMPLE_REASONING$" + "\n</Example>\n" + "Consider the following code\n"
                + code + "\n" + "[Question]\n" + "$QUESTION$" + "```" + code_input
                + "```$?$\n" + _FORMAT_REQUIREMENT + "\n[Answer]\n")
    if part == "crux":
        example, example_input, reasoning = (_EXAMPLE_PYTHON_CRUXEVAL, _EXAMPLE_INPUT_CRUXEVAL,
                                             _EXAMPLE_REASONING_PYTHON_CRUXEVAL)
    else:  # humaneval upstream; classeval takes the same branch (see the module docstring)
        example, example_input, reasoning = (_EXAMPLE_PYTHON_FUNCTION, _EXAMPLE_INPUT_FUNCTION,
                                             _EXAMPLE_REASONING_PYTHON)
    # The same replace chain as upstream (so a program holding "$QUESTION$" is changed
    # as upstream changes it).
    return (template.replace("$PROMPT_INSTRUCTION$", _INSTRUCTION.format(language="Python"))
            .replace("$EXAMPLE_CODE$", example)
            .replace("$QUESTION$", _QUESTION_RETURN_VALUE)
            .replace("$EXAMPLE_INPUT$", example_input)
            .replace("$EXAMPLE_REASONING$", reasoning)
            .replace("$?$", "?"))


def render_ier(part: str, style: str, *, code: str, code_input: str,
               sample_id: str = "") -> RenderedPrompt:
    """CodeMind's IER prompt for ``part`` (``humaneval``, ``crux``, ``classeval``).

    ``code`` and ``code_input`` are ``main.py`` and ``input.txt`` as read from the data;
    like ``scripts/ier.py`` they lose leading and trailing newlines here.
    """
    if part not in ("humaneval", "crux", "classeval"):
        raise PromptInputError(f"CodeMind IER has no data part {part!r}")
    if style not in IER_STYLES:
        raise PromptInputError(f"CodeMind IER has no prompt style {style!r} "
                               f"(expected one of {IER_STYLES})")
    return RenderedPrompt(
        benchmark="codemind", task=IER_TASKS[part], style=style,
        text=_ier_text(code.strip("\n"), code_input.strip("\n"), part), system=None,
        stop=(), chat_stop=(), sampling=codemind_sampling(),
        template="codemind/create_prompt_ier.py:create_prompt_gpt_codeqwen",
        sample_id=sample_id)


def render_sr(style: str, *, nl: str, tests: str, sample_id: str = "") -> RenderedPrompt:
    """CodeMind's SR prompt (HumanEval): the specification, and for ``test`` the tests."""
    if style not in SR_STYLES:
        raise PromptInputError(f"CodeMind SR has no prompt style {style!r} "
                               f"(expected one of {SR_STYLES})")
    # scripts/sr.py: nl and the tests lose leading/trailing newlines; HumanEval has no
    # signature.txt, so the signature is empty.
    assertion = ("Your code should satisfy the following assertion:\n" + tests.strip("\n")
                 if style == "test" else "")
    text = _SR_TEMPLATE.format(signature="", nl=nl.strip("\n"), assertion=assertion)
    return RenderedPrompt(
        benchmark="codemind", task="sr", style=style, text=text, system=None, stop=(),
        chat_stop=(), sampling=codemind_sampling(),
        template="codemind/create_prompt_sr.py:create_prompt_gpt_codeqwen",
        sample_id=sample_id)
