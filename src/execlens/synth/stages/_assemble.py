"""``assemble``: the CodeI/O and CodeI/O++ datasets as chat ``messages`` (JSONL and
Parquet, loadable by ``datasets``) and the dataset card, streamed from the finished
shards: the datasets are in the pipeline's input order (the sources' order, shard by
shard), whatever order the shards finished in.

A reasoning model's turn keeps its thought in the assistant message, in the one shape
teacher chains use too (:meth:`~execlens.tasks.prompts.ModelResponse.as_target`:
``<think>\n{reasoning}\n</think>\n\n{final}``); a turn without one is its text."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from execlens.synth._card import card_markdown, card_stats, card_svg
from execlens.synth._stage import RunOutputs, Stage, register_stage
from execlens.synth._verify import turn_response

_FIELDS = ("id", "function_id", "source", "kind", "pair_index", "sample")


def _instance(record: dict[str, Any], messages: list[dict[str, str]], label: str) -> dict[str, Any]:
    out = {k: record.get(k) for k in _FIELDS}
    out["messages"] = messages
    out["label"] = label
    return out


def _target(turn: dict[str, Any]) -> str:
    """A stored turn as training text: reasoning kept, in the teacher-chain shape."""
    response = turn_response(turn)
    return response.as_target() if response.reasoning else (turn.get("text") or "")


def codeio_record(record: dict[str, Any]) -> dict[str, Any]:
    """CodeI/O: the prompt and the first-turn response."""
    return _instance(
        record,
        [
            {"role": "user", "content": record["prompt"]},
            {"role": "assistant", "content": _target(record["turn_1"])},
        ],
        record["verdict_1"]["label"],
    )


def codeio_pp_record(record: dict[str, Any]) -> dict[str, Any]:
    """CodeI/O++: turn 1 + feedback 1 (+ turn 2 + feedback 2 when revised), concatenated
    into one response as the paper does."""
    parts = [_target(record["turn_1"]), record["verdict_1"]["message"]]
    label = record["verdict_1"]["label"]
    if "verdict_2" in record:
        parts = [
            _target(record["turn_1"]),
            record["feedback_1"],
            _target(record["turn_2"]),
            record["verdict_2"]["message"],
        ]
        label = record["verdict_2"]["label"]
    return _instance(
        record,
        [
            {"role": "user", "content": record["prompt"]},
            {"role": "assistant", "content": "\n\n".join(parts)},
        ],
        label,
    )


@register_stage
class AssembleStage(Stage):
    """Runs once over the finished run (a global stage), streaming: each dataset is
    written record by record (JSONL) and batch by batch (Parquet), so its size never
    sits in memory."""

    name = "assemble"
    order = 90
    global_stage = True

    def write(self, run: Any, outputs: RunOutputs) -> dict[str, Any]:
        """Write the datasets (``codeio*.jsonl``/``.parquet`` and those of side stages)
        and the card; returns the card's numbers."""
        from execlens.store import write_jsonl_stream, write_parquet_from_jsonl

        def final() -> Iterator[dict[str, Any]]:
            return (r for r in outputs.final() if "verdict_1" in r)

        datasets: dict[str, Callable[[], Iterable[dict[str, Any]]]] = {
            "codeio": lambda: map(codeio_record, final()),
            "codeio_pp": lambda: map(codeio_pp_record, final()),
        }
        for name in outputs.datasets():

            def side(name: str = name) -> Iterable[dict[str, Any]]:
                return outputs.datasets()[name]

            datasets[name] = side
        files: dict[str, int] = {}
        for name, rows in datasets.items():
            jsonl = run.file(f"{name}.jsonl")
            count = write_jsonl_stream(jsonl, rows())
            files[f"{name}.jsonl"] = count
            if count:
                files[f"{name}.parquet"] = write_parquet_from_jsonl(
                    run.file(f"{name}.parquet"), jsonl
                )
        stats = card_stats(outputs.stage_records(), final())
        stats["files"] = files
        stats["isolation"] = self.context.isolation()
        title = f"execlens synth: {', '.join(sorted({s.label for s in self.config.sources}))}"
        run.write_json("card.json", stats)
        run.write_text("card.md", card_markdown(stats, files, title))
        run.write_text("card.svg", card_svg(stats))
        self.counters.update({f"file:{k}": v for k, v in files.items()})
        return stats
