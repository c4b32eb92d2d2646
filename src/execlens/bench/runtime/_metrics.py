"""Scores of a runtime run: accuracy per kind, coverage precision/recall/F1, baselines.

Accuracy is over generations (every answer counts once).  Coverage's positive class is
"executed" (YES); an unparseable answer to an executed line counts as a missed YES.
A full trace (``trace``) also reports its **mean step credit**: the judge's common-prefix
share of each generation (``execlens.judge.step_credit``; 1 for a passing answer, 0 for
an unparseable one), read again from the generation's answer -- the records keep
verdict labels only.
The constant-answer baselines judge one fixed answer per kind (YES, NO, ``-1``, ``Nil``,
``None``, ``[]``) on exactly the questions the run asked, with the same judges: with
balanced selection, always-YES and always-NO score 50 % on coverage.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from execlens.judge import judge_task
from execlens.tasks.kinds import get_kind

from ._items import RuntimeItem, runtime_kinds

__all__ = ["BASELINES", "runtime_metrics"]

#: A constant answer per kind (no constant input: a call is checked by running it).
# The labels stay as they were before full traces (reports and tests name them); the
# empty trace sits in the first row only (the second differs in the coverage answer).
BASELINES: dict[str, dict[str, str]] = {
    "always YES / -1 / Nil / None": {
        "coverage": "YES",
        "path": "-1",
        "state": "Nil",
        "output": "None",
        "trace": "[]",
    },
    "always NO / -1 / Nil / None": {
        "coverage": "NO",
        "path": "-1",
        "state": "Nil",
        "output": "None",
    },
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
    return {
        (kind if name == "accuracy" else f"{kind} {name}"): value for name, value in values.items()
    }


def _credit(item: RuntimeItem | None, answer: Any, label: str) -> float | None:
    """The step credit of one full-trace generation; None when its answer is unknown."""
    if label == "passed":
        return 1.0
    if item is None or not isinstance(answer, str):
        return None
    verdict = judge_task(item.task, answer)
    if verdict.passed:
        return 1.0
    credit = verdict.data.get("step_credit", 0.0)  # none for an unparseable answer
    return float(credit) if isinstance(credit, (int, float)) else 0.0


def _partial(kind: str) -> bool:
    """Whether ``kind``'s verdicts carry step credit (``trace``'s do)."""
    try:
        return get_kind(kind).partial_credit
    except KeyError:
        return False


def _kind_scores(
    kind: str, pairs: Sequence[tuple[Any, str]], credits: Sequence[float | None] = ()
) -> dict[str, float]:
    scores = {"accuracy": _percent(sum(1 for _, label in pairs if label == "passed"), len(pairs))}
    if kind == "coverage":
        scores.update(_coverage_scores(pairs))
    known = [c for c in credits if c is not None]
    if known and _partial(kind):
        scores["step credit"] = _percent(sum(known), len(known))
    return scores


_Tally = tuple[
    dict[str, dict[str, list[tuple[Any, str]]]],
    dict[str, list[float | None]],
    dict[str, list[RuntimeItem]],
]


def _record_key(record: Mapping[str, Any], task: str) -> tuple[str, str]:
    """A record's ``(kind, sample id)``: its ``task`` field (or the run's task) and its id
    without a ``kind:`` prefix."""
    kind = str(record.get("task") or task)
    ident = str(record["id"])
    if ident.startswith(f"{kind}:"):
        ident = ident[len(kind) + 1 :]
    return kind, ident


def _tally(
    records: Sequence[Mapping[str, Any]],
    task: str,
    items: Mapping[tuple[str, str], RuntimeItem],
    modes: Sequence[str],
    answers: Mapping[tuple[str, str], Sequence[str]] | None,
) -> _Tally:
    """Per mode, each kind's ``(reference, verdict label)`` pairs and the step credits of
    its generations; and per kind, the items the run asked."""
    by_kind: dict[str, dict[str, list[tuple[Any, str]]]] = {mode: {} for mode in modes}
    credits: dict[str, list[float | None]] = {mode: [] for mode in modes}
    asked: dict[str, list[RuntimeItem]] = {}
    for record in records:
        kind, ident = _record_key(record, task)
        item = items.get((kind, ident))
        reference = item.task.reference if item is not None else None
        if item is not None:
            asked.setdefault(kind, []).append(item)
        texts = record.get("answers") or (answers or {}).get((kind, ident)) or ()
        for index, entry in enumerate(record.get("generations") or ()):
            for mode in modes:
                label = str(entry.get(mode, ""))
                by_kind[mode].setdefault(kind, []).append((reference, label))
                if _partial(kind):
                    answer = texts[index] if index < len(texts) else None
                    credits[mode].append(_credit(item, answer, label))
    return by_kind, credits, asked


def _credit_flags(
    notes: Sequence[str], credits: Mapping[str, list[float | None]], modes: Sequence[str]
) -> list[str]:
    """The run's notes, and a flag when full-trace generations lack their answer."""
    flags = list(notes)
    unknown = sum(1 for credit in credits[modes[0]] if credit is None) if modes else 0
    if unknown:
        flags.append(
            f"{unknown} full-trace generation(s) without their answer: left out "
            "of the mean step credit"
        )
    return flags


