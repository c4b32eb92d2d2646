"""``collect``: executed I/O pairs per function, deterministic ones only."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from execlens.synth._collect import CollectSettings, collect_functions
from execlens.synth._stage import Stage, register_stage


@register_stage
class CollectStage(Stage):
    """Run generators (or stored pairs) in the engine; drop what does not reproduce."""

    name = "collect"
    order = 20
    reads = "function"
    writes = "collected"

    def run(
        self, records: list[dict[str, Any]], shard: int, shards: int
    ) -> Iterator[dict[str, Any]]:
        """Yields one record per function: ``pairs`` kept, or a named rejection."""
        config = self.config
        settings = CollectSettings(
            hash_seed=config.hash_seed,
            check_seed=config.check_seed,
            seed=config.seed,
            generator_calls=config.limits.generator_calls,
            run_seconds=config.limits.run_seconds,
            memory_mb=config.limits.memory_mb,
        )
        for record in collect_functions(
            self.context.engine, records, settings, check_engine=self.context.check_engine
        ):
            for kind, count in record["collect"].get("pair_classes", {}).items():
                self.counters[f"stored:{kind}"] += count
            self.counters["pairs_kept"] += len(record["pairs"])
            if record.get("reject"):
                self.counters[f"rejected:{record['reject']['reason']}"] += 1
            else:
                self.counters["functions_kept"] += 1
            yield record
