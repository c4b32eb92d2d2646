"""``difficulty`` (optional): the paper's CodeMix filter.  Sample k output predictions
per function (on its first pair) and keep functions whose success rate lies in the
configured band, e.g. 10-90 %."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from execlens.synth._prompts import render_prediction_prompt
from execlens.synth._stage import ModelStage, register_stage
from execlens.synth._verify import prediction_task
from execlens.synth.stages._predict import sampling_params
from execlens.tasks import Task


class DifficultySettings(BaseModel):
    """``difficulty:`` -- the CodeMix filter: keep functions whose k-sample success rate
    lies in [low, high]."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    samples: int = Field(default=4, ge=1)
    low: float = Field(default=0.1, ge=0.0, le=1.0)
    high: float = Field(default=0.9, ge=0.0, le=1.0)

    @model_validator(mode="after")
    def _band(self) -> DifficultySettings:
        if self.low > self.high:
            raise ValueError("low must not exceed high")
        return self


@register_stage
class DifficultyStage(ModelStage):
    """Keep functions that the model solves sometimes, not always, not never."""

    name = "difficulty"
    order = 30
    reads = "collected"
    writes = "collected"
    settings_model = DifficultySettings

    def request(self, record: dict[str, Any]) -> Any:
        """k output predictions of the function's first pair."""
        from execlens.models import GenerationRequest

        params = sampling_params(self.config.sampling, n=self.settings.samples)
        prompt = render_prediction_prompt(
            "o",
            query=record["problem_description"],
            io_req=record["io_requirements"],
            given=record["pairs"][0]["input"],
            refcode=record["refcode"],
        )
        return GenerationRequest.chat(prompt, params=params, id=record["id"])

    def answers(
        self, records: list[dict[str, Any]], asked: list[dict[str, Any]], responses: list[Any]
    ) -> Iterator[dict[str, Any]]:
        """Yields every function with ``difficulty`` = its success rate; those outside
        the band rejected as ``too_easy`` / ``too_hard``."""
        band = self.settings
        tasks: list[Task] = []
        texts: list[str | None] = []
        for record, response in zip(asked, responses):
            pair = record["pairs"][0]
            task = prediction_task("o", record["refcode"], pair["input"], pair["output"])
            tasks += [task] * len(response.completions)
            texts += [c.text for c in response.completions]
        verdicts = self.context.verify(tasks, texts)
        start = 0
        for record, response in zip(asked, responses):
            mine = verdicts[start : start + len(response.completions)]
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
