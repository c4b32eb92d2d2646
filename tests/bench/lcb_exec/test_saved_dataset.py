"""LiveCodeBench execution from a ``datasets`` folder (``save_to_disk``), optionally pinned
to its fingerprint (``--data PATH@FINGERPRINT``), or from Parquet, on the made-up rows of
test_score (written here into real ``datasets`` folders and Parquet files)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from execlens.bench import DatasetUnavailableError, get_benchmark
from execlens.bench.lcb_exec import load_lcb_exec

from .test_score import ROWS

datasets = pytest.importorskip("datasets")


@pytest.fixture
def saved(tmp_path: Path) -> tuple[Path, str]:
    dataset = datasets.Dataset.from_list([dict(row) for row in ROWS])
    folder = tmp_path / "execution-v2"
    dataset.save_to_disk(str(folder))
    return folder, str(datasets.load_from_disk(str(folder))._fingerprint)


def test_saved_folder_loads_with_its_fingerprint_recorded(saved: tuple[Path, str]) -> None:
    folder, fingerprint = saved
    loaded = load_lcb_exec(folder)
    assert loaded.errors == []
    assert sorted(s.id for s in loaded) == sorted(row["id"] for row in ROWS)
    assert loaded.source == f"{folder} (saved dataset, fingerprint {fingerprint})"
    # pinned: the same records; the pin is part of --data, hence of the run identity
    pinned = get_benchmark("lcb-exec").load(f"{folder}@{fingerprint}")
    assert [s.id for s in pinned] == [s.id for s in loaded]


def test_a_different_fingerprint_is_refused(saved: tuple[Path, str]) -> None:
    folder, fingerprint = saved
    with pytest.raises(DatasetUnavailableError, match=f"fingerprint is {fingerprint}, not"):
        load_lcb_exec(f"{folder}@0123456789abcdef")


def test_a_dataset_dict_needs_the_split(tmp_path: Path) -> None:
    folder = tmp_path / "dict"
    datasets.DatasetDict(
        {"train": datasets.Dataset.from_list([dict(r) for r in ROWS])}
    ).save_to_disk(str(folder))
    with pytest.raises(DatasetUnavailableError, match="no split 'test'"):
        load_lcb_exec(folder)
    assert len(load_lcb_exec(folder, split="train")) == len(ROWS)


def test_a_dataset_dict_with_a_test_split_loads_by_default(tmp_path: Path) -> None:
    folder = tmp_path / "dict"
    rows = [dict(row) for row in ROWS]
    datasets.DatasetDict(
        {"test": datasets.Dataset.from_list(rows), "train": datasets.Dataset.from_list(rows[:1])}
    ).save_to_disk(str(folder))
    loaded = load_lcb_exec(folder)
    assert loaded.errors == [] and sorted(s.id for s in loaded) == sorted(r["id"] for r in ROWS)
    assert "(saved dataset, fingerprint " in loaded.source


def test_a_parquet_file_or_the_hubs_parquet_layout_loads(tmp_path: Path) -> None:
    from_json = load_lcb_exec(_jsonl(tmp_path / "rows.jsonl"))
    parquet = tmp_path / "execution-v2.parquet"
    datasets.Dataset.from_list([dict(row) for row in ROWS]).to_parquet(str(parquet))
    assert load_lcb_exec(parquet).records == from_json.records
    shards = tmp_path / "snapshot" / "data"
    shards.mkdir(parents=True)
    for index, row in enumerate(ROWS):  # one row a shard: numbered across them
        datasets.Dataset.from_list([dict(row)]).to_parquet(
            str(shards / f"test-0000{index}-of-0000{len(ROWS)}.parquet")
        )
    loaded = load_lcb_exec(tmp_path / "snapshot")
    assert loaded.records == from_json.records
    assert loaded.source == str(shards / "test*.parquet")


def test_a_parquet_file_that_is_not_one_is_named(tmp_path: Path) -> None:
    bad = tmp_path / "rows.parquet"
    bad.write_text("not parquet")
    with pytest.raises(DatasetUnavailableError, match="not a readable Parquet file"):
        load_lcb_exec(bad)


def test_a_directory_that_is_neither_names_what_it_looked_for(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("hello")
    with pytest.raises(
        DatasetUnavailableError,
        match="looked for execution-v2.jsonl.*test\\*.parquet.*save_to_disk",
    ):
        load_lcb_exec(tmp_path)


def test_a_dataset_lacking_a_field_is_one_error_naming_the_fix(tmp_path: Path) -> None:
    folder = tmp_path / "other"
    rows = [{k: v for k, v in row.items() if k != "question_id"} for row in ROWS]
    datasets.Dataset.from_list(rows).save_to_disk(str(folder))
    loaded = load_lcb_exec(folder)
    assert loaded.records == []
    [error] = loaded.errors
    assert error.field == "question_id"
    assert "missing from every record: this is not LiveCodeBench execution data" in str(error)


def test_a_revision_with_a_local_path_is_refused(tmp_path: Path) -> None:
    with pytest.raises(DatasetUnavailableError, match="pins a hub load"):
        load_lcb_exec(_jsonl(tmp_path / "rows.jsonl"), revision="0123abc")


def _jsonl(path: Path) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in ROWS))
    return path
