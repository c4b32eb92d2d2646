"""Scores of a runtime run: accuracy per kind, coverage precision/recall/F1, baselines.

Accuracy is over generations (every answer counts once).  Coverage's positive class is
"executed" (YES); an unparseable answer to an executed line counts as a missed YES.
The constant-answer baselines judge one fixed answer per kind (YES, NO, ``-1``, ``Nil``,
``None``) on exactly the questions the run asked, with the same judges: with balanced
selection, always-YES and always-NO score 50 % on coverage.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from execlens.judge import judge_task

from ._items import KINDS, RuntimeItem

__all__ = ["BASELINES", "runtime_metrics"]

#: A constant answer per kind (no constant input: a call is checked by running it).
BASELINES: dict[str, dict[str, str]] = {
    "always YES / -1 / Nil / None": {"coverage": "YES", "path": "-1", "state": "Nil",
                                    "output": "None"},
    "always NO / -1 / Nil / None": {"coverage": "NO", "path": "-1", "state": "Nil",
                                   "output": "None"},
}


def _percent(part: float, whole: float) -> float:
    return round(100.0 * part / whole, 2) if whole else 0.0


def _coverage_scores(pairs: Sequence[tuple[bool, str]]) -> dict[str, float]:
    """Precision, recall and F1 of YES from ``(reference, verdict label)`` pairs."""
    tp = sum(1 for ref, label in pairs if ref and label == "passed")
    fp = sum(1 for ref, label in pairs if not ref and label.startswith("wrong"))
    positives = sum(1 for ref, _ in pairs if ref)
    precision = _percent(tp, tp + fp)
    recall = _percent(tp, positives)
    f1 = round(2 * precision * recall / (precision + recall), 2) if precision + recall else 0.0
    return {"precision": precision, "recall": recall, "f1": f1}


def _named(kind: str, values: Mapping[str, float], single: bool) -> dict[str, float]:
    """A single-kind run's metrics by their own names; a composite run's as ``kind`` and
    ``kind f1``, so one table holds every kind."""
    if single:
        return dict(values)
    return {(kind if name == "accuracy" else f"{kind} {name}"): value
            for name, value in values.items()}


def _kind_scores(kind: str, pairs: Sequence[tuple[Any, str]]) -> dict[str, float]:
    scores = {"accuracy": _percent(sum(1 for _, label in pairs if label == "passed"),
                                   len(pairs))}
    if kind == "coverage":
        scores.update(_coverage_scores(pairs))
    return scores


def runtime_metrics(records: Sequence[Mapping[str, Any]], task: str,
                    items: Mapping[tuple[str, str], RuntimeItem],
                    notes: Sequence[str] = (), *, modes: Sequence[str] = ("strict",)
                    ) -> dict[str, Any]:
    """``{mode: {...}, "baselines": {...}, "detailed": {...}, "flags": [...]}``.

    ``items`` maps ``(kind, sample id)`` to the planned item (its reference); a record's
    kind is its ``task`` field, its sample id the record id without a ``kind:`` prefix.
    """
    by_kind: dict[str, dict[str, list[tuple[Any, str]]]] = {mode: {} for mode in modes}
    asked: dict[str, list[RuntimeItem]] = {}
    for record in records:
        kind = str(record.get("task") or task)
        ident = str(record["id"])
        if ident.startswith(f"{kind}:"):
            ident = ident[len(kind) + 1:]
        item = items.get((kind, ident))
        reference = item.task.reference if item is not None else None
        if item is not None:
            asked.setdefault(kind, []).append(item)
        for entry in record.get("generations") or ():
            for mode in modes:
                by_kind[mode].setdefault(kind, []).append((reference,
                                                           str(entry.get(mode, ""))))
    kinds = [kind for kind in KINDS if any(kind in found for found in by_kind.values())]
    single = len(kinds) == 1
    scores: dict[str, dict[str, float]] = {mode: {} for mode in modes}
    for mode in modes:
        for kind in kinds:
            scores[mode].update(_named(kind, _kind_scores(kind, by_kind[mode].get(kind, [])),
                                       single))
    baselines: dict[str, dict[str, float]] = {}
    for label, answers in BASELINES.items():
        row: dict[str, float] = {}
        for kind in kinds:
            if kind not in answers or not asked.get(kind):
                continue
            pairs = [(item.task.reference, judge_task(item.task, answers[kind]).label)
                     for item in asked[kind]]
            row.update(_named(kind, _kind_scores(kind, pairs), single))
        if row:
            baselines[label] = row
    if single and kinds and kinds[0] != "coverage":
        # The two rows differ only in the coverage answer: one row says it all.
        baselines = dict(list(baselines.items())[:1])
        baselines = {f"always {BASELINES[k][kinds[0]]}": v for k, v in baselines.items()}
    questions = {kind: len(asked.get(kind, ())) for kind in kinds}
    return {**scores, "baselines": baselines,
            "detailed": {mode: {"questions": questions} for mode in modes},
            "flags": list(notes)}
