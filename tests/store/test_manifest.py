"""Manifests: identity decides resume; a different run is refused, naming the keys."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from execlens.store import ManifestMismatchError, RunDir, StoreError


def test_manifest_records_identity_and_versions(run_path: Path) -> None:
    with RunDir.open(run_path, {"model": "m", "limit": (1, 2)}) as run:
        assert run.manifest.identity == {"model": "m", "limit": [1, 2]}
        assert {"python", "execlens", "numpy", "pyarrow"} <= set(run.manifest.versions)
    data = json.loads((run_path / "manifest.json").read_text())
    assert data["identity"] == {"model": "m", "limit": [1, 2]}
    assert data["created"]


def test_same_identity_resumes_and_keeps_files(run_path: Path) -> None:
    with RunDir.open(run_path, {"model": "m"}) as run:
        run.shards("s").write(0, [{"a": 1}])
        created = run.manifest.created
    with RunDir.open(run_path, {"model": "m"}) as run:
        assert run.shards("s").completed() == [0]
        assert run.manifest.created == created


def test_mismatch_names_every_differing_key(run_path: Path) -> None:
    with RunDir.open(run_path, {"model": "m", "limit": 5, "seed": 0}):
        pass
    with pytest.raises(ManifestMismatchError) as caught:
        RunDir.open(run_path, {"model": "other", "limit": 6, "seed": 0, "extra": 1})
    assert caught.value.keys == ["extra", "limit", "model"]
    message = str(caught.value)
    assert "extra, limit, model" in message and "--overwrite" in message
    assert "--out" in message
    # The refused opener released the lock: the owner can come back.
    with RunDir.open(run_path, {"model": "m", "limit": 5, "seed": 0}):
        pass


def test_overwrite_clears_store_files_and_nothing_else(run_path: Path) -> None:
    with RunDir.open(run_path, {"v": 1}) as run:
        run.shards("s").write(0, [{"a": 1}])
        run.log("log.jsonl").append([{"id": "x"}])
        run.write_json("results.json", {"n": 1})
    (run_path / "notes.txt").write_text("mine")
    with RunDir.open(run_path, {"v": 2}, overwrite=True) as run:
        assert run.shards("s").completed() == []
        assert run.log("log.jsonl").read() == []
        assert not (run_path / "results.json").exists()
        assert not (run_path / "shards").exists()
        assert run.manifest.identity == {"v": 2}
    assert (run_path / "notes.txt").read_text() == "mine"


def test_out_naming_a_file_is_a_store_error(tmp_path: Path) -> None:
    target = tmp_path / "results.json"
    target.write_text("{}")
    with pytest.raises(StoreError, match="is a file, not a run directory"):
        RunDir.open(target, {})


def test_corrupt_manifest_is_a_named_error(run_path: Path) -> None:
    run_path.mkdir()
    (run_path / "manifest.json").write_text("{not json")
    with pytest.raises(StoreError) as caught:
        RunDir.open(run_path, {"v": 1})
    assert "manifest.json" in str(caught.value) and "\n" not in str(caught.value)
    with RunDir.open(run_path, {"v": 1}, overwrite=True) as run:
        assert run.manifest.identity == {"v": 1}


def test_identity_must_be_plain_json(run_path: Path) -> None:
    with pytest.raises(StoreError, match="not plain JSON"):
        RunDir.open(run_path, {"path": object()})
