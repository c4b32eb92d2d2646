"""``predict``: the model's first-turn responses (n samples each), cached and resumable."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from execlens.synth._stage import Stage, register_stage


def sampling_params(settings: Any, n: int | None = None) -> Any:
    """``SamplingParams`` from a config's sampling section."""
    from execlens.models import SamplingParams

    return SamplingParams(n=n or settings.n, temperature=settings.temperature,
                          top_p=settings.top_p, max_tokens=settings.max_tokens,
                          seed=settings.seed)


@register_stage
class PredictStage(Stage):
    """Send each instance's prompt; one output record per sample."""

    name = "predict"
    needs_model = True

    def run(self, records: list[dict[str, Any]], shard: int, shards: int
            ) -> Iterator[dict[str, Any]]:
        """Yields ``<instance id>`` (n = 1) or ``<instance id>/s<j>`` records with
        ``turn_1`` = text and ``finish_reason``; failed samples are rejected by name."""
        from execlens.models import GenerationRequest

        params = sampling_params(self.config.sampling)
        requests = [GenerationRequest.chat(r["prompt"], params=params, id=r["id"])
                    for r in records]
        responses = self.context.client.generate_sync(requests)
        for record, response in zip(records, responses):
            for completion in response.completions:
                out = dict(record)
                if params.n > 1:
                    out["id"] = f"{record['id']}/s{completion.index}"
                out["sample"] = completion.index
                out["turn_1"] = {"text": completion.text,
                                 "finish_reason": completion.finish_reason}
                self.counters["samples"] += 1
                if not completion.ok:
                    yield self.reject(out, f"model_error:{completion.error}")
                    continue
                if completion.finish_reason == "length":
                    self.counters["truncated"] += 1
                yield out
