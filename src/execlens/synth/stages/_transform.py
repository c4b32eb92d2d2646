"""``transform``: raw code → the unified format (main_solution, I/O description, input
generator, problem statement) through a model.  Every failed, truncated or malformed
response is kept with its named rejection; the input generator is kept."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from execlens.synth._prompts import TRANSFORM_TEMPLATE, render_transform_prompt
from execlens.synth._stage import ModelStage, register_stage
from execlens.synth._unified import parse_unified


@register_stage
class TransformStage(ModelStage):
    """Ask the model to restructure each code file; parse its four sections."""

    name = "transform"
    order = 10
    reads = "raw"
    writes = "function"
    sampling_key = "transform_sampling"

    def request(self, record: dict[str, Any]) -> Any:
        """One transform request per raw file."""
        from execlens.models import GenerationRequest, SamplingParams

        settings = self.config.transform_sampling
        params = SamplingParams(
            n=1,
            temperature=settings.temperature,
            top_p=settings.top_p,
            max_tokens=settings.max_tokens,
            seed=settings.seed,
        )
        template = self.config.templates.get("transform", TRANSFORM_TEMPLATE)
        return GenerationRequest.chat(
            render_transform_prompt(record["content"], template), params=params, id=record["id"]
        )

    def answers(
        self, records: list[dict[str, Any]], asked: list[dict[str, Any]], responses: list[Any]
    ) -> Iterator[dict[str, Any]]:
        """Yields function records or rejections."""
        for record, response in zip(asked, responses):
            completion = response.completions[0]
            out = {
                "id": record["id"],
                "source": record["source"],
                "keep": record["keep"],
                "meta": record.get("meta", {}),
                "transform": {
                    "response": completion.text,
                    "finish_reason": completion.finish_reason,
                },
            }
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
                out.update(
                    refcode=parsed.refcode,
                    funcname="main_solution",
                    io_requirements=parsed.io_requirements,
                    problem_description=parsed.problem_description,
                    input_generator=parsed.input_generator,
                    stored_ios=None,
                )
                yield out
