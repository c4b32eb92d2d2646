"""CoCoNUT's released results files read as generations: the predictions as stored.

Upstream's runs stored a prediction per row (``Results/<Model>/.../*.csv``, columns
``HumanEval_ID|Filename, Name|Category, FunctionCall, Predicted, Actual, Matched,
Distance``) and scored the stored text -- ``Performance_Analysis.py`` reads each file with
pandas and compares ``str(entry['Predicted'])`` with the NoReps ground truth; it never
extracts a list again.  Several runs stored what the model wrote, not a clean list (an
unclosed ``[1, 2, 3``, fenced text, a sentence): extracting ``\\[.*?\\]`` from those
again changes hundreds of Distances and several matches.  So a results file is read as
predictions *already extracted*: each cell's text as pandas gives it (an empty cell and
pandas' other missing-value spellings become ``"nan"``, as ``str(NaN)``).

A row whose ``Actual`` is not the trace file's ground truth (NoReps or not) is named
in the run's notes: two rows of upstream's T1 Direct files store a trace polluted by
another module's lines (783, 1509, ...), which upstream scored against.

Rows are paired with the trace file's runs by task and call -- ``(HumanEval_ID,
FunctionCall)`` (the k-th row with that pair is its k-th run), ``(Filename, k)`` for
Advanced files -- since several released files list a task's tests in another order
than the trace file, and one (Claude CoT) lacks five rows: a run with no row has no
generation and is left out, as upstream's aggregates leave it out.
"""

from __future__ import annotations

import csv
from collections.abc import Sequence
from pathlib import Path

from execlens.bench import GenerationsError

from ._data import CocoItem
from ._score import noreps

__all__ = ["PANDAS_NA", "read_results_csv"]

#: pandas.read_csv's default missing-value strings: such a cell is NaN, and
#: ``str(NaN)`` is ``"nan"``.
PANDAS_NA = frozenset(
    {
        "",
        "#N/A",
        "#N/A N/A",
        "#NA",
        "-1.#IND",
        "-1.#QNAN",
        "-NaN",
        "-nan",
        "1.#IND",
        "1.#QNAN",
        "<NA>",
        "N/A",
        "NA",
        "NULL",
        "NaN",
        "None",
        "n/a",
        "nan",
        "null",
    }
)


def _stored(cell: str | None) -> str:
    """``str(entry['Predicted'])`` for a cell pandas read."""
    return "nan" if cell is None or cell in PANDAS_NA else cell


def read_results_csv(
    path: Path, items: Sequence[CocoItem]
) -> tuple[list[tuple[CocoItem, list[str]]], list[str]]:
    """``(run, [stored prediction])`` for every row of an upstream results file, in the
    trace file's order, and the runs whose row stores another ground truth (its
    ``Actual``, NoReps or not) than the trace file's -- upstream scored those rows
    against theirs, execlens scores them against the trace file's.  A row with no run to
    pair with is a :class:`GenerationsError` naming it."""
    runs: dict[tuple[str, str], list[CocoItem]] = {}
    for item in items:
        key = (item.group, item.arguments if item.call is not None else "")
        runs.setdefault(key, []).append(item)
    csv.field_size_limit(1 << 26)
    try:
        with path.open(newline="", encoding="utf-8") as handle:
            reader = csv.DictReader(handle)
            columns = set(reader.fieldnames or ())
            task = "HumanEval_ID" if "HumanEval_ID" in columns else "Filename"
            if task not in columns or "Predicted" not in columns:
                raise GenerationsError(
                    f"{path}: not a CoCoNUT results file (expected the columns "
                    "HumanEval_ID or Filename, and Predicted)"
                )
            taken: dict[tuple[str, str], int] = {}
            paired: dict[str, tuple[CocoItem, list[str]]] = {}
            differing: list[str] = []
            for row_number, row in enumerate(reader, 2):
                call = (row.get("FunctionCall") or "").strip() if task == "HumanEval_ID" else ""
                key = ((row.get(task) or "").strip(), call)
                index = taken.get(key, 0)
                taken[key] = index + 1
                candidates = runs.get(key, [])
                if index >= len(candidates):
                    raise GenerationsError(
                        f"{path}, row {row_number}: no run of {key[0]!r}"
                        + (f" called with ({call})" if call else "")
                        + f" left in the trace file (it has {len(candidates)})"
                    )
                item = candidates[index]
                paired[item.sample_id] = (item, [_stored(row.get("Predicted"))])
                actual = (row.get("Actual") or "").strip()
                if actual and actual not in (item.truth, noreps(item.truth)):
                    differing.append(item.sample_id)
    except UnicodeDecodeError as exc:
        raise GenerationsError(f"{path}: not UTF-8 text ({exc.reason})") from None
    except csv.Error as exc:
        raise GenerationsError(f"{path}: not a readable CSV file ({exc})") from None
    if not paired:
        raise GenerationsError(f"{path}: no rows")
    return [paired[item.sample_id] for item in items if item.sample_id in paired], differing
