"""CoCoNUT's results files as generations: predictions scored as upstream stored them (a
made-up results file in upstream's layout; no upstream data: it has no licence)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from execlens.bench import GenerationsError, get_benchmark, run_score
from execlens.bench.coconut import distance
from execlens.engine import Engine

DATA = Path(__file__).parent / "data" / "HumanEval_trace.csv"
BENCH = get_benchmark("coconut")
COLUMNS = ["HumanEval_ID", "Name", "FunctionCall", "Predicted", "Actual", "Matched", "Distance"]

# Rows out of the trace file's order (as several released files are), one run missing.
ROWS = [
    # an unclosed list, as some runs stored it: compared as it is (no [...] to re-extract)
    ("HumanEval/900", "below_zero", "[1, 2]", "[9, 10, 11, 12, 10, 11, 12, 10, 14"),
    # fenced text: re-extracting would find the right list; as stored it is no match
    (
        "HumanEval/900",
        "below_zero",
        "[1, 2, -4, 5]",
        "```[9, 10, 11, 12, 10, 11, 12, 10, 11, 12, 13]```",
    ),
    ("HumanEval/901", "f", "[1, 2, 3]", "[3]"),  # right against the NoReps truth
    ("HumanEval/901", "f", "[]", ""),  # an empty cell: pandas reads NaN, str() is "nan"
]


def _write(path: Path, rows: list[tuple[str, ...]], actual: dict[str, str] | None = None) -> Path:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(COLUMNS)
        for group, name, call, predicted in rows:
            truth = (actual or {}).get(call, "")
            writer.writerow([group, name, call, predicted, truth, "False", "0.0"])
    return path


def test_stored_predictions_are_scored_as_stored(tmp_path: Path, engine: Engine) -> None:
    path = _write(tmp_path / "results_NoReps.csv", ROWS, {"[]": "[3, 3]"})
    generations = BENCH.read_generations(path, str(DATA), None)
    assert [item.sample_id for item, _ in generations.items] == [
        "HumanEval/900#0",
        "HumanEval/900#1",
        "HumanEval/901#0",
        "HumanEval/901#1",
    ]  # the trace file's order; HumanEval/902 has no row and is left out
    assert generations.items[3][1] == ["nan"]
    assert "rows_with_another_truth" not in generations.notes  # "[3, 3]" is its truth
    run_score(tmp_path / "run", BENCH, generations, engine=engine)
    samples = [
        json.loads(line) for line in (tmp_path / "run" / "samples.jsonl").read_text().splitlines()
    ]
    labels = {s["id"]: s["generations"][0]["official"] for s in samples}
    # strict traces the runs itself (score prepares nothing): the right list passes, the
    # unclosed one is no list, the fenced one is read
    strict = {s["id"]: s["generations"][0]["strict"] for s in samples}
    assert strict["HumanEval/900#1"] == "unparseable:no_list"
    assert strict["HumanEval/900#0"] == "passed"
    unclosed = "[9, 10, 11, 12, 10, 11, 12, 10, 14"
    fenced = ROWS[1][3]
    assert labels == {
        "HumanEval/900#0": f"wrong:distance={distance(ROWS[1][3][3:-3], fenced):.6f}",
        "HumanEval/900#1": f"wrong:distance={distance(unclosed + ']', unclosed):.6f}",
        "HumanEval/901#0": "passed",
        "HumanEval/901#1": f"wrong:distance={distance('[3]', 'nan'):.6f}",
    }


def test_a_row_with_another_truth_is_named(tmp_path: Path) -> None:
    path = _write(tmp_path / "r.csv", ROWS[2:3], {"[1, 2, 3]": "[3, 783, 3]"})
    generations = BENCH.read_generations(path, str(DATA), None)
    assert generations.notes["rows_with_another_truth"] == ["HumanEval/901#0"]


def test_a_row_with_no_run_is_named(tmp_path: Path) -> None:
    path = _write(tmp_path / "r.csv", [("HumanEval/901", "f", "[7]", "[3]")])
    with pytest.raises(GenerationsError, match=r"row 2: no run of 'HumanEval/901' called with"):
        BENCH.read_generations(path, str(DATA), None)
    (tmp_path / "odd.csv").write_text("a,b\n1,2\n")
    with pytest.raises(GenerationsError, match="not a CoCoNUT results file"):
        BENCH.read_generations(tmp_path / "odd.csv", str(DATA), None)
