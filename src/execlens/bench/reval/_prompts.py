"""REval prompts, filled the way REval's evaluation.py fills prompts/{direct,cot}_<task>.txt.

The eight templates in ``prompts/`` are REval's own files (r-eval/REval 2f148b9,
``prompts/``), unmodified, filled with ``str.format`` as ``evaluation.py`` fills them.

What goes into the template differs by problem kind:

* HumanEval (DREval/0-84): ``invocation`` = ``<entry_point><input minus its ",)">)``, e.g.
  ``f(1, 2)``, and the question names that call. The path task numbers the code lines
  (``"<n>\\t<line>\\n"`` per line); the other tasks show the code as is.
  The output task shows ``"\\n" + output_pred`` (``assert f(...) == ??``).
* ClassEval (DREval/85-153): no line numbers. The test class's ``setUp`` is shown as
  comments above the test body and the question says "the above test code". REval builds
  the comment block two ways: coverage/state put no ``# `` before the first ``setUp``
  body line, path/output do. Both are reproduced. The output task adds the line
  ``# Test code starts here. Only write the completed test code in your answer.``
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from importlib import resources
from typing import Literal

from execlens.tasks.prompts import (
    EXECUTION_SYSTEM,
    PromptInputError,
    RenderedPrompt,
    SamplingDefaults,
)

__all__ = [
    "REVAL_SYSTEM",
    "REVAL_PROMPT_FILES",
    "RevalPromptInput",
    "number_code_lines",
    "reval_sampling",
    "render_reval",
    "reval_invocation",
    "reval_prompt_template",
    "reval_setup_comment",
]

#: The system message of REval's OpenAI runner (inference.py); local models get the
#: completion prompt with no chat template and no system message.
REVAL_SYSTEM = EXECUTION_SYSTEM

REVAL_TASKS = ("coverage", "path", "state", "output")
#: ``(style, task) -> file name`` of REval's eight prompt templates (package data).
REVAL_PROMPT_FILES = {(style, task): f"{style}_{task}.txt" for style in ("direct", "cot")
                      for task in REVAL_TASKS}
_HOOK_DOC = "Hook method for setting up the test fixture"
_OUTPUT_PRELUDE = "\n# Test code starts here. Only write the completed test code in your answer.\n"


@dataclass(frozen=True)
class RevalPromptInput:
    """Everything a REval prompt shows about one (problem, input) pair.

    ``input`` is the problem's ``inputs[input_idx]``: an argument-tuple repr ending in
    ``,)`` (HumanEval) or a test body (ClassEval). ``setup`` is the ClassEval test class's
    ``setUp`` source as ``inspect.getsource`` returns it (None when the class has none of
    its own; see :func:`execlens.bench.reval.classeval_test_classes`).
    """

    kind: Literal["humaneval", "classeval"]
    code: str
    entry_point: str
    input: str
    output_pred: str = ""
    setup: str | None = None


@functools.cache
def reval_prompt_template(style: str, task: str) -> str:
    """REval's own template text for ``style``/``task`` (``str.format`` fields)."""
    name = REVAL_PROMPT_FILES[(style, task)]
    return (resources.files(__package__) / "prompts" / name).read_text(encoding="utf-8")


def reval_sampling(style: str) -> SamplingDefaults:
    """REval's runner settings (inference.py): 256 tokens direct, 1024 CoT; T 0.8; one sample."""
    return SamplingDefaults(
        max_tokens=1024 if style == "cot" else 256,
        temperature=0.8,
        top_p=None,
        n=1,
        source="REval inference.py / evaluation.py (read from boazlavon/REval)",
    )


def number_code_lines(code: str) -> str:
    """Code with ``"<n>\\t"`` before every line, as REval shows HumanEval code in path prompts."""
    return "".join(f"{i + 1}\t{line}\n" for i, line in enumerate(code.split("\n")))


def reval_setup_comment(setup: str | None, *, comment_first_line: bool) -> str:
    """The ``# setup code executed previously`` block REval puts above a ClassEval test body.

    ``comment_first_line`` is False for coverage/state and True for path/output, matching
    REval's two spellings of the same expression.
    """
    if not setup:
        return ""
    head = "\n# setup code executed previously\n" + ("# " if comment_first_line else "")
    block = head + "\n# ".join(setup.split("\n")[1:])
    return "" if _HOOK_DOC in block else block


def reval_invocation(item: RevalPromptInput, task: str) -> tuple[str, str]:
    """``(invocation, invocation_abbr)`` for a task, as evaluation.py builds them."""
    if item.kind == "humaneval":
        if task == "output":
            return "\n" + item.output_pred, ""
        if not item.input.endswith(",)"):
            raise PromptInputError(
                f"HumanEval input must be an argument tuple ending in ',)', got {item.input!r}"
            )
        call = f"{item.entry_point}{item.input[:-2]})"
        return call, call
    if item.kind == "classeval":
        if task == "output":
            return reval_setup_comment(
                item.setup, comment_first_line=True
            ) + _OUTPUT_PRELUDE + item.output_pred, ""
        setup = reval_setup_comment(item.setup, comment_first_line=task == "path")
        return setup + "\n" + item.input.rstrip(), "the above test code"
    raise PromptInputError(
        f"unknown REval problem kind {item.kind!r} (expected 'humaneval' or 'classeval')"
    )


def render_reval(
    task: str,
    style: str,
    item: RevalPromptInput,
    *,
    lineno: int | None = None,
    var: str | None = None,
    sample_id: str = "",
) -> RenderedPrompt:
    """Render one REval question.

    ``lineno`` (1-indexed, as in DREval_tasks.jsonl) is needed by coverage, path and state;
    ``var`` by state. The output task uses ``item.output_pred``.
    """
    if task not in REVAL_TASKS:
        raise PromptInputError(f"REval has no task {task!r} (expected one of {REVAL_TASKS})")
    if style not in ("direct", "cot"):
        raise PromptInputError(f"REval has no prompt style {style!r} (expected 'direct' or 'cot')")
    invocation, abbr = reval_invocation(item, task)
    fields: dict[str, object] = {"code": item.code, "invocation": invocation}
    if task != "output":
        codelines = item.code.split("\n")
        if lineno is None or not 1 <= lineno <= len(codelines):
            raise PromptInputError(
                f"line {lineno!r} is not a line of the code (1..{len(codelines)})"
            )
        if task == "state" and not var:
            raise PromptInputError("the state task needs the variable name `var`")
        code = (
            number_code_lines(item.code)
            if task == "path" and item.kind == "humaneval"
            else item.code
        )
        fields.update(
            code=code,
            invocation_abbr=abbr,
            line=lineno,
            codeline=codelines[lineno - 1],
            var=var or "",
        )
    elif not item.output_pred:
        raise PromptInputError("the output task needs the pair's `output_pred`")
    template = REVAL_PROMPT_FILES[(style, task)]
    return RenderedPrompt(
        benchmark="reval",
        task=task,
        style=style,
        text=reval_prompt_template(style, task).format(**fields),
        system=REVAL_SYSTEM,
        stop=("[/ANSWER]",),
        chat_stop=("[/ANSWER]",),
        sampling=reval_sampling(style),
        template=template,
        sample_id=sample_id,
        meta={"kind": item.kind, "lineno": lineno, "var": var},
    )
