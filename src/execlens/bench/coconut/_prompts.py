"""CoCoNUT's question: a numbered program, a call, the executed lines as a list.

The rules the prompt states are CoCoNUT's (``prompts.py`` upstream, as
``../shared/data/coconut/SOURCE.md`` describes them): every line carries its number as a
trailing comment; the answer is the ordered list of executed line numbers; a called
function's ``def`` line is not listed, the trace starts at its first body line; a loop
header is listed again each time it is tested, the exiting test included.  The wording
and the worked example are execlens's own (upstream has no licence: nothing is copied).
Sampling as upstream's ``generate_trace.py``: T = 0, top-p 1.0, 1024 new tokens.
"""

from __future__ import annotations

from execlens.tasks.prompts import Extraction, PromptInputError, RenderedPrompt, SamplingDefaults

from ._data import CocoItem
from ._score import extract_trace, is_concurrency

__all__ = ["STYLES", "extract_coconut", "render_coconut"]

STYLES = ("direct", "cot")

_RULES = (
    "You are given a Python program in which every line ends with its line number as a "
    "comment (# N), and a way to run it. List the numbers of the lines that are executed, "
    "in the order they run, as a Python list on one line.\n"
    "Rules: when a function is called, its signature line (def ...) is not listed; start "
    "with the first line of its body. A loop header is listed each time the loop tests "
    "it, including the last test that ends the loop.{concurrency}\n\n"
    "Example:\n"
    "def count_down(n):  # 1\n"
    "    while n > 0:  # 2\n"
    "        n -= 1  # 3\n"
    "    return 'done'  # 4\n"
    "Call: count_down(2)\n"
    "Executed lines: [2, 3, 2, 3, 2, 4]\n\n")
# Bare parentheses and ", " separators: the form the official match can accept (a
# re-serialised truth is compared character by character; see _score).
_CONCURRENCY = (" Where parts of the program run concurrently, enclose them in ( and ) "
                "items, written bare and separated like the numbers, for example "
                "[7, 8, (, 10, 2, 11, 2, ), 16]; any valid interleaving is accepted.")


def render_coconut(item: CocoItem, task: str, style: str) -> RenderedPrompt:
    """The question about ``item`` in ``style`` (``direct``: the list only; ``cot``:
    reasoning first, the list last)."""
    if style not in STYLES:
        raise PromptInputError(f"CoCoNUT has no prompt style {style!r} "
                               f"(expected {' or '.join(STYLES)})")
    concurrency = _CONCURRENCY if is_concurrency(item) else ""
    run = (f"Call: {item.call}" if item.call is not None
           else "Run: the program's __main__ block")
    ask = ("Think step by step, then give the list as the last line of your answer."
           if style == "cot" else "Answer with the list only.")
    text = (_RULES.format(concurrency=concurrency) + f"Program:\n{item.code.rstrip()}\n"
            f"{run}\n{ask}\nExecuted lines:")
    return RenderedPrompt(
        benchmark="coconut", task=task, style=style, text=text, system=None, stop=(),
        chat_stop=(), sampling=SamplingDefaults(max_tokens=1024, temperature=0.0, n=1,
                                                top_p=1.0, source="CoCoNUT generate_trace.py"),
        template="coconut (inline)", sample_id=item.sample_id)


def extract_coconut(raw: str) -> Extraction:
    """The last one-line ``[...]`` of the response (upstream's regex)."""
    found = extract_trace(raw)
    if not found:
        return Extraction("", ("last [...] match",), failure="no_list")
    return Extraction(found, ("last [...] match",))
