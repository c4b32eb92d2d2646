"""Scoring LiveCodeBench code-execution generations (records written here, in its format)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from execlens.bench import (
    Generations,
    GenerationsError,
    get_benchmark,
    match_generations,
    mean_pass_at_k,
    run_score,
)
from execlens.bench.lcb_exec import load_lcb_generations, load_lcb_problems
from execlens.cli import app
from execlens.engine import Engine

# Rows shaped like livecodebench/execution-v2 (code uses the names LiveCodeBench's
# import block provides: List, bisect_left, np).
ROWS = [
    {
        "question_id": "2831",
        "id": "sample_2",
        "function_name": "countPairs",
        "code": "def countPairs(nums: List[int], target: int) -> int:\n"
        "    return sum(1 for i in range(len(nums)) for j in range(i + 1, len(nums))\n"
        "               if nums[i] + nums[j] < target)",
        "input": "countPairs(nums = [-1, 1, 2, 3, 1], target = 2)",
        "output": "3",
    },
    {
        "question_id": "2900",
        "id": "sample_10",
        "function_name": "firstAbove",
        "code": "def firstAbove(a: List[int], x: int) -> int:\n    return bisect_left(a, x)",
        "input": "firstAbove(a = [1, 3, 5], x = 4)",
        "output": "2",
    },
    {
        "question_id": "3000",
        "id": "sample_1",
        "function_name": "halves",
        "code": (
            "def halves(n: int) -> List[float]:\n    return [float(v) for v in np.arange(n) / 2]"
        ),
        "input": "halves(n = 3)",
        "output": "[0.0, 0.5, 1.0]",
    },
]
PREDICTIONS = {
    "sample_2": ["3", "3 or True", "countPairs(nums = [-1, 1, 2, 3, 1], target = 2)", "4"],
    "sample_10": [
        "countPairs(nums = [-1, 1, 2, 3, 1], target = 2)",
        "firstAbove(a = [1, 3, 5], x = 4)",
    ],
    "sample_1": ["[0, 0.5, 1]", "[0.0, 0.5, 1.0]", "firstAbove(a=[1, 3, 5], x=4) and 0"],
}


# The remaining execution-v2 columns, so the rows load as the real dataset's do.
for _number, _row in enumerate(ROWS):
    _row.update(
        contest_id=f"weekly-{_number}",
        contest_date="2023-07-01T00:00:00",
        difficulty="easy",
        problem_id=_row["question_id"],
        numsteps=20,
    )


def _lcb_file(tmp_path: Path) -> Path:
    records = [
        dict(
            row, output_list=["..."] * len(PREDICTIONS[row["id"]]), pred_list=PREDICTIONS[row["id"]]
        )
        for row in ROWS
    ]
    path = tmp_path / "lcb_codeexecution_eval.json"
    path.write_text(json.dumps(records))
    return path


def test_lcb_generations_carry_their_problems(tmp_path: Path) -> None:
    gens, problems = load_lcb_generations(_lcb_file(tmp_path))
    assert problems is not None
    assert [p.id for p in problems] == ["sample_1", "sample_2", "sample_10"]  # LCB's order
    assert all(p.call == p.input for p in problems)  # the input is the full call
    assert gens["sample_10"] == PREDICTIONS["sample_10"]
    with pytest.raises(GenerationsError, match="lacks 'id' or 'pred_list'"):
        bad = tmp_path / "bad.json"
        bad.write_text(json.dumps([{"id": "sample_0"}]))
        load_lcb_generations(bad)


def test_official_and_strict_lcb_scoring(tmp_path: Path, engine: Engine) -> None:
    gens, problems = load_lcb_generations(_lcb_file(tmp_path))
    assert problems is not None
    items = match_generations(problems, gens, "lcb")
    result = run_score(tmp_path / "out", "lcb-exec", Generations("output", items), engine=engine)
    records = {
        json.loads(line)["id"]: json.loads(line)
        for line in (tmp_path / "out" / "samples.jsonl").read_text().splitlines()
    }
    # sample_2: the input call is skipped; "3 or True" passes officially.
    assert records["sample_2"]["official"] == [True, True, False]
    assert records["sample_2"]["strict"] == [True, False, False, False]
    # sample_10: the other problem's call is not this input: it runs (and fails); the
    # reference call is skipped.  Something ran, so the list is not reset.
    assert records["sample_10"]["official"] == [False]
    # sample_1: Python == lets [0, 0.5, 1] pass; strict wants floats.
    assert records["sample_1"]["official"] == [True, True, False]
    # Strict counts the generation sample_1 lacks (the file's others have 4) as a failure.
    assert records["sample_1"]["strict"] == [False, True, False, False]
    assert records["sample_1"]["missing"] == 1 and records["sample_10"]["missing"] == 2
    modes = result.results["modes"]
    official_lists = [records[i]["official"] for i in ("sample_1", "sample_2", "sample_10")]
    assert modes["official"]["pass@1"] == mean_pass_at_k(official_lists, 1)
    assert modes["strict"]["pass@1"] == pytest.approx((1 / 4 + 1 / 4 + 0) / 3 * 100)
    assert any("missing" in flag for flag in result.results["flags"])
    diff = result.results["differences"]["official_pass_strict_fail"]
    assert diff == {"strict unparseable:boolop": 1, "strict wrong:type_mismatch": 1}


def test_lcb_cli_with_separate_data(tmp_path: Path) -> None:
    data = tmp_path / "execution-v2.jsonl"
    data.write_text("\n".join(json.dumps(row) for row in ROWS) + "\n")
    assert [p.function for p in load_lcb_problems(data)] == ["halves", "countPairs", "firstAbove"]
    gens = tmp_path / "gens.json"
    gens.write_text(json.dumps(PREDICTIONS))
    result = CliRunner().invoke(
        app,
        [
            "score",
            str(gens),
            "--benchmark",
            "lcb-exec",
            "--data",
            str(data),
            "--out",
            str(tmp_path / "o"),
            "--workers",
            "2",
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    results = json.loads(result.stdout.strip().splitlines()[-1])
    assert results["benchmark"] == "lcb-exec" and results["samples"] == 3
    bad = CliRunner().invoke(
        app,
        [
            "score",
            str(gens),
            "--benchmark",
            "lcb-exec",
            "--task",
            "input",
            "--out",
            str(tmp_path / "p"),
        ],
    )
    assert bad.exit_code == 2 and "has no task 'input'" in bad.output


def test_reading_a_generations_file_through_the_benchmark(tmp_path: Path) -> None:
    loaded = get_benchmark("lcb-exec").read_generations(_lcb_file(tmp_path), None, None)
    assert loaded.task == "output"
    assert [item.id for item, _ in loaded.items] == ["sample_1", "sample_2", "sample_10"]
    assert "pass@1 only" in loaded.notes["note"]  # LiveCodeBench itself reports pass@1 only
