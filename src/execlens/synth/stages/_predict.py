"""``predict``: the model's first-turn responses (n samples each), cached and resumable.

Each turn is stored read (:func:`~execlens.synth._verify.read_turn`): the raw text, and
apart from it the ``reasoning`` and the ``final`` part answers are verified on.  A
response cut off by the token limit inside its reasoning has no answer at all: it is
rejected as ``truncated_in_reasoning`` rather than labelled a wrong prediction.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from execlens.synth._stage import ModelStage, register_stage
from execlens.synth._verify import read_turn

#: The rejection of a response the token limit cut inside its reasoning.
TRUNCATED_IN_REASONING = "truncated_in_reasoning"


class ModelRequestsFailed(RuntimeError):
    """Model requests of a shard got no answer (server down, timeouts, 5xx, rate limits).

    Not a verdict: the shard is left unfinished, so a rerun asks exactly the failed
    requests again (the answered ones come back from the run's request cache), as
    ``execlens eval`` does.  A request the server refused (context length, auth, bad
    request) is a final, per-record rejection instead."""


def raise_on_failed_requests(stage: str, responses: list[Any]) -> None:
    """Raise :class:`ModelRequestsFailed` when a completion failed for a reason a rerun
    can fix (``execlens.models.request_failure_hint`` names no change to make)."""
    from collections import Counter

    from execlens.models import request_failure_hint

    failed = Counter(str(c.error) for response in responses for c in response.completions
                     if not c.ok and request_failure_hint(str(c.error)) is None)
    if failed:
        kinds = ", ".join(f"{n} {kind}" for kind, n in failed.most_common())
        raise ModelRequestsFailed(
            f"{stage}: {sum(failed.values())} model requests got no answer ({kinds}); "
            f"their shard was not recorded -- rerun the same command to ask them again")


def sampling_params(settings: Any, n: int | None = None) -> Any:
    """``SamplingParams`` from a config's sampling section."""
    from execlens.models import SamplingParams

    return SamplingParams(n=n or settings.n, temperature=settings.temperature,
                          top_p=settings.top_p, max_tokens=settings.max_tokens,
                          seed=settings.seed)


@register_stage
class PredictStage(ModelStage):
    """Send each instance's prompt; one output record per sample."""

    name = "predict"
    order = 60
    reads = "instance"
    writes = "prediction"

    def request(self, record: dict[str, Any]) -> Any:
        """The instance's prompt under the config's sampling."""
        from execlens.models import GenerationRequest

        return GenerationRequest.chat(record["prompt"], params=sampling_params(
            self.config.sampling), id=record["id"])

    def answers(self, records: list[dict[str, Any]], asked: list[dict[str, Any]],
                responses: list[Any]) -> Iterator[dict[str, Any]]:
        """Yields ``<instance id>`` (n = 1) or ``<instance id>/s<j>`` records with
        ``turn_1`` = text, final, reasoning, finish_reason, status; failed samples and
        thoughts cut off by the token limit are rejected by name."""
        raise_on_failed_requests(self.name, responses)
        params = sampling_params(self.config.sampling)
        for record, response in zip(asked, responses):
            for completion in response.completions:
                out = dict(record)
                if params.n > 1:
                    out["id"] = f"{record['id']}/s{completion.index}"
                out["sample"] = completion.index
                self.counters["samples"] += 1
                if not completion.ok:
                    out["turn_1"] = {"text": completion.text,
                                     "finish_reason": completion.finish_reason}
                    yield self.reject(out, f"model_error:{completion.error}")
                    continue
                out["turn_1"] = read_turn(completion)
                if out["turn_1"]["status"] == TRUNCATED_IN_REASONING:
                    yield self.reject(out, TRUNCATED_IN_REASONING)
                    continue
                if completion.finish_reason == "length":
                    self.counters["truncated"] += 1
                yield out
