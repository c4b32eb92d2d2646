"""``difficulty`` (optional): the paper's CodeMix filter.  Sample k output predictions
per function (on its first pair) and keep functions whose success rate lies in the
configured band, e.g. 10-90 %."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from execlens.synth._prompts import render_prediction_prompt
from execlens.synth._stage import Stage, register_stage
from execlens.synth._verify import Check, verify_checks
from execlens.synth.stages._predict import sampling_params


@register_stage
class DifficultyStage(Stage):
    """Keep functions that the model solves sometimes, not always, not never."""

    name = "difficulty"
    needs_model = True

    def run(self, records: list[dict[str, Any]], shard: int, shards: int
            ) -> Iterator[dict[str, Any]]:
        """Yields every function with ``difficulty`` = its success rate; those outside
        the band rejected as ``too_easy`` / ``too_hard``."""
        from execlens.models import GenerationRequest

        band = self.config.difficulty
        params = sampling_params(self.config.sampling, n=band.samples)
        prompts = [render_prediction_prompt(
            "o", query=r["problem_description"], io_req=r["io_requirements"],
            given=r["pairs"][0]["input"], refcode=r["refcode"]) for r in records]
        responses = self.context.client.generate_sync(
            [GenerationRequest.chat(p, params=params, id=r["id"]) for p, r in zip(prompts, records)])
        checks: list[Check] = []
        for record, response in zip(records, responses):
            pair = record["pairs"][0]
            checks += [Check("o", c.text, record["refcode"], pair["input"], pair["output"])
                       for c in response.completions]
        verdicts = verify_checks(self.context.engine, checks)
        start = 0
        for record, response in zip(records, responses):
            mine = verdicts[start:start + len(response.completions)]
            start += len(response.completions)
            rate = sum(v["label"] == "success" for v in mine) / max(len(mine), 1)
            out = {**record, "difficulty": round(rate, 4)}
            if rate < band.low:
                yield self.reject(out, "too_hard", success_rate=rate)
            elif rate > band.high:
                yield self.reject(out, "too_easy", success_rate=rate)
            else:
                self.counters["kept"] += 1
                yield out
