"""``prompts``: one output- and one input-prediction instance per kept pair."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from execlens.synth._prompts import render_prediction_prompt
from execlens.synth._stage import Stage, register_stage


@register_stage
class PromptsStage(Stage):
    """Render the paper's prediction prompts (templates configurable)."""

    name = "prompts"
    order = 50
    reads = "collected"
    writes = "instance"

    def run(self, records: list[dict[str, Any]], shard: int, shards: int
            ) -> Iterator[dict[str, Any]]:
        """Yields instances ``<function id>/<pair>/<o|i>``, output prediction first."""
        templates: dict[str, str] = {k: v for k, v in self.config.templates.items() if k in ("i", "o", "tip")}
        for record in records:
            for index, pair in enumerate(record["pairs"]):
                for kind in ("o", "i"):
                    given = pair["input"] if kind == "o" else pair["output"]
                    prompt = render_prediction_prompt(
                        kind, query=record["problem_description"],
                        io_req=record["io_requirements"], given=given,
                        refcode=record["refcode"], templates=templates)
                    self.counters[f"instances:{kind}"] += 1
                    yield {"id": f"{record['id']}/{index}/{kind}", "function_id": record["id"],
                           "source": record["source"], "pair_index": index, "kind": kind,
                           "refcode": record["refcode"], "input": pair["input"],
                           "output": pair["output"], "prompt": prompt}
