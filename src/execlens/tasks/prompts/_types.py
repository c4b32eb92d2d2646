"""Records shared by the prompt renderers: sampling defaults and the rendered prompt."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

__all__ = [
    "PromptInputError",
    "RenderedPrompt",
    "SamplingDefaults",
    "Style",
]

Style = Literal["direct", "cot", "phind"]


class PromptInputError(ValueError):
    """A prompt cannot be rendered from the given fields (unknown task, line out of range, ...)."""


@dataclass(frozen=True)
class SamplingDefaults:
    """Generation settings of a benchmark's official runner.

    ``top_p=None`` means the official runner does not set it (the provider default, 1.0).
    ``extra_temperatures`` lists further temperatures the official protocol samples at
    (CRUXEval reports pass@5 from a second run at T = 0.8).  ``reasoning_max_tokens`` is
    the thinking budget: a reply the official budget cut (100 tokens for CRUXEval's direct
    prompt end a thinker inside its thought) is asked again with it (``eval``'s budget
    rule, ``models.TokenBudget``).
    """

    max_tokens: int
    temperature: float
    top_p: float | None = None
    n: int = 1
    extra_temperatures: tuple[float, ...] = ()
    source: str = ""
    reasoning_max_tokens: int = 32768


@dataclass(frozen=True)
class RenderedPrompt:
    """One prompt, ready to send as a plain completion or as chat messages.

    ``text`` is the prompt exactly as the official code builds it: the completion prompt
    for base models and the user message for chat models. ``stop`` holds the stop strings
    of the official completion runner, ``chat_stop`` those its chat (OpenAI) runner sends
    (LiveCodeBench sends none to chat models).
    """

    benchmark: str
    task: str
    style: str
    text: str
    system: str | None
    stop: tuple[str, ...]
    chat_stop: tuple[str, ...]
    sampling: SamplingDefaults
    template: str
    sample_id: str = ""
    meta: dict[str, object] = field(default_factory=dict, compare=False)

    @property
    def completion(self) -> str:
        """The plain completion prompt (no chat template), as the base-model runners send it."""
        return self.text

    def messages(self, *, system: bool = True) -> list[dict[str, str]]:
        """Chat messages: the official system message (if any), then the prompt as the user turn."""
        out: list[dict[str, str]] = []
        if system and self.system:
            out.append({"role": "system", "content": self.system})
        out.append({"role": "user", "content": self.text})
        return out
