"""CRUXEval-X's Python prompt, in upstream's shape (``inference/prompt.py``), and its answer
reading (``inference/infer_vllm.py`` / ``infer_openai.py``).

Shape: an instruction, three solved examples whose answers are written
``[ANSWER]\\n<answer>\\n[/ANSWER]``, then the problem: the program cut at the harness
marker (``def check(candidate):``) followed by the reasoning tail with its ``????``,
inside a ```` ```python ```` fence.  Upstream's instruction wording and few-shot
programs are not copied (no licence): the examples below are execlens's own, written
in the same format.  Sampling as upstream's vLLM runner: T = 0, 512 tokens, stop
``[/ANSWER]``.

Reading: the vLLM runner removes ``[ANSWER]`` from the generation and strips it (the
stop string already cut ``[/ANSWER]``); the OpenAI runner keeps the text after the last
``[ANSWER]`` and removes ``[/ANSWER``.  Chat endpoints (``flavor="openai"``) read the
second way, completions (``"harness"``) the first.
"""

from __future__ import annotations

from execlens.tasks.prompts import Extraction, PromptInputError, RenderedPrompt, SamplingDefaults

from ._data import HARNESS_MARKER

__all__ = ["STYLES", "extract_cruxeval_x", "render_cruxeval_x"]

STYLES = ("direct",)

_INSTRUCTIONS = {
    "output": ("Below is a Python program and the start of its test. Replace the \"????\" in "
               "the assert statement with the literal value the call returns, so that the "
               "assertion holds. Write only that value between [ANSWER] and [/ANSWER], as in "
               "the examples.\n\n"),
    "input": ("Below is a Python program and the start of its test. Find any input such "
              "that executing f on it gives the output in the assert statement. Express your "
              "answer as a function call that replaces \"candidate(????)\", between [ANSWER] "
              "and [/ANSWER], as in the examples.\n\n"),
}

# execlens's own few-shot programs: (head, output tail, input tail, output answer, input answer)
_EXAMPLES = [
    ("def f(word: str) -> str:\n    return word[::-1] + word[0]\n\n",
     "    assert candidate('abc') == ????\n", "    assert candidate(????) == 'cbaa'\n",
     "'cbaa'", "f('abc')"),
    (("from typing import List\n\ndef f(xs: List[int]) -> int:\n    total = 0\n"
     "    for x in xs:\n        if x > 2:\n            total += x\n    return total\n\n"),
     "    assert candidate([1, 5, 3]) == ????\n", "    assert candidate(????) == 8\n",
     "8", "f([1, 5, 3])"),
    (("from typing import Dict\n\ndef f(d: Dict[str, int], key: str) -> bool:\n"
     "    d[key] = d.get(key, 0) + 1\n    return d[key] > 1\n\n"),
     "    assert candidate({'a': 1}, 'a') == ????\n", "    assert candidate(????) == True\n",
     "True", "f({'a': 1}, 'a')"),
]
_HARNESS_END = "\ndef test_check():\n    check(f)\n\ntest_check()\n"


def _block(head: str, tail: str) -> str:
    return f"```python\n{head}{HARNESS_MARKER}\n{tail}{_HARNESS_END}```\n"


def _text(task: str, head: str, tail: str) -> str:
    parts = [_INSTRUCTIONS[task]]
    for ex_head, out_tail, in_tail, out_answer, in_answer in _EXAMPLES:
        tail_ = out_tail if task == "output" else in_tail
        answer = out_answer if task == "output" else in_answer
        parts.append(_block(ex_head, tail_) + f"[ANSWER]\n{answer}\n[/ANSWER]\n\n")
    # upstream: code cut at the marker + the reasoning tail (which starts at the marker)
    parts.append(f"```python\n{head}{tail}\n```\n")
    return "".join(parts)


def render_cruxeval_x(task: str, style: str, *, head: str, tail: str,
                      sample_id: str = "") -> RenderedPrompt:
    """The prompt of one record: ``head`` = code before the marker, ``tail`` = the
    record's ``input_reasoning``/``output_reasoning``."""
    if task not in _INSTRUCTIONS:
        raise PromptInputError(f"CRUXEval-X has no task {task!r} (expected output or input)")
    if style not in STYLES:
        raise PromptInputError(f"CRUXEval-X has no prompt style {style!r} (expected direct)")
    return RenderedPrompt(
        benchmark="cruxeval-x", task=task, style=style, text=_text(task, head, tail),
        system=None, stop=("[/ANSWER]",), chat_stop=("[/ANSWER]",),
        sampling=SamplingDefaults(max_tokens=512, temperature=0.0, n=1,
                                  source="CRUXEVAL-X/cruxeval-x inference/infer_vllm.py "
                                         "(temperature 0, max_tokens 512, stop [/ANSWER])"),
        template="cruxeval-x/inference/prompt.py (shape; execlens's own examples)",
        sample_id=sample_id)


def extract_cruxeval_x(raw: str, flavor: str) -> Extraction:
    """The answer upstream's runner hands to its judge."""
    if flavor == "openai":
        found = "[ANSWER]" in raw
        text = raw.split("[ANSWER]")[-1].replace("[/ANSWER", "").strip()
        how: tuple[str, ...] = ("after_last_answer_tag", "close_tag_removed")
        failure = None if found else "no_answer_tag"
    else:
        text = raw.split("[/ANSWER]")[0].replace("[ANSWER]", "").strip()
        how = ("answer_tag_removed",)
        failure = None
    if not text:
        failure = failure or "empty"
    return Extraction(text=text, how=how, failure=failure)
