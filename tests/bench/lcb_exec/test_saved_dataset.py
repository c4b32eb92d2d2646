"""LiveCodeBench execution from a ``datasets`` folder (``save_to_disk``), optionally pinned
to its fingerprint (``--data PATH@FINGERPRINT``), on the made-up rows of test_score."""

from __future__ import annotations

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
    datasets.DatasetDict({"train": datasets.Dataset.from_list([dict(r) for r in ROWS])}
                         ).save_to_disk(str(folder))
    with pytest.raises(DatasetUnavailableError, match="no split 'test'"):
        load_lcb_exec(folder)
    assert len(load_lcb_exec(folder, split="train")) == len(ROWS)
