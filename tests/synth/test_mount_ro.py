"""``mount_ro:`` in a synthesis config: a data directory the functions may read, and
nothing else of the host (the sandbox's minimal root hides it otherwise)."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from execlens.synth import SynthConfig, run_pipeline

REPO = Path(__file__).resolve().parents[2]
_FUNCTION = {
    "refcode": (
        "def main_solution(name):\n"
        "    with open(DATA + '/' + name) as handle:\n"
        "        return {'words': len(handle.read().split())}\n"
    ),
    "input_generator": (
        "import random\n"
        "def input_generator():\n"
        "    return {'name': random.choice(['a.txt', 'b.txt'])}\n"
    ),
}


@pytest.fixture
def data_dir_outside() -> Iterator[Path]:
    """A data directory beside the project (never visible to the sandbox by default)."""
    base = REPO.parent / f"execlens-synth-mount-{uuid.uuid4().hex}"
    base.mkdir()
    (base / "a.txt").write_text("one two three")
    (base / "b.txt").write_text("four five")
    try:
        yield base
    finally:
        for child in base.iterdir():
            child.unlink()
        base.rmdir()


def _run(tmp_path: Path, data: Path, mount: bool) -> dict[str, object]:
    source = tmp_path / "functions.jsonl"
    record = {**_FUNCTION, "refcode": f"DATA = {str(data)!r}\n" + _FUNCTION["refcode"]}
    source.write_text(json.dumps(record) + "\n")
    out = tmp_path / ("mounted" if mount else "hidden")
    config = SynthConfig.model_validate(
        {
            "out": str(out),
            "sources": [{"path": str(source), "pairs_per_function": 2}],
            "stages": ["collect"],
            "workers": 1,
            "mount_ro": [str(data)] if mount else [],
        }
    )
    return run_pipeline(config, progress=False)


def test_functions_read_a_mounted_data_directory_and_nothing_else(
    tmp_path: Path, data_dir_outside: Path
) -> None:
    hidden = _run(tmp_path, data_dir_outside, mount=False)
    assert hidden["kept"] == 0  # FileNotFoundError: the host directory is not there
    mounted = _run(tmp_path, data_dir_outside, mount=True)
    assert mounted["kept"] == 1, mounted
    records = [
        json.loads(line)
        for line in (tmp_path / "mounted" / "shards" / "collect" / "00000.jsonl")
        .read_text()
        .splitlines()
    ]
    pairs = {
        pair["input"]["name"]: pair["output"] for record in records for pair in record["pairs"]
    }
    assert pairs == {"a.txt": {"words": 3}, "b.txt": {"words": 2}}
