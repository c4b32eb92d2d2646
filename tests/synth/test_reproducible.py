"""Deterministic by construction (issue 17): ``execlens synth run`` on real reasoning-gym
functions (read in place, generators taking a ``random.Random``) gives byte-identical
datasets, cards and collect shards on a second run that is SIGKILLed mid-collect and
resumed, and under the Ray executor.  (The 500-function check:
``perf/synth_reproducible.py``.)"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from execlens.synth import load_config, run_pipeline

from .conftest import final_bytes, write_config

reasoning_gym = pytest.importorskip("reasoning_gym")

FUNCTIONS = 40
COLUMNS = {
    "refcode": "code_sample",
    "problem_description": "task_description",
    "io_requirements": "input_output_spec",
    "input_generator": "input_generator",
}


def _config(out: Path, **extra: object) -> dict[str, object]:
    data = Path(reasoning_gym.__file__).parent / "data" / "codeio.jsonl.gz"
    return {
        "out": str(out),
        "workers": 2,
        "shard_size": 5,
        "sources": [{"path": str(data), "limit": FUNCTIONS, "columns": COLUMNS}],
        "stages": ["collect", "prompts", "assemble"],
        **extra,
    }


def _everything(out: Path) -> dict[str, bytes]:
    files = final_bytes(out)
    for shard in sorted((out / "shards" / "collect").glob("*")):
        files[f"collect/{shard.name}"] = shard.read_bytes()
    return files


def _cli(config: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [str(Path(sys.executable).parent / "execlens"), "synth", "run", str(config), "--quiet"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


@pytest.fixture(scope="module")
def first_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    root = tmp_path_factory.mktemp("first")
    process = _cli(write_config(root / "run.yaml", _config(root / "out")))
    assert process.wait(timeout=300) == 0, process.stderr.read().decode()[-2000:]
    files = _everything(root / "out")
    assert {"codeio.jsonl", "card.json", "collect/00000.jsonl"} <= set(files)
    return files


def test_a_killed_and_resumed_run_is_byte_identical(
    first_run: dict[str, bytes], tmp_path: Path
) -> None:
    config = write_config(tmp_path / "run.yaml", _config(tmp_path / "out"))
    process = _cli(config)
    markers = tmp_path / "out" / ".done" / "collect"
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and process.poll() is None:
        if markers.is_dir() and len(list(markers.glob("*.json"))) >= 1:
            break
        time.sleep(0.02)
    assert process.poll() is None, "the run ended before it could be killed"
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    assert not (tmp_path / "out" / "card.json").exists()
    rerun = _cli(config)
    assert rerun.wait(timeout=300) == 0, rerun.stderr.read().decode()[-2000:]
    assert _everything(tmp_path / "out") == first_run


def test_the_ray_executor_is_byte_identical(first_run: dict[str, bytes], tmp_path: Path) -> None:
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        config = load_config(
            write_config(tmp_path / "run.yaml", _config(tmp_path / "out", executor="ray"))
        )
        run_pipeline(config, progress=False)
    finally:
        ray.shutdown()
    assert _everything(tmp_path / "out") == first_run
