"""One entry point per direction: render any benchmark's prompt, extract any benchmark's answer."""

from __future__ import annotations

from typing import Any

from ._cruxeval import render_cruxeval
from ._extract_io import extract_cruxeval, extract_lcb
from ._extract_reval import extract_reval
from ._extract_types import Extraction
from ._lcb import render_lcb
from ._reval import RevalPromptInput, render_reval
from ._types import BENCHMARKS, PromptInputError, RenderedPrompt

__all__ = ["extract_answer", "render_prompt"]


def render_prompt(benchmark: str, task: str, style: str, **fields: Any) -> RenderedPrompt:
    """Render a prompt of ``benchmark`` (``cruxeval``, ``lcb-exec``, ``reval``).

    ``fields`` are those of :func:`render_cruxeval` (code, input/output), :func:`render_lcb`
    (code, input) or :func:`render_reval` (item, lineno, var); ``sample_id`` is passed on.
    """
    if benchmark not in BENCHMARKS:
        raise PromptInputError(
            f"unknown benchmark {benchmark!r} (expected one of {sorted(BENCHMARKS)})"
        )
    if benchmark == "cruxeval":
        return render_cruxeval(task, style, **fields)
    if benchmark == "lcb-exec":
        if task != "output":
            raise PromptInputError(
                f"LiveCodeBench execution has only the 'output' task, not {task!r}"
            )
        return render_lcb(style, **fields)
    item = fields.pop("item", None)
    if not isinstance(item, RevalPromptInput):
        raise PromptInputError("REval prompts need `item=RevalPromptInput(...)`")
    return render_reval(task, style, item, **fields)


def extract_answer(benchmark: str, task: str, style: str, raw: str, **options: Any) -> Extraction:
    """Extract the answer from a raw model output exactly as ``benchmark``'s official code does.

    ``options``: CRUXEval ``flavor`` ("harness" / "openai") and ``stop``; REval ``code``
    (path), ``question`` (output) and ``stop``.
    """
    if benchmark == "cruxeval":
        return extract_cruxeval(raw, task, style, **options)
    if benchmark == "lcb-exec":
        if task != "output":
            raise ValueError(f"LiveCodeBench execution has only the 'output' task, not {task!r}")
        return extract_lcb(raw, style, **options)
    if benchmark == "reval":
        return extract_reval(raw, task, style, **options)
    raise ValueError(f"unknown benchmark {benchmark!r} (expected one of {sorted(BENCHMARKS)})")
