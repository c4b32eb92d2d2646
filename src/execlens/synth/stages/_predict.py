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


def sampling_params(settings: Any, n: int | None = None) -> Any:
    """``SamplingParams`` from a config's sampling section."""
    from execlens.models import SamplingParams

    return SamplingParams(
        n=n or settings.n,
        temperature=settings.temperature,
        top_p=settings.top_p,
        max_tokens=settings.max_tokens,
        seed=settings.seed,
    )


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

        return GenerationRequest.chat(
            record["prompt"], params=sampling_params(self.config.sampling), id=record["id"]
        )

    def answers(
        self, records: list[dict[str, Any]], asked: list[dict[str, Any]], responses: list[Any]
    ) -> Iterator[dict[str, Any]]:
        """Yields ``<instance id>`` (n = 1) or ``<instance id>/s<j>`` records with
        ``turn_1`` = text, final, reasoning, finish_reason, status; failed samples and
        thoughts cut off by the token limit are rejected by name."""
        params = sampling_params(self.config.sampling)
        for record, response in zip(asked, responses):
            for completion in response.completions:
                out = dict(record)
                if params.n > 1:
                    out["id"] = f"{record['id']}/s{completion.index}"
                out["sample"] = completion.index
                self.counters["samples"] += 1
                if not completion.ok:
                    out["turn_1"] = {
                        "text": completion.text,
                        "finish_reason": completion.finish_reason,
                    }
                    yield self.reject(out, f"model_error:{completion.error}")
                    continue
                out["turn_1"] = read_turn(completion)
                if out["turn_1"]["status"] == TRUNCATED_IN_REASONING:
                    yield self.reject(out, TRUNCATED_IN_REASONING)
                    continue
                if completion.finish_reason == "length":
                    self.counters["truncated"] += 1
                yield out
