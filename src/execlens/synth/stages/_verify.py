"""``verify``: label every first-turn prediction by execution, on its final part."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from execlens.synth._stage import Stage, register_stage
from execlens.synth._verify import prediction_task, turn_response


@register_stage
class VerifyStage(Stage):
    """Output predictions compared in the host; input predictions re-run in the engine."""

    name = "verify"
    order = 70
    reads = "prediction"
    writes = "verdict"

    def run(
        self, records: list[dict[str, Any]], shard: int, shards: int
    ) -> Iterator[dict[str, Any]]:
        """Yields each record with ``verdict_1`` = label, message (+ exception type)."""
        # The final part only: a draft inside the model's reasoning is never verified.
        tasks = [prediction_task(r["kind"], r["refcode"], r["input"], r["output"]) for r in records]
        verdicts = self.context.verify(tasks, [turn_response(r["turn_1"]).final for r in records])
        for record, verdict in zip(records, verdicts):
            self.counters[f"label:{verdict['label']}"] += 1
            yield {**record, "verdict_1": verdict}
