"""``assemble``: the CodeI/O and CodeI/O++ datasets as chat ``messages`` (JSONL and
Parquet, loadable by ``datasets``) and the dataset card.

A reasoning model's turn keeps its thought in the assistant message, in the one shape
teacher chains use too (:meth:`~execlens.tasks.prompts.ModelResponse.as_target`:
``<think>\n{reasoning}\n</think>\n\n{final}``); a turn without one is its text."""

from __future__ import annotations

import json
from typing import Any

from execlens.synth._card import card_markdown, card_stats, card_svg
from execlens.synth._stage import Stage, register_stage
from execlens.synth._verify import turn_response

_FIELDS = ("id", "function_id", "source", "kind", "pair_index", "sample")


def _instance(record: dict[str, Any], messages: list[dict[str, str]],
              label: str) -> dict[str, Any]:
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
    return _instance(record, [{"role": "user", "content": record["prompt"]},
                              {"role": "assistant", "content": _target(record["turn_1"])}],
                     record["verdict_1"]["label"])


def codeio_pp_record(record: dict[str, Any]) -> dict[str, Any]:
    """CodeI/O++: turn 1 + feedback 1 (+ turn 2 + feedback 2 when revised), concatenated
    into one response as the paper does."""
    parts = [_target(record["turn_1"]), record["verdict_1"]["message"]]
    label = record["verdict_1"]["label"]
    if "verdict_2" in record:
        parts = [_target(record["turn_1"]), record["feedback_1"],
                 _target(record["turn_2"]), record["verdict_2"]["message"]]
        label = record["verdict_2"]["label"]
    return _instance(record, [{"role": "user", "content": record["prompt"]},
                              {"role": "assistant", "content": "\n\n".join(parts)}], label)


def _jsonl(records: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in records)


@register_stage
class AssembleStage(Stage):
    """Runs once over the final instances (a global stage)."""

    name = "assemble"
    global_stage = True

    def write(self, records: list[dict[str, Any]], run: Any,
              stage_records: dict[str, list[dict[str, Any]]],
              extra: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
        """Write the datasets (``codeio*.jsonl``/``.parquet``) and the card; returns the
        card's numbers."""
        final = sorted((r for r in records if "verdict_1" in r), key=lambda r: r["id"])
        datasets = {"codeio": [codeio_record(r) for r in final],
                    "codeio_pp": [codeio_pp_record(r) for r in final]}
        datasets.update({name: sorted(rows, key=lambda r: r["id"]) for name, rows in extra.items()})
        files: dict[str, int] = {}
        for name, rows in datasets.items():
            run.write_text(f"{name}.jsonl", _jsonl(rows))
            files[f"{name}.jsonl"] = len(rows)
            if rows:
                run.write_parquet(f"{name}.parquet", rows)
                files[f"{name}.parquet"] = len(rows)
        stats = card_stats(stage_records, final)
        stats["files"] = files
        title = f"execlens synth: {', '.join(sorted({s.label for s in self.config.sources}))}"
        run.write_json("card.json", stats)
        run.write_text("card.md", card_markdown(stats, files, title))
        run.write_text("card.svg", card_svg(stats))
        self.counters.update({f"file:{k}": v for k, v in files.items()})
        return stats
