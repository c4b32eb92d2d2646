"""CoverageEval's data: the shipped copy is upstream's, the 538 evaluated pairs are
upstream's, the prompts equal upstream's ``zero_shot.jsonl`` for all 538, malformed
records are named."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from execlens.bench import DatasetError, DatasetUnavailableError, get_benchmark
from execlens.bench.coverage_eval import (
    COVERAGE_EVAL_SYSTEM,
    DATA_DIR,
    evaluated,
    load_coverage_eval,
    render_coverage_eval,
)


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_the_shipped_data_is_the_staged_upstream_copy(coverage_dir: Path) -> None:
    staged = sorted((coverage_dir / "data").glob("*.json"))
    shipped = sorted(DATA_DIR.glob("*.json"))
    assert [p.name for p in shipped] == [p.name for p in staged] and len(staged) == 164
    assert all(a.read_bytes() == b.read_bytes() for a, b in zip(shipped, staged))
    assert (DATA_DIR / "LICENSE.txt").read_bytes() == (coverage_dir / "LICENSE").read_bytes()


def test_the_evaluated_pairs_and_prompts_are_upstreams(coverage_dir: Path) -> None:
    tests = load_coverage_eval(None)  # the shipped copy
    assert len(tests) == 1160
    chosen = evaluated(tests)
    upstream = _rows(coverage_dir / "experiments" / "zero_shot.jsonl")
    assert len(chosen) == len(upstream) == 538
    by_id = {item.test_id: item for item in chosen}
    assert set(by_id) == {row["test_target"]["test_id"] for row in upstream}
    for row in upstream:
        item = by_id[row["test_target"]["test_id"]]
        prompt = render_coverage_eval(item, "direct")
        assert prompt.text == row["input"], item.test_id  # every byte, all 538
        assert item.shown_method == row["method"]  # the correct_bracketing twin quirk too
        assert item.coverage == row["output"]
        assert list(item.coverage_sequence) == row["test_target"]["coverage_sequence"]
        assert prompt.messages()[0] == {"role": "system", "content": COVERAGE_EVAL_SYSTEM}
    twins = [
        row for row in upstream if row["method"] != by_id[row["test_target"]["test_id"]].method
    ]
    assert sorted(int(row["test_target"]["test_id"]) for row in twins) == list(range(263, 275))
    assert COVERAGE_EVAL_SYSTEM.startswith("You are a terminal.\n\nInstruction:")
    assert "`coverage run -m  pytest code.py`" in COVERAGE_EVAL_SYSTEM


def test_the_registry_plans_the_538_from_a_data_directory(coverage_dir: Path) -> None:
    bench = get_benchmark("coverage-eval")
    records = bench.load(str(coverage_dir))  # the repository layout: data/ below
    [(task, items)] = bench.plan(records, "coverage", limit=5, offset=2)
    assert task == "coverage" and len(items) == 5
    [(_, every)] = bench.plan(records, "coverage", limit=None, offset=0)
    assert [i.sample_id for i in every[2:7]] == [i.sample_id for i in items]


@pytest.mark.parametrize(
    ("change", "named"),
    [
        (lambda row: row["tests"][1].pop("coverage_sequence"), "'coverage_sequence' is missing"),
        (lambda row: row["tests"][1].__setitem__("coverage_sequence", [">", "?"]), "holds '?'"),
        (
            lambda row: row["tests"][1].__setitem__("branch_sequence", ["?"]),
            "branch_sequence has 1",
        ),
        (lambda row: row.__setitem__("method", 3), "'method' should be str"),
    ],
)
def test_a_malformed_record_is_named(tmp_path: Path, change, named: str) -> None:
    shutil.copy(DATA_DIR / "0.json", tmp_path / "0.json")
    row = json.loads((tmp_path / "0.json").read_text())
    change(row)
    (tmp_path / "0.json").write_text(json.dumps(row))
    with pytest.raises(DatasetError) as caught:
        load_coverage_eval(tmp_path)
    message = str(caught.value)
    assert "0.json" in message and named in message
    if "test" in named or "sequence" in named:
        second = json.loads((DATA_DIR / "0.json").read_text())["tests"][1]["test_id"]
        assert f"test {second}" in message


def test_a_missing_source_is_named(tmp_path: Path) -> None:
    with pytest.raises(DatasetUnavailableError, match="no such file"):
        load_coverage_eval(tmp_path / "nowhere")
    with pytest.raises(DatasetUnavailableError, match="no <problem id>.json"):
        load_coverage_eval(tmp_path)
    (tmp_path / "1.json").write_text("{not json")
    with pytest.raises(DatasetError, match=r"1\.json: not a readable JSON file"):
        load_coverage_eval(tmp_path)
