"""One token-budget rule for every path that asks a model (eval, synthesis, teacher chains).

Whether a model thinks before it answers is not known before it answers, and it may
differ from one prompt to the next (hybrid models).  A budget sized for an answer (100
tokens for CRUXEval's direct prompt) ends a thought long before its answer; one sized
for a thought (32k tokens) may be more than the server allows.  The rule:

1. **First ask** with the path's own budget (:attr:`TokenBudget.base`: a benchmark's
   official ``max_tokens``, a config's ``max_tokens``).  No stop string that could end a
   thought at a draft is sent (the caller's business: it cuts the final part afterwards).
2. **A reply cut before its answer is asked again, once, with room to think**
   (:attr:`TokenBudget.thinking`, 32,768 tokens unless said otherwise), kept within the
   server's context when the server reports it (``max_model_len`` in its ``/models``
   listing, minus the prompt's tokens).  Which replies need room is the caller's
   ``needs_room``; by default any chat reply the token limit cut (a reply whose chat
   template opened ``<think>`` shows no tag until the thought closes, so a cut one
   cannot be told from a cut answer).
3. **A request the server refuses for its size** (HTTP 400 whose message names the
   limit: vLLM's "maximum context length is 8192 tokens ... 232 in the messages",
   OpenAI's "supports at most 4096 completion tokens") is asked again within that limit,
   and :attr:`Asked.notes` says so.

A budget the user set (:attr:`TokenBudget.fixed`) is never raised, only lowered to what
the server allows.  Every request keeps going through the client's cache: a rerun asks
nothing twice, and the budget each reply was asked with is on its ``request``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ._types import ErrorKind, GenerationRequest, GenerationResponse

if TYPE_CHECKING:
    from ._client import ModelClient

__all__ = [
    "THINKING_MAX_TOKENS",
    "Asked",
    "TokenBudget",
    "ask_within_budget",
    "cut_chat_reply",
    "limit_from_refusal",
    "with_max_tokens",
]

#: The budget a reply gets when it needs room to think (the README's "32k").
THINKING_MAX_TOKENS = 32768

_COMPLETION_LIMIT = re.compile(
    r"(?:at most|maximum of|must be (?:at most|less than or equal to|<=))\s*(\d+)"
    r"\s*(?:completion|output|new)?\s*tokens",
    re.IGNORECASE,
)
_CONTEXT_LIMIT = re.compile(r"maximum context length (?:is |of )?(\d+)", re.IGNORECASE)
_PROMPT_TOKENS = re.compile(
    r"(\d+) (?:tokens )?in the messages|(\d+) input tokens|(\d+) tokens from the input"
    r"|(\d+) (?:tokens )?in the prompt",
    re.IGNORECASE,
)
_REQUESTED_TOTAL = re.compile(r"requested (?:a total of )?(\d+) tokens", re.IGNORECASE)


@dataclass(frozen=True)
class TokenBudget:
    """A path's budget: ``base`` for the first ask, ``thinking`` for a reply that needs
    room, ``context`` the server's context length when known, ``fixed`` when the user
    set the budget (never raised then)."""

    base: int
    thinking: int = THINKING_MAX_TOKENS
    context: int | None = None
    fixed: bool = False

    @property
    def grows(self) -> bool:
        """Whether a cut reply is asked again with more room."""
        return not self.fixed and self.thinking > self.base

    def room(self, prompt_tokens: int | None) -> int:
        """The thinking budget, within the server's context for a prompt of
        ``prompt_tokens`` (unknown: the budget as it is; the server's refusal, if any,
        names its limit and the request is asked again within it)."""
        budget = self.thinking
        if self.context is not None and prompt_tokens:
            budget = min(budget, self.context - prompt_tokens)
        return max(budget, 1)

    def first(self) -> int:
        """The first ask's budget, within the server's context when it is known."""
        if self.context is not None:
            return max(1, min(self.base, self.context - 1))
        return self.base


@dataclass
class Asked:
    """The replies of :func:`ask_within_budget`, in request order, and what it did."""

    responses: list[GenerationResponse]
    asked_again: int = 0
    """Requests asked a second time with room to think."""
    notes: list[str] = field(default_factory=list)
    """Budgets lowered to the server's limit, each said once (for the run's summary)."""

    def budget(self, index: int) -> int | None:
        """The ``max_tokens`` reply ``index`` was asked with."""
        params = self.responses[index].request.params
        return None if params is None else params.max_tokens


def with_max_tokens(request: GenerationRequest, max_tokens: int) -> GenerationRequest:
    """``request`` with another budget (every other sampling field kept)."""
    from ._types import SamplingParams

    params = request.params or SamplingParams()
    return request.model_copy(
        update={"params": params.model_copy(update={"max_tokens": max_tokens})}
    )


def cut_chat_reply(response: GenerationResponse) -> bool:
    """The default ``needs_room``: a chat reply (any of its samples) cut by the token
    limit.  A plain completion (no chat template) is left alone: a base model runs on
    until the limit whatever it answered."""
    return response.request.kind == "chat" and any(
        c.ok and c.finish_reason == "length" for c in response.completions
    )


def limit_from_refusal(
    message: str, requested: int | None, prompt_tokens: int | None
) -> int | None:
    """The largest ``max_tokens`` a server's refusal ``message`` allows, or ``None`` when
    it names no limit.  ``requested`` is the refused budget; ``prompt_tokens`` the
    prompt's size when known from an earlier reply."""
    direct = _COMPLETION_LIMIT.search(message)
    context = _CONTEXT_LIMIT.search(message)
    if context is not None:
        prompt = next(
            (int(g) for m in _PROMPT_TOKENS.finditer(message) for g in m.groups() if g), None
        )
        if prompt is None:
            total = _REQUESTED_TOTAL.search(message)
            if total is not None and requested is not None:
                prompt = int(total.group(1)) - requested
        prompt = prompt if prompt is not None else prompt_tokens
        if prompt is not None and int(context.group(1)) - prompt > 0:
            allowed = int(context.group(1)) - prompt
            return allowed if requested is None or allowed < requested else None
    if direct is not None:
        allowed = int(direct.group(1))
        return allowed if requested is None or allowed < requested else None
    return None


