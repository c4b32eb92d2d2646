"""REval metrics: coverage accuracy/precision/recall/F1, state/path/output accuracy, the
incremental consistency score (IC), and the constant-answer baselines.

IC (REval's ``Consistency`` task) = 100/N · Σ w over the N questions, where each
question's C, S, P are its coverage/state/path verdicts and O its pair's output verdict:
w = 1 if C∧S∧P∧O; 0.5 if C∧S∧P∧¬O; 0.25 if C∧S∧¬P∧¬O; 0.125 if C∧¬S∧¬P∧¬O; else 0.
(REval's weights leave, e.g., C∧S∧¬P∧O at 0.)

Baselines answer every question with a constant -- NO / Nil / -1 (and an output that
fails), or always YES -- and are computed from the same truth the model is judged on, so
they are printed beside a model's numbers.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ._records import QuestionTruth

__all__ = ["ConfusionCounts", "baselines", "ic_weight", "incremental_consistency", "percent"]


def ic_weight(c: bool, s: bool, p: bool, o: bool) -> float:
    """One question's IC weight (REval's ``Consistency.run``)."""
    if c and s and p and o:
        return 1.0
    if c and s and p:
        return 0.5
    if c and s and not p and not o:
        return 0.25
    if c and not s and not p and not o:
        return 0.125
    return 0.0


def incremental_consistency(rows: Iterable[tuple[bool, bool, bool, bool]]) -> float | None:
    """IC in percent over ``(C, S, P, O)`` rows; None when there are none."""
    count = 0
    weight = 0.0
    for c, s, p, o in rows:
        count += 1
        weight += ic_weight(c, s, p, o)
    return 100.0 * weight / count if count else None


def percent(part: float, whole: float) -> float | None:
    """``100 · part / whole``, or None for an empty whole."""
    return 100.0 * part / whole if whole else None


@dataclass
class ConfusionCounts:
    """Coverage answers against the truth (positive = the line ran).

    A non-answer (strict: no clear YES/NO) is wrong: on a line that ran it counts as a
    false negative, on one that did not it is counted apart (``unanswered_negative``),
    neither a hit nor a false alarm.
    """

    tp: int = 0
    fp: int = 0
    fn: int = 0
    tn: int = 0
    unanswered: int = 0
    unanswered_negative: int = 0

    def add(self, answer: bool | None, executed: bool) -> None:
        """Count one answer (None: no readable answer)."""
        if answer is None:
            self.unanswered += 1
            if executed:
                self.fn += 1
            else:
                self.unanswered_negative += 1
        elif answer:
            if executed:
                self.tp += 1
            else:
                self.fp += 1
        elif executed:
            self.fn += 1
        else:
            self.tn += 1

    @property
    def total(self) -> int:
        """Questions counted."""
        return self.tp + self.fp + self.fn + self.tn + self.unanswered_negative

    def metrics(self) -> dict[str, Any]:
        """Accuracy, precision, recall, F1 (percent; None where undefined) and the counts."""
        n = self.total
        precision = percent(self.tp, self.tp + self.fp)
        recall = percent(self.tp, self.tp + self.fn)
        f1 = None
        if precision is not None and recall is not None:
            f1 = 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)
        return {
            "n": n,
            "accuracy": percent(self.tp + self.tn, n),
            "precision": precision,
            "recall": recall,
            "f1": f1,
            "tp": self.tp,
            "fp": self.fp,
            "fn": self.fn,
            "tn": self.tn,
            "unanswered": self.unanswered,
        }


def _coverage_baseline(truths: Sequence[QuestionTruth], answer: bool) -> dict[str, Any]:
    counts = ConfusionCounts()
    for truth in truths:
        counts.add(answer, truth.covered)
    return counts.metrics()


def baselines(truths: Sequence[QuestionTruth]) -> dict[str, Any]:
    """Constant-answer baselines over ``truths`` (one per scored question).

    ``no_nil_minus1``: coverage NO, state Nil, path -1, an output that fails -- with IC
    also given for a perfect output (``ic_perfect_output``).  ``always_yes``: coverage YES.
    """
    n = len(truths)
    rows = [(not t.covered, t.nil, -1 in t.next_lines) for t in truths]
    constant = {
        "n": n,
        "coverage": _coverage_baseline(truths, False),
        "state": percent(sum(s for _, s, _ in rows), n),
        "path": percent(sum(p for _, _, p in rows), n),
        "output": 0.0 if n else None,
        "ic": incremental_consistency((c, s, p, False) for c, s, p in rows),
        "ic_perfect_output": incremental_consistency((c, s, p, True) for c, s, p in rows),
    }
    return {
        "no_nil_minus1": constant,
        "always_yes": {"n": n, "coverage": _coverage_baseline(truths, True)},
    }
