"""``transform``: raw code → the unified format (main_solution, I/O description, input
generator, problem statement) through a model.  Every failed, truncated or malformed
response is kept with its named rejection; the input generator is kept."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from execlens.synth._prompts import TRANSFORM_TEMPLATE, render_transform_prompt
from execlens.synth._stage import Stage, register_stage
from execlens.synth._unified import parse_unified


@register_stage
class TransformStage(Stage):
    """Ask the model to restructure each code file; parse its four sections."""

    name = "transform"
    needs_model = True

    def run(self, records: list[dict[str, Any]], shard: int, shards: int
            ) -> Iterator[dict[str, Any]]:
        """One transform request per raw file; yields function records or rejections."""
        from execlens.models import GenerationRequest, SamplingParams

        settings = self.config.transform_sampling
        params = SamplingParams(n=1, temperature=settings.temperature, top_p=settings.top_p,
                                max_tokens=settings.max_tokens, seed=settings.seed)
        template = self.config.templates.get("transform", TRANSFORM_TEMPLATE)
        requests = [GenerationRequest.chat(render_transform_prompt(r["content"], template),
                                           params=params, id=r["id"]) for r in records]
        responses = self.context.client.generate_sync(requests)
        for record, response in zip(records, responses):
            completion = response.completions[0]
            out = {"id": record["id"], "source": record["source"], "keep": record["keep"],
                   "meta": record.get("meta", {}),
                   "transform": {"response": completion.text,
                                 "finish_reason": completion.finish_reason}}
            self.counters["responses"] += 1
            if not completion.ok:
                yield self.reject(out, f"model_error:{completion.error}")
            elif completion.finish_reason == "length":
                yield self.reject(out, "truncated")
            else:
                parsed = parse_unified(completion.text or "")
                if parsed.reason is not None:
                    yield self.reject(out, parsed.reason)
                    continue
                self.counters["functions"] += 1
                out.update(refcode=parsed.refcode, funcname="main_solution",
                           io_requirements=parsed.io_requirements,
                           problem_description=parsed.problem_description,
                           input_generator=parsed.input_generator, stored_ios=None)
                yield out
