"""Atomic files and JSON reading."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet
import pytest

from execlens.store import (
    RunDir,
    StoreError,
    read_json,
    write_json_atomic,
    write_parquet_atomic,
    write_text_atomic,
)


def test_write_json_is_sorted_indented_with_newline(tmp_path: Path) -> None:
    write_json_atomic(tmp_path / "a" / "r.json", {"b": 1, "a": [1, 2]})
    assert (tmp_path / "a" / "r.json").read_text() == (
        '{\n  "a": [\n    1,\n    2\n  ],\n  "b": 1\n}\n'
    )
    assert read_json(tmp_path / "a" / "r.json") == {"a": [1, 2], "b": 1}


def test_run_write_json_matches_write_json_atomic(run_path: Path, tmp_path: Path) -> None:
    with RunDir.open(run_path, {}) as run:
        run.write_json("results.json", {"z": 1, "a": {"y": 2}})
    write_json_atomic(tmp_path / "direct.json", {"z": 1, "a": {"y": 2}})
    assert (run_path / "results.json").read_bytes() == (tmp_path / "direct.json").read_bytes()


def test_read_json_errors_name_the_file(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="does not exist"):
        read_json(tmp_path / "missing.json")
    write_text_atomic(tmp_path / "bad.json", '{"a": ')
    with pytest.raises(StoreError) as caught:
        read_json(tmp_path / "bad.json")
    assert "bad.json" in str(caught.value) and "line 1" in str(caught.value)
    (tmp_path / "latin.json").write_bytes(b'"\xff"')
    with pytest.raises(StoreError, match="not UTF-8"):
        read_json(tmp_path / "latin.json")


def test_write_parquet_atomic_from_records_and_table(tmp_path: Path) -> None:
    rows = write_parquet_atomic(tmp_path / "a.parquet", [{"x": 1}, {"x": 2}])
    assert rows == 2
    table = pyarrow.parquet.read_table(tmp_path / "a.parquet")
    write_parquet_atomic(tmp_path / "b.parquet", table)
    assert (tmp_path / "a.parquet").read_bytes() == (tmp_path / "b.parquet").read_bytes()


def test_writing_onto_a_directory_is_refused(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="is a directory"):
        write_text_atomic(tmp_path, "x")
