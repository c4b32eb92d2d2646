"""``revise`` (CodeI/O++): every non-success gets a second turn with the execution
feedback and the paper's redo request; the second answer is verified again.

Reasoning models: the first turn goes back to the model as its final part only (servers
expect no reasoning in the history); the second turn is stored read like the first, and
one cut off inside its reasoning gets the label ``truncated_in_reasoning`` unverified."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from execlens.synth._prompts import REDO_SUFFIX
from execlens.synth._stage import ModelStage, register_stage
from execlens.synth._verify import (
    prediction_task,
    read_turn,
    turn_response,
)
from execlens.synth.stages._predict import TRUNCATED_IN_REASONING, sampling_params


@register_stage
class ReviseStage(ModelStage):
    """One revision turn for the wrong; successes pass through unchanged."""

    name = "revise"
    order = 80
    reads = "verdict"
    writes = "verdict"

    def asks(self, record: dict[str, Any]) -> bool:
        """Only a first turn that is not a success is revised."""
        return record["verdict_1"]["label"] != "success"

    def request(self, record: dict[str, Any]) -> Any:
        """Turn 1 (its final part), the execution feedback and the redo request."""
        from execlens.models import GenerationRequest

        return GenerationRequest.chat(
            [
                {"role": "user", "content": record["prompt"]},
                {"role": "assistant", "content": turn_response(record["turn_1"]).final},
                {"role": "user", "content": record["verdict_1"]["message"] + REDO_SUFFIX},
            ],
            params=sampling_params(self.config.sampling, n=1),
            id=record["id"],
        )

    def answers(
        self, records: list[dict[str, Any]], wrong: list[dict[str, Any]], responses: list[Any]
    ) -> Iterator[dict[str, Any]]:
        """Yields every record; revised ones gain ``feedback_1``, ``turn_2``, ``verdict_2``."""
        revised: dict[str, dict[str, Any]] = {}
        pending: list[dict[str, Any]] = []
        for record, response in zip(wrong, responses):
            completion = response.completions[0]
            out = {**record, "feedback_1": record["verdict_1"]["message"] + REDO_SUFFIX}
            if not completion.ok:
                out["turn_2"] = {"text": completion.text, "finish_reason": completion.finish_reason}
                out["verdict_2"] = {
                    "label": "model_error",
                    "message": f"no second turn: {completion.error}",
                }
                revised[record["id"]] = out
                continue
            out["turn_2"] = read_turn(completion)
            if out["turn_2"]["status"] == TRUNCATED_IN_REASONING:
                out["verdict_2"] = {
                    "label": TRUNCATED_IN_REASONING,
                    "message": (
                        "no second answer: the token limit cut the response inside its reasoning"
                    ),
                }
                revised[record["id"]] = out
            else:
                pending.append(out)
        tasks = [prediction_task(r["kind"], r["refcode"], r["input"], r["output"]) for r in pending]
        texts = [turn_response(r["turn_2"]).final for r in pending]
        for record, verdict in zip(pending, self.context.verify(tasks, texts)):
            revised[record["id"]] = {**record, "verdict_2": verdict}
        for record in records:
            out = revised.get(record["id"], record)
            if "verdict_2" in out:
                self.counters[f"label_2:{out['verdict_2']['label']}"] += 1
            yield out
