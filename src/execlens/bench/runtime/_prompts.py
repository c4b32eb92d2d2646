"""The runtime benchmark's prompts: one jinja template for every question kind, two styles.

The frame is REval's (``[PYTHON]`` program ``[/PYTHON]``, ``[QUESTION]`` ...,
``[ANSWER]`` ... ``[/ANSWER]``) with the kind's worked example; what fills it is the
kind's (``execlens.tasks.kinds``): the program as the kind shows it (numbered lines for
line questions, CoCoNUT's ``# N`` for full traces), the question's one wording and the
answer form -- the wording synthesis trains and the rewards' prompts ask.  ``direct`` asks for the answer only;
``cot`` for reasoning in ``[THOUGHT]`` first.  There is no official runner to copy, so the
sampling defaults are ours: greedy, one sample.
"""

from __future__ import annotations

from pathlib import Path

from execlens.tasks import Task
from execlens.tasks.kinds import KindBase, QuestionKind, get_kind
from execlens.tasks.prompts import (
    EXECUTION_SYSTEM,
    PromptInputError,
    RenderedPrompt,
    SamplingDefaults,
    render_template_from,
)

from ._items import RuntimeItem

__all__ = ["STOP", "STYLES", "render_runtime", "runtime_sampling"]

STYLES = ("direct", "cot")
#: Completion and chat runs both stop at the closing tag: nothing after it is read.
STOP = ("[/ANSWER]",)
_TEMPLATES = Path(__file__).resolve().parent / "templates"


def runtime_sampling(style: str, kind: str | None = None) -> SamplingDefaults:
    """Greedy, one sample; the kind's token budget by style (room for reasoning in the
    CoT style, for a full trace's long list)."""
    direct, cot = get_kind(kind).max_tokens if kind else KindBase.max_tokens
    return SamplingDefaults(
        max_tokens=cot if style == "cot" else direct,
        temperature=0.0,
        n=1,
        source="execlens runtime benchmark (no official runner)",
    )


def _example(kind: QuestionKind) -> dict[str, str] | None:
    """The kind's worked example, shown and asked as the kind shows and asks any task."""
    example = kind.example
    if example is None:
        return None
    task = Task(
        kind=kind.name,
        program=example.program,
        call=example.call,
        reference=example.reference,
        line=example.line,
        var=example.var,
    )
    return {
        "code": kind.show_program(task),
        "question": kind.question(task),
        "thought": example.thought,
        "answer": example.answer,
    }


def render_runtime(item: RuntimeItem, style: str) -> RenderedPrompt:
    """The prompt of ``item`` in ``style`` (``direct`` or ``cot``): its kind's shown
    program and question (``execlens.tasks.kinds``), in the template's frame."""
    if style not in STYLES:
        raise PromptInputError(
            f"the runtime benchmark has no prompt style {style!r} (expected {' or '.join(STYLES)})"
        )
    task = item.task
    if not task.call and not task.test:
        raise PromptInputError(f"{item.sample_id}: the run has neither a call nor a test")
    kind = get_kind(task.kind)
    if kind.needs_line:
        _check_line(task.program, task.line)
    text = render_template_from(
        _TEMPLATES,
        "question.j2",
        cot=style == "cot",
        what=f"only {kind.answer_form[0]}",
        example=_example(kind),
        code=kind.show_program(task),
        driver=task.test if task.test and not task.call else None,
        question=kind.question(task),
    )
    return RenderedPrompt(
        benchmark="runtime",
        task=task.kind,
        style=style,
        text=text,
        system=EXECUTION_SYSTEM,
        stop=STOP,
        chat_stop=STOP,
        sampling=runtime_sampling(style, task.kind),
        template="runtime/question.j2",
        sample_id=item.sample_id,
    )


def _check_line(code: str, line: int | None) -> None:
    lines = code.splitlines()
    if line is None or not 0 < line <= len(lines):
        raise PromptInputError(f"line {line} is not a line of the program ({len(lines)} lines)")
