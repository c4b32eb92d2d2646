"""One reading of a model's completion: its reasoning, its final text, how it ended.

Reasoning ("thinking") models answer in one of four shapes (ANCHORS section 14):

* the thought in a separate field (vLLM/SGLang reasoning parsers: ``reasoning_content``,
  newer ``reasoning``), the answer in ``content``;
* the thought inline, ``<think>...</think>`` at the start of the content (DeepSeek-R1
  distills, Qwen3 in thinking mode); the chat template of some of them opens ``<think>``
  in the prompt, so the content holds only the closing tag (shape ``opened``);
* harmony (gpt-oss): ``<|channel|>analysis<|message|>...<|end|>`` then
  ``<|start|>assistant<|channel|>final<|message|>...``; only the ``final`` channel answers;
* a plain answer (no reasoning at all).

:func:`read_response` turns any of them into a :class:`ModelResponse`; every path that
reads answers (eval, score, rewards, synthesis, teacher chains) extracts from
:attr:`ModelResponse.final` only, so a draft inside the thought is never scored.  A
completion cut off (``finish_reason == "length"``) before its final part has no answer:
its status is :attr:`ResponseStatus.TRUNCATED_IN_REASONING`.

Each completion is read on its own: nothing here remembers what an earlier one looked
like, so a model that thinks on some prompts and not on others (hybrid models) is read
right on each.  An empty think block (Qwen3's ``<think>\n\n</think>`` with thinking
switched off) is no thought: the reply is read as a plain answer.

String work only: nothing here evaluates anything.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Literal

__all__ = [
    "DEFAULT_THINK_TAGS",
    "ModelResponse",
    "ReasoningMode",
    "ResponseStatus",
    "final_of_whole",
    "read_response",
    "whole_response",
]

#: How a run treats reasoning: ``auto`` splits whatever shape each completion holds
#: (decided per completion, never per run), ``on`` expects a thought (a cut-off
#: completion with no closing tag is a cut-off thought), ``off`` takes the content as
#: the answer, whole.
ReasoningMode = Literal["auto", "on", "off"]

DEFAULT_THINK_TAGS: tuple[str, str] = ("<think>", "</think>")

# Harmony's special tokens as servers print them when no parser is configured.
_HARMONY_MARK = "<|channel|>"
_HARMONY_MESSAGE = re.compile(
    r"<\|channel\|>\s*(?P<channel>[A-Za-z_]+)[^<]*?(?:<\|constrain\|>[^<]*)?<\|message\|>"
    r"(?P<body>.*?)(?=<\|end\|>|<\|return\|>|<\|call\|>|<\|start\|>|<\|channel\|>|\Z)",
    re.DOTALL,
)
_HARMONY_TOKENS = re.compile(r"<\|(?:start|end|return|call|message|constrain)\|>")


class ResponseStatus(StrEnum):
    """How a completion ended, as far as its answer is concerned."""

    COMPLETE = "complete"
    """It finished (or was stopped) with a final part: the answer is read from it."""
    TRUNCATED = "truncated"
    """The token limit cut the final part: an answer may still be read from what is there."""
    TRUNCATED_IN_REASONING = "truncated_in_reasoning"
    """The token limit cut the thought: no final part, no answer."""
    REASONING_ONLY = "reasoning_only"
    """It finished inside its thought or with an empty final part: no answer."""


@dataclass(frozen=True)
class ModelResponse:
    """A completion read once: ``reasoning`` + ``final`` + how it ended.

    ``final`` is the only text answers are extracted from.  ``shape`` names where the
    reasoning was found: ``none``, ``field`` (a server's reasoning field), ``tags``
    (``<think>...</think>`` in the content), ``opened`` (only the closing tag: the chat
    template opened the thought), ``harmony``.
    """

    final: str
    reasoning: str | None
    finish_reason: str | None
    status: ResponseStatus
    shape: str = "none"
    prompt_tokens: int | None = None
    completion_tokens: int | None = None

    @property
    def answerable(self) -> bool:
        """False when the completion holds no final part to read an answer from."""
        return self.status in (ResponseStatus.COMPLETE, ResponseStatus.TRUNCATED)

    @property
    def has_reasoning(self) -> bool:
        """True when a thought was found (in any shape)."""
        return self.shape != "none"

    def as_target(self, think_tags: tuple[str, str] = DEFAULT_THINK_TAGS) -> str:
        """The completion as a supervised-training target: the thought kept inline in
        ``think_tags`` before the final text (``<think>\\n...\\n</think>\\n\\n final``, the
        shape R1-style and Qwen3 chat templates train on), or the final text alone when
        the model did not reason.

        Whatever shape the thought arrived in (a separate field, tags, harmony channels),
        the target has one shape, so that teacher chains and synthesised data from
        different servers train a student the same way.
        """
        if not self.reasoning:
            return self.final
        start, end = think_tags
        return f"{start}\n{self.reasoning}\n{end}\n\n{self.final}"

    def to_record(self) -> dict[str, Any]:
        """The JSON-ready fields a sample record keeps."""
        record: dict[str, Any] = {
            "final": self.final,
            "reasoning": self.reasoning,
            "finish_reason": self.finish_reason,
            "status": self.status.value,
            "shape": self.shape,
        }
        if self.completion_tokens is not None:
            record["completion_tokens"] = self.completion_tokens
        return record

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> ModelResponse:
        """The response :meth:`to_record` wrote (stored records are read back without
        splitting the text again)."""
        return cls(
            final=record.get("final") or "",
            reasoning=record.get("reasoning"),
            finish_reason=record.get("finish_reason"),
            status=ResponseStatus(record["status"]),
            shape=record.get("shape") or "none",
            completion_tokens=record.get("completion_tokens"),
        )


def _harmony(text: str) -> tuple[str | None, str | None] | None:
    """(reasoning, final) of a harmony transcript, or ``None`` when ``text`` is not one."""
    if _HARMONY_MARK not in text:
        return None
    thoughts: list[str] = []
    finals: list[str] = []
    for match in _HARMONY_MESSAGE.finditer(text):
        body = match.group("body").strip()
        (finals if match.group("channel").lower() == "final" else thoughts).append(body)
    if not thoughts and not finals:
        return None
    reasoning = "\n\n".join(t for t in thoughts if t) or None
    return reasoning, (finals[-1] if finals else None)


def _tagged(text: str, tags: tuple[str, str]) -> tuple[str, str, str | None] | None:
    """(shape, reasoning, final) of a tagged thought, or ``None`` when there is none.

    ``final`` is ``None`` when the thought never closed.  An opening tag need not be in
    the content (templates that open it in the prompt): a closing tag alone ends the
    thought (shape ``opened``).
    """
    start, end = tags
    stripped = text.lstrip()
    closing = text.find(end)
    if closing != -1:
        head = text[:closing]
        opening = head.find(start)
        reasoning = head[opening + len(start) :] if opening != -1 else head
        # Several think blocks (rare): the final part follows the last closing tag.
        final = text[text.rfind(end) + len(end) :]
        return ("tags" if opening != -1 else "opened"), reasoning.strip(), final.strip()
    if stripped.startswith(start):
        return "tags", stripped[len(start) :].strip(), None
    return None


def read_response(
    text: str | None,
    *,
    reasoning: str | None = None,
    finish_reason: str | None = None,
    mode: ReasoningMode = "auto",
    think_tags: tuple[str, str] = DEFAULT_THINK_TAGS,
    prompt_tokens: int | None = None,
    completion_tokens: int | None = None,
) -> ModelResponse:
    """Split one completion into reasoning and final text (see the module docstring).

    ``text`` is the content (chat) or completion text; ``reasoning`` a server's separate
    reasoning field.  Under ``mode="off"`` the content is the final text whole (a separate
    reasoning field is still kept, since the server already set it apart).
    """
    content = text or ""
    cut = finish_reason == "length"
    shape = "none"
    thought: str | None = reasoning if isinstance(reasoning, str) and reasoning else None
    final: str | None = content
    if thought is not None:
        shape = "field"
    if mode != "off":
        harmony = _harmony(content)
        tagged = None if harmony is not None else _tagged(content, think_tags)
        if harmony is not None:
            shape = "harmony"
            inline, final = harmony
            thought = "\n\n".join(t for t in (thought, inline) if t) or None
        elif tagged is not None:
            tag_shape, inline, final = tagged
            if inline or final is None:  # an empty think block is no thought
                shape = tag_shape
            thought = "\n\n".join(t for t in (thought, inline) if t) or None
        elif mode == "on" and cut and thought is None:
            # A thinker whose template opened the thought in the prompt, cut off before
            # closing it: the content is all thought (there is no way to tell a final
            # part without its closing tag).
            shape, thought, final = "opened", content.strip() or None, None
    if final is None:
        status = ResponseStatus.TRUNCATED_IN_REASONING if cut else ResponseStatus.REASONING_ONLY
        final = ""
    elif shape == "field" and cut and not final.strip():
        status = ResponseStatus.TRUNCATED_IN_REASONING
    elif shape != "none" and not final.strip():
        status = ResponseStatus.REASONING_ONLY
    else:
        status = ResponseStatus.TRUNCATED if cut else ResponseStatus.COMPLETE
    return ModelResponse(
        final=final,
        reasoning=thought,
        finish_reason=finish_reason,
        status=status,
        shape=shape,
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
    )


_THOUGHT_OPEN, _THOUGHT_CLOSE = DEFAULT_THINK_TAGS


def whole_response(reasoning: str | None, final: str) -> str:
    """A response as one text, its thought first between the default think tags
    (however the server sent it: inline or in a reasoning field), its final part after:
    for an official rule that reads the whole response (RE2-Bench's first ``[OUTPUT]``
    anywhere).  :func:`final_of_whole` gives the final part back."""
    if not reasoning:
        return final
    return f"{_THOUGHT_OPEN}{reasoning}{_THOUGHT_CLOSE}{final}"


def final_of_whole(text: str) -> str:
    """The final part of a :func:`whole_response` (the text itself when it holds no
    thought)."""
    if text.startswith(_THOUGHT_OPEN) and _THOUGHT_CLOSE in text:
        return text.rsplit(_THOUGHT_CLOSE, 1)[1]
    return text
