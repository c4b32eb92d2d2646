"""The prompt kit: rendered prompts, sampling defaults, answer extraction helpers.

Generic machinery only: :class:`RenderedPrompt`, :class:`SamplingDefaults`,
:class:`Extraction`, stop-string handling and the jinja2 rendering every benchmark folder
(``execlens.bench.<name>``) uses for its own templates.  Each benchmark's prompts and
answer extraction live in its folder.

Extraction is string work only: it never evaluates or runs anything.
"""

from ._extract_types import NIL, Extraction, StateAnswer, apply_stop
from ._render import render_template_from
from ._response import (
    DEFAULT_THINK_TAGS,
    ModelResponse,
    ReasoningMode,
    ResponseStatus,
    read_response,
)
from ._system import EXECUTION_SYSTEM
from ._types import PromptInputError, RenderedPrompt, SamplingDefaults

__all__ = [
    "DEFAULT_THINK_TAGS",
    "EXECUTION_SYSTEM",
    "NIL",
    "Extraction",
    "ModelResponse",
    "PromptInputError",
    "ReasoningMode",
    "RenderedPrompt",
    "ResponseStatus",
    "SamplingDefaults",
    "StateAnswer",
    "apply_stop",
    "read_response",
    "render_template_from",
]