def _prompt_tokens(response: GenerationResponse) -> int | None:
    found = [c.usage.prompt_tokens for c in response.completions if c.ok and c.usage.prompt_tokens]
    return found[0] if found else None


def _refusal(response: GenerationResponse) -> str | None:
    """The message of a reply refused for its size (every sample failed that way)."""
    refused = [
        c
        for c in response.completions
        if c.error in (ErrorKind.CONTEXT_LENGTH, ErrorKind.BAD_REQUEST) and c.error_message
    ]
    if refused and len(refused) == len(response.completions):
        return refused[0].error_message
    return None


def _within_limits(
    client: ModelClient,
    responses: list[GenerationResponse],
    prompt_tokens: Sequence[int | None],
    notes: list[str],
) -> list[GenerationResponse]:
    """``responses`` with those refused for their size asked again within the limit the
    refusal names (once); the lowering is noted."""
    again: dict[int, GenerationRequest] = {}
    for index, response in enumerate(responses):
        message = _refusal(response)
        if message is None:
            continue
        params = response.request.params
        requested = None if params is None else params.max_tokens
        allowed = limit_from_refusal(message, requested, prompt_tokens[index])
        if allowed is None:
            continue
        again[index] = with_max_tokens(response.request, allowed)
        note = (
            f"the server refused max_tokens {requested} ({' '.join(message.split())[:160]}); "
            f"asked again within its limit ({allowed} tokens for that prompt)"
        )
        if note not in notes and len(notes) < 5:
            notes.append(note)
    if not again:
        return responses
    order = list(again)
    fresh = client.generate_sync([again[i] for i in order])
    out = list(responses)
    for index, response in zip(order, fresh):
        out[index] = response
    return out


def ask_within_budget(
    client: ModelClient | Any,
    requests: Sequence[GenerationRequest],
    budget: TokenBudget,
    *,
    needs_room: Callable[[GenerationResponse], bool] = cut_chat_reply,
    on_response: Callable[[int, GenerationResponse], None] | None = None,
    on_again: Callable[[int, int], None] | None = None,
) -> Asked:
    """Ask ``requests`` under ``budget`` (see the module docstring); their replies in
    order.  ``on_response(index, response)`` hears each first reply as it comes;
    ``on_again(done, total)`` the progress of the replies asked again with room."""
    first = [with_max_tokens(r, budget.first()) for r in requests]
    notes: list[str] = []
    responses = client.generate_sync(first, on_response=on_response)
    responses = _within_limits(client, responses, [None] * len(responses), notes)
    asked = Asked(responses, notes=notes)
    if not budget.grows:
        return asked
    grow: dict[int, GenerationRequest] = {}
    for index, response in enumerate(responses):
        if not needs_room(response):
            continue
        room = budget.room(_prompt_tokens(response))
        params = response.request.params
        if params is not None and params.max_tokens is not None and room <= params.max_tokens:
            continue  # no more room to give
        grow[index] = with_max_tokens(response.request, room)
    if not grow:
        return asked
    order = list(grow)
    done = 0

    def heard(_: int, __: GenerationResponse) -> None:
        nonlocal done
        done += 1
        if on_again is not None:
            on_again(done, len(order))

    if on_again is not None:
        on_again(0, len(order))
    again = client.generate_sync([grow[i] for i in order], on_response=heard)
    prompts = [_prompt_tokens(responses[i]) for i in order]
    again = _within_limits(client, list(again), prompts, notes)
    for index, response in zip(order, again):
        responses[index] = response
    asked.asked_again = len(order)
    return asked
