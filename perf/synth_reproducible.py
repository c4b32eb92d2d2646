"""Is a synthesis run reproducible?  ``execlens synth run`` twice on the same reasoning-gym
functions (read in place from the installed package, with a column mapping), the second
run SIGKILLed once mid-collect and resumed; the datasets, cards and collect shards are
compared byte for byte, and the collect verdicts are counted by reason.

    python perf/synth_reproducible.py --functions 500 [--file codeio.jsonl.gz] [--json]

``EXECLENS_PERF_SMALL=1``: 8 functions in shards of 2, killed after 2 shards
(``perf/_small.py``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import yaml
from _small import small

COLUMNS = {
    "refcode": "code_sample",
    "problem_description": "task_description",
    "io_requirements": "input_output_spec",
    "input_generator": "input_generator",
}
COMPARED = (
    "codeio.jsonl",
    "codeio_pp.jsonl",
    "codeio.parquet",
    "codeio_pp.parquet",
    "card.json",
    "card.md",
    "card.svg",
)


def _digests(out: Path) -> dict[str, str]:
    files = [out / name for name in COMPARED if (out / name).is_file()]
    files += sorted((out / "shards" / "collect").glob("*"))
    return {str(p.relative_to(out)): hashlib.sha256(p.read_bytes()).hexdigest() for p in files}


def _run(config: Path, kill_after_shards: int | None = None) -> float:
    command = [
        str(Path(sys.executable).parent / "execlens"),
        "synth",
        "run",
        str(config),
        "--quiet",
    ]
    start = time.perf_counter()
    if kill_after_shards is not None:
        out = Path(yaml.safe_load(config.read_text())["out"])
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL)
        markers = out / ".done" / "collect"
        while process.poll() is None:
            if markers.is_dir() and len(list(markers.glob("*.json"))) >= kill_after_shards:
                os.kill(process.pid, signal.SIGKILL)
                break
            time.sleep(0.05)
        process.wait()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    """Two runs (one killed and resumed), compared; verdicts counted."""
    import reasoning_gym

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--functions", type=int, default=small(500, 8))
    parser.add_argument("--file", default="codeio.jsonl.gz")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--executor", default="local")
    parser.add_argument("--json", action="store_true", help="one JSON object, one line")
    args = parser.parse_args()
    data = Path(reasoning_gym.__file__).parent / "data" / args.file
    root = Path(tempfile.mkdtemp(prefix="synth-reproducible-"))
    digests, times = [], []
    for index, kill in enumerate((None, small(3, 2))):
        config = root / f"run{index}.yaml"
        config.write_text(
            yaml.safe_dump(
                {
                    "out": str(root / f"out{index}"),
                    "executor": args.executor,
                    "workers": args.workers,
                    "shard_size": small(25, 2),
                    "sources": [{"path": str(data), "limit": args.functions, "columns": COLUMNS}],
                    "stages": ["collect", "prompts", "assemble"],
                }
            )
        )
        times.append(_run(config, kill))
        digests.append(_digests(root / f"out{index}"))
    collected = [
        json.loads(line)
        for shard in sorted((root / "out0" / "shards" / "collect").glob("*.jsonl"))
        for line in shard.read_text().splitlines()
    ]
    reasons = Counter(r.get("reject", {}).get("reason", "kept") for r in collected)
    different = sorted(k for k in digests[0] if digests[0][k] != digests[1].get(k))
    print(
        json.dumps(
            {
                "functions": args.functions,
                "file": args.file,
                "executor": args.executor,
                "seconds": {"first": round(times[0], 1), "killed_and_resumed": round(times[1], 1)},
                "files_compared": len(digests[0]),
                "byte_identical": not different and digests[0].keys() == digests[1].keys(),
                "different": different,
                "collect": dict(reasons.most_common()),
            },
            indent=None if args.json else 2,
        )
    )


if __name__ == "__main__":
    main()
