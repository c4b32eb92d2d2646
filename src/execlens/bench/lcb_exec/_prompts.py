"""LiveCodeBench code-execution prompts.

Source: LiveCodeBench/LiveCodeBench, lcb_runner/prompts/code_execution.py.

CRUXEval's output prompts with renamed functions and keyword-argument few-shots; the query
is ``assert <input> == ??`` where ``input`` is the dataset's full call (``f(a = 1)``).
"""

from __future__ import annotations

from pathlib import Path

from execlens.tasks.prompts import (
    EXECUTION_SYSTEM,
    PromptInputError,
    RenderedPrompt,
    SamplingDefaults,
    render_template_from,
)

__all__ = ["LCB_SYSTEM", "lcb_sampling", "render_lcb"]

#: format_prompt_execution_base's system_message (the same sentence as CRUXEval's).
LCB_SYSTEM = EXECUTION_SYSTEM

_TEMPLATES = Path(__file__).resolve().parent / "templates"


def lcb_sampling() -> SamplingDefaults:
    """Official defaults (lcb_runner/runner/parser.py): n 10, T 0.2, top_p 0.95, max_tokens 2000."""
    return SamplingDefaults(
        max_tokens=2000,
        temperature=0.2,
        top_p=0.95,
        n=10,
        source="LiveCodeBench/LiveCodeBench: lcb_runner/runner/parser.py",
    )


def render_lcb(style: str, *, code: str, input: str, sample_id: str = "") -> RenderedPrompt:  # noqa: A002
    """Render a LiveCodeBench code-execution prompt (``style`` ``"direct"`` or ``"cot"``).

    Stop strings: the completion runners send ``--stop`` (default ``###``); the OpenAI chat
    runner sends none ("stop is only used for base models currently", oai_runner.py).
    """
    if style not in ("direct", "cot"):
        raise PromptInputError(
            f"LiveCodeBench execution has no prompt style {style!r} (expected 'direct' or 'cot')"
        )
    template = f"lcb/{style}.j2"
    return RenderedPrompt(
        benchmark="lcb-exec",
        task="output",
        style=style,
        text=render_template_from(_TEMPLATES, f"{style}.j2", code=code, input=input),
        system=LCB_SYSTEM,
        stop=("###",),
        chat_stop=(),
        sampling=lcb_sampling(),
        template=template,
        sample_id=sample_id,
    )
