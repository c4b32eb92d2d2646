"""Shards: written whole, marked after, merged by index, Parquet too."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet
import pytest

from execlens.store import CorruptRecordError, RunDir, StoreError


def test_markers_follow_the_shard_and_carry_stats(run_path: Path) -> None:
    with RunDir.open(run_path, {}) as run:
        shards = run.shards("samples")
        assert not shards.done(0)
        shards.write(0, [{"id": 1}, {"id": 2}], stats={"ok": 2})
        assert shards.done(0)
        assert shards.read(0) == [{"id": 1}, {"id": 2}]
        assert shards.stats(0) == {"ok": 2}
        marker = json.loads((run_path / ".done/samples/00000.json").read_text())
        assert marker["records"] == 2
        assert (run_path / "shards/samples/00000.jsonl").is_file()


def test_a_shard_without_marker_or_with_altered_file_is_not_done(run_path: Path) -> None:
    with RunDir.open(run_path, {}) as run:
        shards = run.shards("samples")
        shards.write(0, [{"id": 1}])
        # A killed writer leaves a shard file but no marker.
        shards.marker(0).unlink()
        assert not shards.done(0) and shards.completed() == []
        shards.write(0, [{"id": 1}])
        shards.path(0).write_text('{"id": 1}\n{"id": 2}\n')
        assert not shards.done(0)
        shards.marker(0).write_text("{torn")
        assert not shards.done(0)


def test_no_temporary_files_are_left_behind(run_path: Path) -> None:
    with RunDir.open(run_path, {}) as run:
        shards = run.shards("samples")
        for index in range(3):
            shards.write(index, [{"i": index}])
    leftovers = [p for p in run_path.rglob("*") if p.name.endswith(".tmp")]
    assert leftovers == []


def test_merge_is_by_index_not_completion_order(run_path: Path) -> None:
    with RunDir.open(run_path, {}) as run:
        shards = run.shards("samples")
        for index in (3, 0, 2, 1):
            shards.write(index, [{"i": index, "k": k} for k in range(2)])
        assert shards.completed() == [0, 1, 2, 3]
        count = shards.merge(run.file("all.jsonl"))
    lines = (run_path / "all.jsonl").read_text().splitlines()
    assert count == 8 == len(lines)
    assert [json.loads(line)["i"] for line in lines] == [0, 0, 1, 1, 2, 2, 3, 3]


def test_merge_skips_unfinished_shards(run_path: Path) -> None:
    with RunDir.open(run_path, {}) as run:
        shards = run.shards("samples")
        shards.write(0, [{"i": 0}])
        shards.write(1, [{"i": 1}])
        shards.marker(1).unlink()
        assert shards.merge(run_path / "all.jsonl") == 1


def test_corrupt_shard_line_names_file_and_line(run_path: Path) -> None:
    with RunDir.open(run_path, {}) as run:
        shards = run.shards("samples")
        shards.write(0, [{"i": 0}, {"i": 1}, {"i": 2}])
        shards.path(0).write_text('{"i": 0}\n{"i": \n{"i": 2}\n')
        with pytest.raises(CorruptRecordError) as caught:
            shards.read(0)
    assert caught.value.line == 2
    assert "00000.jsonl line 2" in str(caught.value)


def test_records_must_be_json_objects(run_path: Path) -> None:
    with RunDir.open(run_path, {}) as run:
        shards = run.shards("samples")
        with pytest.raises(StoreError, match="record 2 is a list"):
            shards.write(0, [{"i": 0}, [1, 2]])  # type: ignore[list-item]
        assert not shards.done(0)


def test_parquet_shards_merge_into_one_table(run_path: Path) -> None:
    with RunDir.open(run_path, {}) as run:
        shards = run.shards("train", format="parquet")
        shards.write(1, [{"prompt": "b", "score": None}])
        shards.write(0, [{"prompt": "a", "score": 1.5}])
        assert shards.path(0).suffix == ".parquet"
        assert shards.read(0) == [{"prompt": "a", "score": 1.5}]
        assert shards.merge(run.file("train.parquet")) == 2
    table = pyarrow.parquet.read_table(run_path / "train.parquet")
    assert table.to_pylist() == [{"prompt": "a", "score": 1.5}, {"prompt": "b", "score": None}]


def test_parquet_merge_is_byte_stable(tmp_path: Path) -> None:
    outputs = []
    for name in ("one", "two"):
        with RunDir.open(tmp_path / name, {}) as run:
            shards = run.shards("train", format="parquet")
            for index in (1, 0):
                shards.write(index, [{"x": index, "s": str(index)}])
            shards.merge(run.file("train.parquet"))
        outputs.append((tmp_path / name / "train.parquet").read_bytes())
    assert outputs[0] == outputs[1]


def test_bad_names_and_indices_are_refused(run_path: Path) -> None:
    with RunDir.open(run_path, {}) as run:
        with pytest.raises(StoreError):
            run.shards("../x")
        with pytest.raises(StoreError):
            run.shards("x", format="csv")  # type: ignore[arg-type]
        with pytest.raises(StoreError):
            run.shards("x").write(-1, [])
