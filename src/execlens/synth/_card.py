"""The dataset card: counts per stage, label and rejection reason, pairs per function,
first-turn accuracy, revision fix rate; Markdown, JSON and an SVG bar chart.

Everything here is a pure function of the records, so a resumed run writes the same
bytes (no timestamps, no pids)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from html import escape
from typing import Any

__all__ = ["card_markdown", "card_stats", "card_svg"]


def _rate(numerator: int, denominator: int) -> float | None:
    return round(numerator / denominator, 4) if denominator else None


def card_stats(
    stage_records: Mapping[str, Iterable[dict[str, Any]]], final: Iterable[dict[str, Any]]
) -> dict[str, Any]:
    """The card's numbers from every stage's output records and the final instances.

    One pass over each iterable, holding counts only: a run's shards stream through.
    """
    stages: dict[str, Any] = {}
    pairs_per_function: Counter[int] = Counter()
    stored_classes: Counter[str] = Counter()
    for name, records in stage_records.items():
        count = 0
        reasons: Counter[str] = Counter()
        for record in records:
            count += 1
            if record.get("reject"):
                reasons[record["reject"]["reason"]] += 1
            if name == "collect":
                stored_classes.update(record.get("collect", {}).get("pair_classes", {}))
                if not record.get("reject"):
                    pairs_per_function[len(record["pairs"])] += 1
        stages[name] = {
            "records": count,
            "accepted": count - sum(reasons.values()),
            "rejected": dict(sorted(reasons.items())),
        }
    first: Counter[str] = Counter()
    by_kind: dict[str, Counter[str]] = {"o": Counter(), "i": Counter()}
    second: Counter[str] = Counter()
    revised = 0
    for record in final:
        if "verdict_1" in record:
            first[record["verdict_1"]["label"]] += 1
            if record.get("kind") in by_kind:
                by_kind[record["kind"]][record["verdict_1"]["label"]] += 1
        if "verdict_2" in record:
            revised += 1
            second[record["verdict_2"]["label"]] += 1
    total = sum(first.values())
    return {
        "stages": stages,
        "pairs_per_function": {str(k): v for k, v in sorted(pairs_per_function.items())},
        "stored_pairs": dict(sorted(stored_classes.items())),
        "labels_turn_1": dict(sorted(first.items())),
        "labels_turn_1_by_kind": {k: dict(sorted(v.items())) for k, v in by_kind.items()},
        "labels_turn_2": dict(sorted(second.items())),
        "instances": total,
        "first_turn_accuracy": _rate(first.get("success", 0), total),
        "revised": revised,
        "revision_fix_rate": _rate(second.get("success", 0), revised),
    }


def _table(title: str, counts: dict[str, Any]) -> list[str]:
    if not counts:
        return []
    lines = [f"| {title} | count |", "|---|---:|"]
    lines += [f"| {escape(str(k))} | {v} |" for k, v in counts.items()]
    return lines + [""]


def card_markdown(stats: dict[str, Any], files: dict[str, int], title: str) -> str:
    """The Markdown card."""
    lines = [
        f"# {title}",
        "",
        "CodeI/O-style execution-prediction data, every answer verified by execution "
        "(execlens synth). CodeI/O: one (prompt, response) per prediction; CodeI/O++: "
        "turn 1, its feedback, the revision and its feedback concatenated as in the paper.",
        "",
        "## Files",
        "",
        "| file | records |",
        "|---|---:|",
    ]
    lines += [f"| {name} | {count} |" for name, count in files.items()]
    lines += [
        "",
        "## Stages",
        "",
        "| stage | records | accepted | rejected (by reason) |",
        "|---|---:|---:|---|",
    ]
    for name, stage in stats["stages"].items():
        reasons = ", ".join(f"{k}: {v}" for k, v in stage["rejected"].items()) or "-"
        lines.append(f"| {name} | {stage['records']} | {stage['accepted']} | {escape(reasons)} |")
    lines.append("")
    accuracy = stats["first_turn_accuracy"]
    fix = stats["revision_fix_rate"]
    lines += [
        "## Results",
        "",
        f"- instances: {stats['instances']}",
        f"- first-turn accuracy: {'n/a' if accuracy is None else f'{accuracy:.1%}'}",
        f"- revised: {stats['revised']}, fixed by the revision: "
        f"{'n/a' if fix is None else f'{fix:.1%}'}",
        "",
        "![counts](card.svg)",
        "",
    ]
    isolation = stats.get("isolation")
    if isolation:
        missing = ", ".join(isolation["missing"]) or "none"
        lines += [
            "## Sandbox",
            "",
            f"Answers were verified by execution with isolation {isolation['mode']!r} "
            f"(namespaces via {isolation['method']}; layers missing: {missing}).",
            "",
        ]
    lines += _table("turn-1 label", stats["labels_turn_1"])
    lines += _table("turn-2 label", stats["labels_turn_2"])
    lines += _table("pairs per function", stats["pairs_per_function"])
    lines += _table("stored pair on re-execution", stats["stored_pairs"])
    return "\n".join(lines).rstrip() + "\n"


def card_svg(stats: dict[str, Any]) -> str:
    """A horizontal bar chart of the card's counts (plain SVG, deterministic bytes)."""
    bars: list[tuple[str, int]] = []
    for name, stage in stats["stages"].items():
        bars.append((f"{name}: accepted", stage["accepted"]))
        bars += [(f"{name}: {reason}", n) for reason, n in stage["rejected"].items()]
    bars += [(f"turn 1: {k}", v) for k, v in stats["labels_turn_1"].items()]
    bars += [(f"turn 2: {k}", v) for k, v in stats["labels_turn_2"].items()]
    bars += [(f"{k} pairs/function", v) for k, v in stats["pairs_per_function"].items()]
    top = max([v for _, v in bars] + [1])
    row, label_w, bar_w = 18, 300, 360
    height = row * len(bars) + 20
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{label_w + bar_w + 60}" '
        f'height="{height}" font-family="sans-serif" font-size="11">'
    ]
    for index, (label, value) in enumerate(bars):
        y = 10 + index * row
        width = round(bar_w * value / top, 1)
        parts.append(
            f'<text x="{label_w - 6}" y="{y + 12}" text-anchor="end">{escape(label)}</text>'
        )
        parts.append(
            f'<rect x="{label_w}" y="{y + 2}" width="{width}" height="{row - 5}" fill="#4c78a8"/>'
        )
        parts.append(f'<text x="{label_w + width + 4}" y="{y + 12}">{value}</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"
