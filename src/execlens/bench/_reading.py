"""One path from a model's text to the answer a scorer judges, shared by eval and score.

``execlens eval`` reads completions as they come back from a server; ``execlens score``
reads the texts of a generations file.  Both go through :func:`read_answers`:

1. the completion is **read** once (:func:`execlens.tasks.prompts.read_response`): a
   thought -- a server's reasoning field, ``<think>`` tags or only the closing tag,
   harmony channels -- is set apart, decided for this completion alone (an empty think
   block is no thought);
2. the **official stop strings cut the final part** (a run never sends them where they
   could land inside a thought, so they are applied here, to the final part only);
3. the benchmark's own **extraction** reads the answer from that final part, exactly as
   its official post-processing does; a completion with no final part (cut off or ended
   inside its thought) has no answer.

:func:`reading_fields` is what a sample record keeps of it, and
:func:`responses_summary` the run's account in ``results.json``: how each answer was
read, what was cut, and whether a draft could have been scored.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from execlens.tasks.prompts import Extraction, ModelResponse, apply_stop, whole_response

if TYPE_CHECKING:
    from execlens.tasks.prompts import RenderedPrompt

    from ._base import Benchmark

__all__ = [
    "AS_GIVEN",
    "WARN_RATE",
    "ReadAnswer",
    "flavor_of",
    "read_answers",
    "reading_fields",
    "responses_summary",
    "scored_texts",
    "stops_of",
]

#: A run where this share of generations was cut off or unanswered warns in its flags:
#: such a score says more about the budget or the format than about the model.
WARN_RATE = 0.2

#: The extraction label of a text a generations file gave as a bare answer (an official
#: runner's post-processed output: the extraction found no wrapper and left it whole).
AS_GIVEN = "as_given"

# The markers of a thought in a content read whole (``--reasoning off``).
_THOUGHT_MARKERS = ("</think>", "<|channel|>")


@dataclass(frozen=True)
class ReadAnswer:
    """One generation read: the response, its final part after the stops, the extraction."""

    response: ModelResponse
    final: str
    extraction: Extraction


def flavor_of(endpoint: str) -> str:
    """The extraction flavor of an endpoint: ``openai`` for chat, ``harness`` otherwise."""
    return "openai" if endpoint == "chat" else "harness"


def stops_of(
    prompt: RenderedPrompt, endpoint: str, override: Sequence[str] | None = None
) -> tuple[str, ...]:
    """The official stop strings of ``prompt`` for ``endpoint`` (or the user's)."""
    if override is not None:
        return tuple(override)
    return tuple(prompt.chat_stop if endpoint == "chat" else prompt.stop)


def read_answers(
    bench: Benchmark,
    item: Any,
    task: str,
    style: str,
    flavor: str,
    responses: Sequence[ModelResponse],
    stops: Sequence[str],
) -> list[ReadAnswer]:
    """Each response's final part cut at ``stops`` and its answer extracted (see the
    module docstring); a response with no final part gets no answer, its status named."""
    out = []
    for response in responses:
        final = apply_stop(response.final, tuple(stops))[0]
        extraction = (
            bench.extract(final, item, task, style, flavor)
            if response.answerable
            else Extraction(text="", how=(), failure=response.status.value)
        )
        out.append(ReadAnswer(response, final, extraction))
    return out


def scored_texts(bench: Benchmark, read: Sequence[ReadAnswer]) -> list[str]:
    """What the scorers judge: the final parts (a benchmark that reads raw text, REval),
    the whole responses (a benchmark whose official rule reads thoughts too, RE2-Bench:
    its strict scorer takes :func:`~execlens.tasks.prompts.final_of_whole`), or the
    extracted answers.  One rule for ``eval`` and ``score``: both verbs judge the same
    texts."""
    if bench.official_reads_thought:
        return [whole_response(r.response.reasoning, r.final) for r in read]
    if bench.scores_raw:
        return [r.final for r in read]
    return [r.extraction.text for r in read]


def reading_fields(
    read: Sequence[ReadAnswer],
    texts: Sequence[str],
    budgets: Sequence[int | None] | None = None,
) -> dict[str, Any]:
    """The sample record's account of how each generation was read (``texts``: the raw
    texts; ``budgets``: the ``max_tokens`` each was asked with, for a model run)."""
    fields: dict[str, Any] = {
        "responses": list(texts),
        "reasoning": [r.response.reasoning for r in read],
        "finals": [r.final for r in read],
        "finish_reasons": [r.response.finish_reason for r in read],
        "response_status": [r.response.status.value for r in read],
        "completion_tokens": [r.response.completion_tokens for r in read],
        "read_as": [r.response.shape for r in read],
        "answers": [r.extraction.text for r in read],
        "extraction": [r.extraction.failure or "ok" for r in read],
    }
    if budgets is not None:
        fields["max_tokens"] = list(budgets)
    return fields


def _draft_risks(records: Sequence[Mapping[str, Any]], reasoning: str) -> int:
    """Generations whose scored answer could be a draft inside a thought.

    Under ``--reasoning off``: a content holding a thought's marker (read whole, its
    draft is the answer).  Otherwise: an answer read from a reply the token limit cut
    with no thought boundary in it, in a run where other replies do think (a chat
    template that opened ``<think>`` leaves no tag in a thought cut before it closed).
    """
    thinking = any(shape != "none" for record in records for shape in record.get("read_as") or ())
    risky = 0
    for record in records:
        shapes = record.get("read_as") or ()
        for index, shape in enumerate(shapes):
            if reasoning == "off":
                text = (record.get("responses") or [""] * len(shapes))[index] or ""
                risky += int(any(marker in text for marker in _THOUGHT_MARKERS))
                continue
            status = (record.get("response_status") or [""] * len(shapes))[index]
            label = (record.get("extraction") or ["ok"] * len(shapes))[index]
            answered = label in ("ok", AS_GIVEN)
            risky += int(thinking and shape == "none" and status == "truncated" and answered)
    return risky


def responses_summary(
    records: Sequence[Mapping[str, Any]],
    *,
    reasoning: str,
    stops_sent: Sequence[str],
    stops_applied: Sequence[str],
    budget: Mapping[str, Any] | None = None,
) -> tuple[dict[str, Any], list[str]]:
    """``results.json``'s account of how the answers were read, and the flags it calls
    for; everything is counted from the sample records, so a resumed run writes the same.

    ``read_as`` counts each generation by where its thought was found (``none``: no
    thought); ``drafts_possible`` the answers that could be drafts (flagged).
    """
    statuses = Counter(status for r in records for status in r.get("response_status") or ())
    extraction = Counter(failure for r in records for failure in r.get("extraction") or ())
    shapes = Counter(shape for r in records for shape in r.get("read_as") or ())
    total = sum(statuses.values())
    no_answer = sum(c for failure, c in extraction.items() if failure not in ("ok", AS_GIVEN))
    with_reasoning = sum(1 for r in records for thought in r.get("reasoning") or () if thought)
    summary: dict[str, Any] = {
        "reasoning": reasoning,
        "reasoning_detected": with_reasoning > 0,
        "read_as": dict(sorted(shapes.items())),
        "stop_sent": list(stops_sent),
        "stop_applied_to_final": list(stops_applied),
        "official_rule_applied_to": "final" if reasoning != "off" else "content",
        "generations": total,
        "with_reasoning": with_reasoning,
        "truncated": statuses.get("truncated", 0),
        "truncated_in_reasoning": statuses.get("truncated_in_reasoning", 0),
        "reasoning_only": statuses.get("reasoning_only", 0),
        "no_answer": no_answer,
        "drafts_possible": _draft_risks(records, reasoning),
    }
    flags: list[str] = []
    if budget is not None:
        summary["budget"] = _budget_account(records, budget)
        wasted = summary["budget"].get("asked_again_without_thought", 0)
        if wasted:
            flags.append(
                f"{wasted} generation(s) cut at the official budget were asked again with "
                "room to think but hold no thought (a model that writes on past its "
                "answer): pass --max-tokens to keep one budget and save those tokens"
            )
        lowered = summary["budget"].get("within_server_limit", 0)
        if lowered:
            flags.append(
                f"{lowered} generation(s) were asked with less than the "
                f"{budget['thinking']}-token thinking budget: the server's context allows "
                "no more (see budget in results.json)"
            )
    if summary["drafts_possible"]:
        flags.append(
            f"{summary['drafts_possible']} answer(s) may be drafts from inside a thought "
            + (
                "(--reasoning off read contents holding a thought whole): rerun with "
                "--reasoning auto"
                if reasoning == "off"
                else "(cut off by the token limit with no closing tag, in a run that "
                "thinks elsewhere): raise --max-tokens"
            )
        )
    if total:
        cut = summary["truncated"] + summary["truncated_in_reasoning"]
        if cut / total >= WARN_RATE:
            flags.append(
                f"{cut} of {total} generations were cut off by the token limit "
                f"({summary['truncated_in_reasoning']} inside their reasoning, with no "
                "answer): raise --max-tokens"
            )
        if no_answer / total >= WARN_RATE:
            flags.append(
                f"{no_answer} of {total} generations gave no answer in the "
                "expected format (see extraction in samples.jsonl)"
            )
    return summary, flags


def _budget_account(
    records: Sequence[Mapping[str, Any]], budget: Mapping[str, Any]
) -> dict[str, Any]:
    """The budget block: the rule's numbers and, per generation, which budget answered."""
    asked = [b for r in records for b in r.get("max_tokens") or () if isinstance(b, int)]
    first, thinking = budget.get("first"), budget.get("thinking")
    account = dict(budget)
    if isinstance(first, int):
        account["asked_again_with_room"] = sum(1 for b in asked if b > first)
        account["asked_again_without_thought"] = sum(
            1
            for r in records
            for b, shape in zip(r.get("max_tokens") or (), r.get("read_as") or ())
            if isinstance(b, int) and b > first and shape == "none"
        )
        account["within_server_limit"] = sum(
            1 for b in asked if b < first or (isinstance(thinking, int) and first < b < thinking)
        )
    return account
