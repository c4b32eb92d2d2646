"""``execlens eval`` on hub data, pinned (``--data-revision``) or not: one ``warning:``
line for an unpinned load, and the data's fingerprint in the run identity either way.

The hub cannot be reached from the test machines: LiveCodeBench's hub name is pointed
at a local folder in the hub's Parquet layout, which ``datasets.load_dataset`` reads
for real.  Nothing answers at the base URL: the run starts (its manifest is written)
and ends with exit 1, which is all these cases need.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from execlens.cli import app

from ..bench.lcb_exec.test_score import ROWS

datasets = pytest.importorskip("datasets")


@pytest.fixture
def local_hub(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """LiveCodeBench's hub dataset, as a local folder of Parquet shards."""
    folder = tmp_path / "execution-v2" / "data"
    folder.mkdir(parents=True)
    datasets.Dataset.from_list([dict(row) for row in ROWS]).to_parquet(
        str(folder / "test-00000-of-00001.parquet")
    )
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", tmp_path / "hf-cache")
    monkeypatch.setattr("execlens.bench.lcb_exec._data.LCB_EXEC_HUB", str(folder.parent))
    monkeypatch.setenv("EXECLENS_CACHE_DIR", str(tmp_path / "cache"))
    return folder.parent


def _eval(out: Path, *extra: str) -> Result:
    return CliRunner().invoke(
        app,
        [
            "eval",
            "--benchmark",
            "lcb-exec",
            "--model",
            "m",
            "--base-url",
            "http://127.0.0.1:9/v1",
            "--n",
            "1",
            "--retries",
            "0",
            "-o",
            str(out),
            *extra,
        ],
        env={"EXECLENS_NO_HEALTH_CHECK": "1"},
    )


def _identity(out: Path) -> dict[str, object]:
    return dict(json.loads((out / "manifest.json").read_text())["identity"])


def test_an_unpinned_hub_load_warns_once_and_records_a_digest(
    local_hub: Path, tmp_path: Path
) -> None:
    result = _eval(tmp_path / "o")
    assert result.exit_code == 1, result.output  # nothing answered; the run did start
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert warnings == [warnings[0]] and "is not pinned to a revision" in warnings[0]
    assert f"hf://{local_hub}:test" in warnings[0] and "--data-revision" in warnings[0]
    fingerprint = _identity(tmp_path / "o")["data_fingerprint"]
    assert isinstance(fingerprint, dict) and set(fingerprint) == {"sha256"}
    assert fingerprint["sha256"][:12] in warnings[0]


def test_a_pinned_hub_load_records_its_revision_and_does_not_warn(
    local_hub: Path, tmp_path: Path
) -> None:
    result = _eval(tmp_path / "o", "--data-revision", "0123abc")
    assert result.exit_code == 1, result.output
    assert "warning: hf://" not in result.stderr
    assert _identity(tmp_path / "o")["data_fingerprint"] == {"revision": "0123abc"}
    # Another revision into the same --out is another run, named as such.
    again = _eval(tmp_path / "o", "--data-revision", "4567def")
    assert again.exit_code == 2 and "differs in: data_fingerprint" in again.stderr
