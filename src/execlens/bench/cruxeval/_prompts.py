"""CRUXEval prompts (facebookresearch/cruxeval: prompts.py, inference/tasks/*_prediction.py).

Output prediction shows ``assert f(<input>) == ??``; input prediction shows
``assert f(??) == <output>``. ``input`` is the dataset's argument-list text and is
inserted as is (``'bcksrut', 'q'``), never re-formatted.
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

__all__ = ["CRUXEVAL_SYSTEM", "STYLES", "cruxeval_sampling", "render_cruxeval"]

#: The system message of CRUXEval's OpenAI runner (openai/openai_prompt.py); LiveCodeBench
#: and REval's OpenAI runner use the same sentence.
CRUXEVAL_SYSTEM = EXECUTION_SYSTEM

_TEMPLATES = Path(__file__).resolve().parent / "templates"

STYLES = {"input": ("direct", "cot"), "output": ("direct", "cot", "phind")}


def cruxeval_sampling(style: str) -> SamplingDefaults:
    """Official generation settings: n = 10, top_p 0.95, T = 0.2 (pass@1) and 0.8 (pass@5).

    max_tokens is the OpenAI runner's (openai/openai_run.py: 100 direct, 1000 CoT); the
    vLLM runner instead caps prompt + generation at ``--max_length_generation`` (default
    1024, inference/main.py).
    """
    return SamplingDefaults(
        max_tokens=1000 if style == "cot" else 100,
        temperature=0.2,
        top_p=0.95,
        n=10,
        extra_temperatures=(0.8,),
        source="facebookresearch/cruxeval: openai/openai_run.py, inference/generation_arguments.py",
    )


def render_cruxeval(
    task: str,
    style: str,
    *,
    code: str,
    input: str | None = None,  # noqa: A002 - the dataset's field name
    output: str | None = None,
    sample_id: str = "",
) -> RenderedPrompt:
    """Render a CRUXEval prompt.

    ``task`` is ``"output"`` (needs ``input``) or ``"input"`` (needs ``output``); ``style``
    is ``"direct"``, ``"cot"`` or, for output prediction only, ``"phind"`` (the variant the
    official runner uses for Phind-CodeLlama-34B-v2, stop ``# done``).
    """
    if task not in STYLES:
        raise PromptInputError(f"CRUXEval has no task {task!r} (expected 'input' or 'output')")
    if style not in STYLES[task]:
        raise PromptInputError(
            f"CRUXEval-{task} has no prompt style {style!r} (expected one of {STYLES[task]})"
        )
    if task == "output":
        if input is None:
            raise PromptInputError("CRUXEval output prediction needs the sample's `input`")
        fields = {"code": code, "input": input}
    else:
        if output is None:
            raise PromptInputError("CRUXEval input prediction needs the sample's `output`")
        fields = {"code": code, "output": output}
    template = f"cruxeval/{style}_{task}.j2"  # as named before the move
    stop = ("# done",) if style == "phind" else ("[/ANSWER]",)
    return RenderedPrompt(
        benchmark="cruxeval",
        task=task,
        style=style,
        text=render_template_from(_TEMPLATES, f"{style}_{task}.j2", **fields),
        system=CRUXEVAL_SYSTEM,
        stop=stop,
        chat_stop=stop,
        sampling=cruxeval_sampling(style),
        template=template,
        sample_id=sample_id,
    )
