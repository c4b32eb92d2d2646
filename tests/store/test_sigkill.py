"""The contract: SIGKILL anywhere, rerun, and the final files are byte-identical."""

from __future__ import annotations

import random
import signal
import time
from pathlib import Path

from .conftest import start_child, wait_ready

# Shards and a log written in a loop, each shard slow enough that kills land inside
# writes, between a shard and its marker, and mid-append.
WRITER = """
import sys, time
import pyarrow, pyarrow.parquet
from execlens.store import RunDir
# Warm pyarrow up before "ready" (its first write costs ~0.3 s): kill times measure writing.
pyarrow.parquet.write_table(pyarrow.Table.from_pylist([{"x": 1}]), pyarrow.BufferOutputStream())
SHARDS, PER = 24, 150
with RunDir.open(sys.argv[1], {"job": "kill-test", "shards": SHARDS}) as run:
    print("ready", flush=True)
    shards = run.shards("samples")
    table = run.shards("table", format="parquet")
    log = run.log("events.jsonl")
    seen = log.keys()
    for i in range(SHARDS):
        records = [{"id": f"{i}-{k}", "shard": i, "text": "x" * (k % 17)} for k in range(PER)]
        fresh = [r for r in records if r["id"] not in seen]
        for start in range(0, len(fresh), 40):
            log.append(fresh[start:start + 40])
        if not shards.done(i):
            shards.write(i, records, stats={"n": PER})
        if not table.done(i):
            table.write(i, records[:10])
        time.sleep(0.004)
    shards.merge(run.file("samples.jsonl"))
    table.merge(run.file("table.parquet"))
    events = sorted(log.read(), key=lambda r: (r["shard"], int(r["id"].split("-")[1])))
    run.write_json("results.json", {"events": len(events), "problems": log.problems,
                                    "ids": [r["id"] for r in events]})
    print("finished", flush=True)
"""

FINAL_FILES = ("samples.jsonl", "table.parquet", "results.json")


def _run_to_completion(path: Path) -> None:
    child = start_child(WRITER, str(path))
    out, err = child.communicate(timeout=120)
    assert child.returncode == 0, err
    assert out.split() == ["ready", "finished"]


def test_sigkilled_writer_resumes_to_byte_identical_output(tmp_path: Path) -> None:
    reference = tmp_path / "reference"
    _run_to_completion(reference)

    killed = tmp_path / "killed"
    markers = killed / ".done" / "samples"
    rng = random.Random(20261124)
    progress = []
    # Kill once the run has got past each of these shard counts (plus a random few ms,
    # so kills land inside writes, between a shard and its marker, and mid-append):
    # triggered by progress, not by wall-clock time, so a fast machine cannot finish
    # the run before the kills and a slow one cannot kill it before it starts.
    for target in (0, 4, 9, 13, 17, 20):
        child = start_child(WRITER, str(killed))
        wait_ready(child)
        deadline = time.monotonic() + 60
        while (len(list(markers.glob("*.json"))) if markers.is_dir() else 0) < target:
            assert child.poll() is None and time.monotonic() < deadline, "writer stalled"
            time.sleep(0.001)
        time.sleep(rng.uniform(0.0, 0.005))
        child.send_signal(signal.SIGKILL)
        child.communicate()
        assert child.returncode == -signal.SIGKILL, "the writer finished before its kill"
        progress.append(len(list(markers.glob("*.json"))) if markers.is_dir() else 0)
    # The kills landed at several different points of the run, not all before it began.
    assert len(set(progress)) >= 3, progress
    print("progress at each kill:", progress)
    _run_to_completion(killed)

    for name in FINAL_FILES:
        assert (killed / name).read_bytes() == (reference / name).read_bytes(), name
    assert not any(p.name.endswith(".tmp") for p in killed.rglob("*"))
