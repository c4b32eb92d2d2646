"""CoverageEval's zero-shot prompt (microsoft/coverage-eval ``experiments/inference.py``).

The system message is ``inference.py``'s ``system`` (lines 15-37) verbatim, typos and
the two spaces in ``-m  pytest`` included; the user message is the terminal transcript
of ``experiments/inputs/zero_shot.jsonl``'s ``input`` (a test renders all 538 and
compares).  GPT-4/3.5 got both as chat messages; PaLM got ``system + "\\n\\n" + input``
as one completion prompt with stops ``(anaconda3-2020.11)`` and ``def test()``.
"""

from __future__ import annotations

from execlens.tasks.prompts import PromptInputError, RenderedPrompt, SamplingDefaults

from ._data import CoverageEvalTest

__all__ = ["COVERAGE_EVAL_SYSTEM", "STYLES", "coverage_eval_sampling", "render_coverage_eval",
           "user_message"]

#: ``direct`` is the paper's zero-shot prompt (the name every benchmark's default
#: prompt has, so ``execlens eval`` needs no ``--prompt``).
STYLES = ("direct",)

COVERAGE_EVAL_SYSTEM = """You are a terminal.

Instruction:

When use runs:

`coverage run -m  pytest code.py`

then you'll cat the file `code.py`, with each line starting with either of the two symbols below:

> if the line is executed
! is the line is not executed


Example output:

> line1
! line2
> line3
...
> linen

You job is to figure out which line will be executed given different test cases.
"""

_SHELL = "(anaconda3-2020.11) ➜ "


def user_message(method: str, test: str) -> str:
    """The user turn: ``cat code.py``, ``cat test.py``, then the coverage command."""
    return (f"\n\n{_SHELL}cat code.py\n{method}\n\n{_SHELL}cat test.py\n{test}\n\n"
            f"{_SHELL}coverage run -m  pytest test.py\n")


def coverage_eval_sampling() -> SamplingDefaults:
    """``inference.py``'s GPT settings: greedy (T = 0), 1,000 tokens, one sample.

    Upstream also sends ``top_p=0``; it is left unset here because OpenAI-compatible
    servers such as vLLM refuse 0, and at T = 0 it changes nothing.
    """
    return SamplingDefaults(max_tokens=1000, temperature=0.0, top_p=None, n=1,
                            source="microsoft/coverage-eval: experiments/inference.py gpt()")


def render_coverage_eval(item: CoverageEvalTest, style: str = "direct") -> RenderedPrompt:
    """The zero-shot prompt of one pair, with the method upstream showed
    (:attr:`CoverageEvalTest.shown_method`)."""
    if style not in STYLES:
        raise PromptInputError(f"CoverageEval has no prompt style {style!r} "
                               f"(expected one of {STYLES})")
    return RenderedPrompt(
        benchmark="coverage-eval", task="coverage", style=style,
        text=user_message(item.shown_method, item.test), system=COVERAGE_EVAL_SYSTEM,
        # PaLM's stops for a completion prompt; the chat runner sent none.
        stop=("(anaconda3-2020.11)", "def test()"), chat_stop=(),
        sampling=coverage_eval_sampling(), template="coverage_eval/zero_shot",
        sample_id=item.sample_id)
