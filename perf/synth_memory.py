"""Memory of a ``collect`` run, local executor beside Ray, on the same reasoning-gym functions.

``execlens synth run`` (stages: collect) on the first ``--functions`` (250) CodeI/O
functions that the PyPI package ``reasoning-gym`` ships (read in place, column mapping),
once with ``executor: local`` and once with ``executor: ray`` (a local Ray instance of
``ray.num_cpus`` CPUs and ``ray.actors`` actors; the same ``workers`` sandbox servers in
all).  Every 0.2 s the whole process tree of the command is sampled: the driver, the
engine's sandbox servers and their forked children, and under Ray its own processes
(GCS, raylet, monitor, dashboard, log monitor, the dashboard and runtime-env agents) and
the worker processes holding the actors.  Memory is summed as
PSS (proportional set size: a page shared by n processes counts 1/n in each, so the sum
is what the tree occupies; RSS would count every forked child's shared pages again).

Prints the peak of each run, split by kind of process at the moment of the peak, and the
ratio Ray / local; ``--json`` prints one JSON object as the last line.

    python perf/synth_memory.py [--functions 250] [--workers 2] [--json]

``EXECLENS_PERF_SMALL=1``: 6 functions (``perf/_small.py``).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import psutil
import yaml
from _small import small

COLUMNS = {
    "refcode": "code_sample",
    "problem_description": "task_description",
    "io_requirements": "input_output_spec",
    "input_generator": "input_generator",
}
MB = 1024 * 1024


def _kind(process: psutil.Process, root: int) -> str:
    """Which part of the run a process is: ``driver``, ``engine`` (a sandbox server, its
    zygote or a forked child), ``ray-actor`` (a worker process holding an execlens actor)
    or ``ray-system`` (Ray's own: GCS, raylet, monitor, dashboard and log processes, the
    dashboard and runtime-env agents)."""
    if process.pid == root:
        return "driver"
    try:
        command = " ".join(process.cmdline())
    except (psutil.Error, OSError):
        return "other"
    if "execlens.engine._server" in command:
        return "engine"
    if command.startswith("ray::_Worker") or "default_worker.py" in command:
        return "ray-actor"
    if "ray" in command:
        return "ray-system"
    return "other"  # a zombie (empty command line) or something unexpected


def _sample(root: psutil.Process) -> tuple[Counter[str], Counter[str]]:
    """PSS in bytes of ``root`` and all its descendants, by kind; and their counts."""
    sizes: Counter[str] = Counter()
    counts: Counter[str] = Counter()
    try:
        processes = [root, *root.children(recursive=True)]
    except psutil.Error:
        return sizes, counts
    for process in processes:
        try:
            kind = _kind(process, root.pid)
            sizes[kind] += process.memory_full_info().pss
            counts[kind] += 1
        except (psutil.Error, OSError):
            continue  # ended between the listing and the read
    return sizes, counts


def measure(config: Path, interval: float = 0.2) -> dict[str, Any]:
    """Run ``execlens synth run config`` and sample its tree until it ends."""
    command = [
        str(Path(sys.executable).parent / "execlens"),
        "synth",
        "run",
        str(config),
        "--quiet",
    ]
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    root = psutil.Process(process.pid)
    peak: Counter[str] = Counter()
    peak_counts: Counter[str] = Counter()
    samples = 0
    stderr: list[bytes] = []
    reader = threading.Thread(target=lambda: stderr.append(process.stderr.read()))  # type: ignore[union-attr]
    reader.start()
    while process.poll() is None:
        sizes, counts = _sample(root)
        samples += 1
        if sum(sizes.values()) > sum(peak.values()):
            peak, peak_counts = sizes, counts
        time.sleep(interval)
    reader.join()
    seconds = time.perf_counter() - start
    if process.returncode != 0:
        raise SystemExit(
            f"{' '.join(command)} failed ({process.returncode}):\n"
            f"{b''.join(stderr).decode()[-2000:]}"
        )
    return {
        "seconds": round(seconds, 1),
        "samples": samples,
        "peak_mb": round(sum(peak.values()) / MB, 1),
        "peak_by_kind_mb": {k: round(v / MB, 1) for k, v in sorted(peak.items())},
        "processes_at_peak": dict(sorted(peak_counts.items())),
    }


def main() -> None:
    """Both runs, their peaks and the ratio."""
    import reasoning_gym

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--functions", type=int, default=small(250, 6))
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--json", action="store_true", help="print one JSON object last")
    args = parser.parse_args()
    data = Path(reasoning_gym.__file__).parent / "data" / "codeio.jsonl.gz"
    root = Path(tempfile.mkdtemp(prefix="synth-memory-"))
    result: dict[str, Any] = {"functions": args.functions, "workers": args.workers}
    for executor in ("local", "ray"):
        config = root / f"{executor}.yaml"
        config.write_text(
            yaml.safe_dump(
                {
                    "out": str(root / executor),
                    "executor": executor,
                    "workers": args.workers,
                    "shard_size": 25,
                    "stages": ["collect"],
                    "ray": {"num_cpus": args.workers, "actors": min(2, args.workers)},
                    "sources": [{"path": str(data), "limit": args.functions, "columns": COLUMNS}],
                }
            )
        )
        result[executor] = measure(config)
        entry = result[executor]
        parts = ", ".join(
            f"{k} {v:.0f} MB in {entry['processes_at_peak'].get(k, 0)}"
            for k, v in entry["peak_by_kind_mb"].items()
        )
        print(
            f"{executor:>5}: peak {entry['peak_mb']:.0f} MB PSS ({parts} processes) "
            f"in {entry['seconds']} s"
        )
    result["ratio_ray_local"] = round(result["ray"]["peak_mb"] / result["local"]["peak_mb"], 2)
    without = result["ray"]["peak_mb"] - result["ray"]["peak_by_kind_mb"].get("ray-system", 0)
    result["ratio_without_ray_system"] = round(without / result["local"]["peak_mb"], 2)
    print(
        f"Ray / local: {result['ratio_ray_local']}x "
        f"({result['ratio_without_ray_system']}x without Ray's own system processes, "
        f"which are the same whatever the number of functions)"
    )
    if args.json:
        print(json.dumps(result, sort_keys=True))


if __name__ == "__main__":
    main()
