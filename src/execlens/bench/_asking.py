"""How ``execlens eval`` asks the model and reads its replies: the budget rule, the
requests, and each reply read into the answers its scorers judge.

Every reply is read on its own (``bench._reading``, shared with ``execlens score``): no
stop string is sent unless ``--reasoning off`` (a server would apply it inside a thought,
at a draft), the official stops cut each final part afterwards, and a reply the token
limit cut is asked once more with room to think (``models.TokenBudget``, the rule
synthesis and teacher chains share), within the server's context.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from execlens.tasks.prompts import ModelResponse, read_response

from ._base import Benchmark
from ._reading import flavor_of, read_answers, reading_fields, scored_texts, stops_of
from ._runs import Unit

if TYPE_CHECKING:
    from execlens.tasks.prompts import ReasoningMode, RenderedPrompt

    from ._eval import EvalConfig

__all__ = [
    "Asking",
    "Generated",
    "budget_of",
    "generate",
    "refusal_message",
    "sampling_of",
    "served_context",
    "stops_for",
]


def stops_for(config: EvalConfig, prompt: RenderedPrompt) -> tuple[str, ...]:
    """The stop strings of this run: the user's, else the official runner's."""
    return stops_of(prompt, config.endpoint, config.stop)


def budget_of(config: EvalConfig, prompt: RenderedPrompt, context: int | None = None) -> Any:
    """The run's token budget (``models.TokenBudget``, the rule every path that asks a
    model shares): ``auto`` asks with the official budget and gives a reply the token
    limit cut a second ask with the thinking budget; ``on`` asks with the thinking
    budget; ``off`` with the official one; ``--max-tokens`` is never raised."""
    from execlens.models import TokenBudget

    defaults = prompt.sampling
    thinking = defaults.reasoning_max_tokens
    if config.reasoning == "on":
        first = config.max_tokens or thinking
        return TokenBudget(first, first, context, fixed=True)
    first = config.max_tokens or defaults.max_tokens
    fixed = config.max_tokens is not None or config.reasoning == "off"
    return TokenBudget(first, max(thinking, first), context, fixed=fixed)


def sampling_of(config: EvalConfig, prompt: RenderedPrompt) -> dict[str, Any]:
    defaults = prompt.sampling
    return {
        "n": config.n if config.n is not None else defaults.n,
        "temperature": config.temperature
        if config.temperature is not None
        else defaults.temperature,
        "top_p": config.top_p if config.top_p is not None else (defaults.top_p or 1.0),
        "max_tokens": budget_of(config, prompt).base,
        # Stop strings only where no thought can hold them: --reasoning off (the content
        # is read whole).  Otherwise they cut the final part after the fact.
        "stop": stops_for(config, prompt) if config.reasoning == "off" else (),
        "seed": config.seed,
        "extra_body": dict(config.extra_body),
    }


def _request(config: EvalConfig, prompt: RenderedPrompt, item_id: str) -> Any:
    from execlens.models import GenerationRequest, SamplingParams

    params = SamplingParams(**sampling_of(config, prompt))
    if config.endpoint == "chat":
        return GenerationRequest.chat(prompt.text, system=prompt.system, params=params, id=item_id)
    return GenerationRequest.completion(prompt.completion, params=params, id=item_id)


def _prompt_record(config: EvalConfig, prompt: RenderedPrompt) -> dict[str, Any]:
    if config.endpoint == "chat":
        return {"system": prompt.system, "user": prompt.text}
    return {"completion": prompt.completion}


@dataclass
class Generated:
    ok: list[Unit]
    failed: Counter[str]
    messages: dict[str, str] = field(default_factory=dict)
    """The server's message of the first failure of each kind."""


def _read(config: EvalConfig, completion: Any) -> ModelResponse:
    """One completion read once: its thought set apart from its final part."""
    shared = completion.choices_in_request > 1  # one request's usage covers several
    return read_response(
        completion.text,
        reasoning=completion.reasoning,
        finish_reason=completion.finish_reason,
        mode=cast("ReasoningMode", config.reasoning),  # checked by check_config
        think_tags=config.think_tags,
        completion_tokens=None if shared else completion.usage.completion_tokens,
    )


def _needs_room(config: EvalConfig) -> Callable[[Any], bool]:
    """Which replies get a second ask with the thinking budget: a chat reply the token
    limit cut (a thought whose template opened ``<think>`` has no tag until it closes),
    or a plain completion cut inside a thought it shows."""

    def needs(response: Any) -> bool:
        return any(
            c.ok
            and c.finish_reason == "length"
            and (config.endpoint == "chat" or _read(config, c).has_reasoning)
            for c in response.completions
        )

    return needs


@dataclass
class Asking:
    """How a run asks: its budget and where progress and notes go (``warn`` hears each
    budget lowered to the server's limit, once)."""

    budget: Any
    advance: Callable[[], None]
    again: Callable[[int, int], None]
    warn: Callable[[str], None] | None
    noted: set[str] = field(default_factory=set)


def generate(
    client: Any, bench: Benchmark, units: Sequence[Unit], config: EvalConfig, asking: Asking
) -> Generated:
    """Prompts → responses → answers for ``units``; failed requests are set apart.

    Every reply is read on its own (a later one may think where an earlier one did not):
    no stop string is sent unless ``--reasoning off``, the official stops cut each final
    part afterwards, and a reply the token limit cut is asked again with room to think.
    """
    from execlens.models import ask_within_budget

    prompts = [bench.render(unit.item, unit.task, config.prompt) for unit in units]
    requests = [_request(config, prompt, unit.key) for unit, prompt in zip(units, prompts)]
    asked = ask_within_budget(
        client,
        requests,
        asking.budget,
        needs_room=_needs_room(config),
        on_response=lambda i, r: asking.advance(),
        on_again=asking.again,
    )
    for note in asked.notes:  # a budget lowered to the server's limit: said once
        if note not in asking.noted and asking.warn is not None:
            asking.noted.add(note)
            asking.warn(note)
    ok: list[Unit] = []
    failed: Counter[str] = Counter()
    messages: dict[str, str] = {}
    flavor = flavor_of(config.endpoint)
    for index, (unit, prompt, response) in enumerate(zip(units, prompts, asked.responses)):
        errors = [c for c in response.completions if not c.ok]
        if errors:
            for completion in errors:
                kind = completion.error.value if completion.error else "no_text"
                failed[kind] += 1
                messages.setdefault(kind, completion.error_message or "")
            continue
        read = read_answers(
            bench,
            unit.item,
            unit.task,
            config.prompt,
            flavor,
            [_read(config, c) for c in response.completions],
            stops_for(config, prompt),
        )
        unit.answers = scored_texts(bench, read)
        budget = asked.budget(index)
        unit.extra = {
            "task": unit.task,
            "prompt": _prompt_record(config, prompt),
            **reading_fields(
                read,
                [c.text or "" for c in response.completions],
                [budget] * len(response.completions),
            ),
        }
        ok.append(unit)
    return Generated(ok, failed, messages)


def served_context(config: EvalConfig, client: Any) -> int | None:
    """The served model's context length, when its server reports one (budgets stay
    within it); ``None`` for the embedded model or a server that reports none."""
    from execlens.models import is_local, served_context_length

    if client is None or is_local(config.model):
        return None
    return served_context_length(client.config)


def refusal_message(messages: dict[str, str]) -> str:
    """The server's own words on a refused request (the first kind that has some)."""
    said = next((m for m in messages.values() if m), "")
    return f" (the server said: {' '.join(said.split())[:240]})" if said else ""
