"""CodeMind's scores: accuracy per mode, as ``get_result`` computes it.

``get_result`` divides the correct answers by the problems with a ground truth (a
missing prediction counts as wrong); with one response per problem that is the share of
answers judged correct.  With ``n`` > 1 every answer counts once.  Strict also reports
how many answers it could not judge (no truth: the program fails or is nondeterministic
in the engine); they count as failures.  Official leaves out the answers ``get_result``
never reads (ids holding a dot: all of ClassEval), and has no ``accuracy`` when that is
all of them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ._official import DOTTED

__all__ = ["codemind_metrics"]


def _percent(part: int, whole: int) -> float:
    return round(100.0 * part / whole, 2) if whole else 0.0


def codemind_metrics(records: Sequence[Mapping[str, Any]], modes: Sequence[str]) -> dict[str, Any]:
    """``{mode: {"accuracy": percent}}`` plus flags for answers strict could not judge."""
    result: dict[str, Any] = {}
    flags: list[str] = []
    for mode in modes:
        lists = [list(record.get(mode, [])) for record in records]
        total = sum(len(verdicts) for verdicts in lists)
        # get_result never reads an id holding a dot: out of the numerator and denominator
        skipped = sum(
            1
            for record in records
            for entry in record.get("generations", [])
            if str(entry.get(mode, "")) == f"skipped:{DOTTED}"
        )
        if skipped and skipped == total:
            result[mode] = {}  # no accuracy (tables show none)
            flags.append(
                f"{mode}: upstream's checker cannot score these {skipped} answers (every id "
                "holds a dot, which get_result skips before dividing by zero): no accuracy"
            )
            continue
        passed = sum(v is True for vs in lists for v in vs)
        result[mode] = {"accuracy": _percent(passed, total - skipped)}
    no_truth = sum(
        1
        for record in records
        for entry in record.get("generations", [])
        if str(entry.get("strict", "")).startswith("reference_error")
    )
    if no_truth:
        samples = sum(
            1
            for record in records
            if any(
                str(e.get("strict", "")).startswith("reference_error")
                for e in record.get("generations", [])
            )
        )
        result["strict"]["no truth"] = no_truth
        flags.append(
            f"strict: {samples} sample(s) have no truth (the program fails "
            f"or is nondeterministic in the engine); their {no_truth} "
            "answer(s) count as failures"
        )
    if flags:
        result["flags"] = flags
    return result
