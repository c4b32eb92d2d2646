"""The prompt kit: rendered prompts, sampling defaults, answer extraction helpers.

The one answer format of execlens' own questions (:func:`render_answer`,
:func:`answer_instruction`, :data:`ANSWER_FORMS`: the runtime benchmark, synthesis and
the rewards share it).  Generic machinery: :class:`RenderedPrompt`, :class:`SamplingDefaults`,
:class:`Extraction`, stop-string handling and the jinja2 rendering every benchmark folder
(``execlens.bench.<name>``) uses for its own templates.  Each benchmark's prompts and
answer extraction live in its folder.

Extraction is string work only: it never evaluates or runs anything.
"""

from ._answers import (
    ANSWER_CLOSE,
    ANSWER_FORMS,
    ANSWER_OPEN,
    NoAnswerForm,
    answer_block,
    answer_instruction,
    answer_text,
    render_answer,
)
from ._extract_types import NIL, Extraction, StateAnswer, apply_stop
from ._render import render_template_from
from ._response import (
    DEFAULT_THINK_TAGS,
    ModelResponse,
    ReasoningMode,
    ResponseStatus,
    final_of_whole,
    read_response,
    whole_response,
)
from ._system import EXECUTION_SYSTEM
from ._types import PromptInputError, RenderedPrompt, SamplingDefaults

__all__ = [
    "ANSWER_CLOSE",
    "ANSWER_FORMS",
    "ANSWER_OPEN",
    "DEFAULT_THINK_TAGS",
    "EXECUTION_SYSTEM",
    "NIL",
    "Extraction",
    "ModelResponse",
    "NoAnswerForm",
    "PromptInputError",
    "ReasoningMode",
    "RenderedPrompt",
    "ResponseStatus",
    "SamplingDefaults",
    "StateAnswer",
    "answer_block",
    "answer_instruction",
    "answer_text",
    "apply_stop",
    "final_of_whole",
    "read_response",
    "render_answer",
    "render_template_from",
    "whole_response",
]
