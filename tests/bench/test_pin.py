"""Pinning benchmark data to a hub revision, and the data's fingerprint in a run identity.

The hub cannot be reached from the test machines: a local folder of Parquet files (the
hub's own layout) stands in for a hub dataset -- ``datasets.load_dataset`` reads it for
real -- and the offline switches show that a revision reaches the hub path, by name.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from execlens.bench import (
    DataOptionError,
    check_data_options,
    check_revision_used,
    data_fingerprint,
    data_revision,
    hub_rows,
    unpinned_warning,
)

datasets = pytest.importorskip("datasets")


@pytest.fixture
def local_hub(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A dataset folder in the hub's Parquet layout; ``datasets``' cache under tmp_path."""
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", tmp_path / "cache")
    folder = tmp_path / "hub" / "data"
    folder.mkdir(parents=True)
    datasets.Dataset.from_list([{"id": "a", "x": 1}, {"id": "b", "x": 2}]).to_parquet(
        str(folder / "test-00000-of-00001.parquet")
    )
    return folder.parent


def test_a_revision_reaches_every_hub_load_in_its_block(local_hub: Path) -> None:
    with data_revision("0123abc") as loads:
        source, rows = hub_rows(str(local_hub), None, "test")
    assert source == f"hf://{local_hub}:test@0123abc"
    assert [row for _, row in rows] == [{"id": "a", "x": 1}, {"id": "b", "x": 2}]
    assert loads.sources == [source]
    assert data_fingerprint(rows, loads) == {"revision": "0123abc"}
    assert unpinned_warning(loads, data_fingerprint(rows, loads)) is None
    # Outside the block: the hub's current version, and nothing is recorded.
    source, _ = hub_rows(str(local_hub), None, "test")
    assert source == f"hf://{local_hub}:test"


def test_an_unpinned_load_is_fingerprinted_by_its_rows_and_warned_about(local_hub: Path) -> None:
    with data_revision(None) as loads:
        _, rows = hub_rows(str(local_hub), None, "test")
    fingerprint = data_fingerprint(rows, loads)
    assert set(fingerprint) == {"sha256"}
    changed = [rows[0], (2, {"id": "b", "x": 3})]
    assert data_fingerprint(changed, loads) != fingerprint  # another version, another run
    warning = unpinned_warning(loads, fingerprint)
    assert warning is not None and warning.startswith(f"hf://{local_hub}:test is not pinned")
    assert fingerprint["sha256"][:12] in warning and "--data-revision COMMIT" in warning
    # A local copy is fingerprinted the same way, with no warning: it is the user's own.
    with data_revision(None) as local:
        pass
    assert unpinned_warning(local, data_fingerprint(rows, local)) is None


def test_a_revision_that_cannot_apply_is_refused() -> None:
    check_data_options(None, "0123abc")
    check_data_options("rows.jsonl", None)
    with pytest.raises(DataOptionError, match="drop --data to load the hub at 0123abc"):
        check_data_options("rows.jsonl", "0123abc")
    with pytest.raises(DataOptionError, match="--data-revision is empty"):
        check_data_options(None, " ")
    with data_revision("0123abc") as loads:
        pass  # a benchmark whose data ships: no hub load happened
    with pytest.raises(DataOptionError, match="cruxeval loaded no Hugging Face hub dataset"):
        check_revision_used(loads, "cruxeval")


OFFLINE = textwrap.dedent(
    """
    from execlens.bench import DatasetUnavailableError, hub_rows
    try:
        hub_rows("livecodebench/execution-v2", None, "test", revision="0123abc")
    except DatasetUnavailableError as exc:
        print(exc)
    """
)


def test_offline_the_error_names_the_revision(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
        "HF_HOME": str(tmp_path / "hf"),
    }
    run = subprocess.run(
        [sys.executable, "-c", OFFLINE], capture_output=True, text=True, env=env, timeout=300
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith(
        "cannot load hf://livecodebench/execution-v2:test at "
        "revision 0123abc from the Hugging Face hub"
    ), run.stdout
    assert "pass a local copy with --data PATH" in run.stdout
