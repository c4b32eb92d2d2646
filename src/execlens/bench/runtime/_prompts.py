"""The runtime benchmark's prompts: one jinja template per question kind, two styles.

The conventions are REval's (``[PYTHON]`` program ``[/PYTHON]``, ``[QUESTION]`` ...,
``[ANSWER]`` ... ``[/ANSWER]``), CRUXEval's for input/output prediction (``assert
f(...) == ??``) and CoCoNUT's numbered program for the full trace, one worked example each; the answer asked for is execlens' one answer
format (``execlens.tasks.prompts.ANSWER_FORMS``), as the rewards and synthesis ask it.  ``direct`` asks for the answer only;
``cot`` for reasoning in ``[THOUGHT]`` first.  There is no official runner to copy, so the
sampling defaults are ours: greedy, one sample.
"""

from __future__ import annotations

from pathlib import Path

from execlens.tasks import numbered_program
from execlens.tasks.prompts import (
    ANSWER_FORMS,
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
# What to answer: execlens' one answer format (the rewards and synthesis' runtime tasks
# ask and train the same forms).
# The program is shown unnumbered here (as REval shows it), so a path answer may also be
# the next line's code; the judge reads both.
_WHAT = {kind: f"only {what}" for kind, (what, _) in ANSWER_FORMS.items()}
_WHAT["path"] = "only the next line of code or its line number (or -1)"


def runtime_sampling(style: str, kind: str | None = None) -> SamplingDefaults:
    """Greedy, one sample; room for reasoning in the CoT style, and for a full trace's
    list (up to ``tasks.MAX_TRACE_STEPS`` numbers, a few tokens each)."""
    if kind == "trace":
        max_tokens = 8192 if style == "cot" else 4096
    else:
        max_tokens = 1024 if style == "cot" else 256
    return SamplingDefaults(max_tokens=max_tokens, temperature=0.0, n=1,
                            source="execlens runtime benchmark (no official runner)")


def _line_text(code: str, line: int | None) -> str:
    lines = code.splitlines()
    if line is None or not 0 < line <= len(lines):
        raise PromptInputError(f"line {line} is not a line of the program ({len(lines)} lines)")
    return lines[line - 1]


def _invocation(item: RuntimeItem) -> tuple[str, str]:
    """(the run's code shown after the program, how the question names it)."""
    task = item.task
    if task.call:
        return task.call, task.call
    if task.test:
        return task.test, f"the test class {task.test_class} above"
    raise PromptInputError(f"{item.sample_id}: the run has neither a call nor a test")


def render_runtime(item: RuntimeItem, style: str) -> RenderedPrompt:
    """The prompt of ``item`` in ``style`` (``direct`` or ``cot``)."""
    if style not in STYLES:
        raise PromptInputError(f"the runtime benchmark has no prompt style {style!r} "
                               f"(expected {' or '.join(STYLES)})")
    task = item.task
    invocation, abbr = _invocation(item)
    fields: dict[str, object] = {"cot": style == "cot", "what": _WHAT[task.kind],
                                 "code": task.program, "invocation": invocation,
                                 "invocation_abbr": abbr, "call": task.call,
                                 "function": item.function, "output": item.output_text}
    if task.kind in ("coverage", "path", "state"):
        fields.update(line=task.line, line_text=_line_text(task.program, task.line),
                      var=task.var)
    elif task.kind == "trace":  # every line ends with its number (CoCoNUT's '  # N')
        fields["code"] = numbered_program(task.program)
    text = render_template_from(_TEMPLATES, f"{task.kind}.j2", **fields)
    return RenderedPrompt(benchmark="runtime", task=task.kind, style=style, text=text,
                          system=EXECUTION_SYSTEM, stop=STOP, chat_stop=STOP,
                          sampling=runtime_sampling(style, task.kind), template=f"runtime/{task.kind}.j2",
                          sample_id=item.sample_id)