def _baseline_row(
    answers_of: Mapping[str, str],
    kinds: Sequence[str],
    asked: Mapping[str, list[RuntimeItem]],
    single: bool,
) -> dict[str, float]:
    """One constant-answer baseline's scores on exactly the questions the run asked."""
    row: dict[str, float] = {}
    for kind in kinds:
        if kind not in answers_of or not asked.get(kind):
            continue
        constant = answers_of[kind]
        pairs = [
            (item.task.reference, judge_task(item.task, constant).label) for item in asked[kind]
        ]
        credits = [_credit(item, constant, label) for item, (_, label) in zip(asked[kind], pairs)]
        row.update(_named(kind, _kind_scores(kind, pairs, credits), single))
    return row


def _baselines(
    kinds: Sequence[str], asked: Mapping[str, list[RuntimeItem]], single: bool
) -> dict[str, dict[str, float]]:
    """The constant-answer baselines' rows (:data:`BASELINES`) that score anything."""
    baselines: dict[str, dict[str, float]] = {}
    for label, answers_of in BASELINES.items():
        row = _baseline_row(answers_of, kinds, asked, single)
        if row:
            baselines[label] = row
    if single and kinds and kinds[0] != "coverage":
        # The two rows differ only in the coverage answer: one row says it all.
        baselines = dict(list(baselines.items())[:1])
        baselines = {f"always {BASELINES[k][kinds[0]]}": v for k, v in baselines.items()}
    return baselines


def runtime_metrics(
    records: Sequence[Mapping[str, Any]],
    task: str,
    items: Mapping[tuple[str, str], RuntimeItem],
    notes: Sequence[str] = (),
    *,
    modes: Sequence[str] = ("strict",),
    answers: Mapping[tuple[str, str], Sequence[str]] | None = None,
) -> dict[str, Any]:
    """``{mode: {...}, "baselines": {...}, "detailed": {...}, "flags": [...]}``.

    ``items`` maps ``(kind, sample id)`` to the planned item (its reference); a record's
    kind is its ``task`` field, its sample id the record id without a ``kind:`` prefix.
    A full trace's step credit reads each generation's answer from the record's
    ``answers`` (an eval run's) or from ``answers`` (``(kind, sample id)`` to the texts
    a generations file gave).
    """
    by_kind, credits, asked = _tally(records, task, items, modes, answers)
    kinds = [kind for kind in runtime_kinds() if any(kind in found for found in by_kind.values())]
    single = len(kinds) == 1
    scores: dict[str, dict[str, float]] = {mode: {} for mode in modes}
    for mode in modes:
        for kind in kinds:
            scores[mode].update(
                _named(kind, _kind_scores(kind, by_kind[mode].get(kind, []), credits[mode]), single)
            )
    questions = {kind: len(asked.get(kind, ())) for kind in kinds}
    return {
        **scores,
        "baselines": _baselines(kinds, asked, single),
        "detailed": {mode: {"questions": questions} for mode in modes},
        "flags": _credit_flags(notes, credits, modes),
    }
