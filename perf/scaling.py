"""Throughput against the number of workers, 1, 2, 4, ... up to the machine's cores, in
one run (issue 25: the host process must not be the ceiling).

Rows, each measured at every worker count ``w``:

* **fork floor**: ``w`` do-nothing ``fork`` + ``_exit`` + ``waitpid`` loops (perf/engine.py's,
  from an interpreter holding the zygote's modules): what a fresh process per run costs.
* **engine, one job per child**: an ``Engine(workers=w, isolation="full")`` running
  perf/engine.py's trivial program, ``batch_size=1``; its share is of the floor at ``w``.
* **engine, 16 per child**: the same calls, 16 to a child (one origin:
  ``ONE_ORIGIN``); share of the floor too (above 100 %: a child does 16 runs).
* **TRL reward**: perf/rewards.py's input-prediction half (CRUXEval, Code Llama
  generations, a GRPO group per problem) through the TRL adapter, with a judging engine
  of ``w`` servers in all and the judge workers a ``w``-core machine gets by default
  (``max(1, w // 8)``); share of ``w`` times the 1-worker rate.
* **CodeI/O verify**: perf/verify.py's instances (right, wrong, malformed and hostile
  answers) through ``synth.verify_predictions(..., judges=pool)``, the pool sized as for
  rewards, its engines ``w`` servers in all; share of ``w`` times the 1-worker rate.

Each row also gets the host's CPU per wall second (this process, from its own clock:
the ceiling issue 25 is about is this reaching 1.0) and each role's CPU ms and faults
per item (perf/_roles.py: host, judges, servers, zygotes, children).  ``--json`` prints
one JSON object on the last line.  ``EXECLENS_PERF_SMALL=1``: up to 2 workers, a
sliver of every row (perf/_small.py).
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

import engine as engine_perf
import rewards as rewards_perf
import verify as verify_perf
from _roles import measure, per_item
from _small import small

from execlens.engine import DEFAULT_PRELOAD, Engine, Limits
from execlens.judge import JudgePool
from execlens.rewards import close_shared_engine
from execlens.synth import SYNTH_PRELOAD, load_function_records, verify_predictions

CORES = os.cpu_count() or 1
CORES_PER_JUDGE = 8  # as execlens.rewards picks its judge workers


def worker_counts(most: int) -> list[int]:
    """1, 2, 4, ... below ``most``, then ``most``."""
    counts, w = [], 1
    while w < most:
        counts.append(w)
        w *= 2
    return [*counts, most]


def fork_floor(workers: int, runs: int) -> float:
    """Forks/s of ``workers`` do-nothing loops (perf/engine.py's loop program)."""
    per_loop = max(1, runs // workers)
    loops = [
        subprocess.Popen(
            [sys.executable, "-s", "-B", "-c", engine_perf._FORK_FLOOR, str(per_loop)]
            + list(DEFAULT_PRELOAD),
            stdout=subprocess.PIPE,
            text=True,
            cwd="/",
        )
        for _ in range(workers)
    ]
    elapsed = max(float(loop.communicate(timeout=300)[0].split()[0]) for loop in loops)
    return per_loop * workers / elapsed


def _row(items: int, call: Callable[[], float], repeat: int = 1) -> dict[str, Any]:
    """``call()`` (``repeat`` passes over ``items`` items; returns the best pass's
    seconds) under role accounting: rate, host CPU per wall second, each role's cost
    per item."""
    started = time.perf_counter()
    seconds, totals = measure(call)
    wall = time.perf_counter() - started
    return {
        "per_s": round(items / seconds, 1),
        "host_cpu_per_wall_s": round(totals["host"]["ns"] / 1e9 / wall, 3),
        "roles": per_item(totals, items * repeat),
    }


def engine_rows(workers: int, one_runs: int, batched_runs: int) -> dict[str, Any]:
    """One job per child and 16 per child on an engine of ``workers`` servers."""
    rows = {}
    with Engine(workers=workers, isolation="full") as engine:
        for name, runs, size in (("one_per_child", one_runs, 1), ("batched_16", batched_runs, 16)):
            engine_perf.engine_rate(engine, min(runs, 64), size)  # warm every server

            def timed(runs: int = runs, size: int = size) -> float:
                return runs / engine_perf.engine_rate(engine, runs, size)

            rows[name] = _row(runs, timed)
    return rows


def _judges(workers: int) -> tuple[int, int]:
    """(judge workers, servers per judge's engine) for ``workers`` servers in all."""
    judges = max(1, workers // CORES_PER_JUDGE)
    return judges, max(1, -(-workers // judges))


def reward_row(workers: int, completions: list[str], truths: list[str]) -> dict[str, Any]:
    """The TRL reward batch at ``workers`` servers in all (best of 3 calls)."""
    judges, share = _judges(workers)
    close_shared_engine()  # the next call starts judges sized for this row
    os.environ["EXECLENS_REWARD_WORKERS"] = str(share)
    os.environ["EXECLENS_JUDGE_WORKERS"] = str(judges)
    rewards_perf._call(completions, truths)  # start the judges and their engines

    def timed() -> float:
        return min(_once(lambda: rewards_perf._call(completions, truths)) for _ in range(3))

    row = _row(len(completions), timed, repeat=3)
    row.update(judges=judges, servers_per_judge=share)
    close_shared_engine()
    return row


def _once(call: Callable[[], object]) -> float:
    started = time.perf_counter()
    call()
    return time.perf_counter() - started


def verify_row(workers: int, checks: list[Any]) -> dict[str, Any]:
    """CodeI/O verify at ``workers`` servers in all, through judge workers."""
    judges, share = _judges(workers)
    limits = Limits(wall_time=verify_perf.SECONDS, memory_mb=512)
    factory = functools.partial(Engine, workers=share, preload=SYNTH_PRELOAD, limits=limits)
    tasks, texts = [c.task for c in checks], [c.text for c in checks]
    with JudgePool(judges, factory) as pool:
        verify_predictions(None, tasks[:8], texts[:8], judges=pool, batch_size=verify_perf.BATCH)

        def timed() -> float:
            return _once(
                lambda: verify_predictions(
                    None, tasks, texts, judges=pool, batch_size=verify_perf.BATCH
                )
            )

        row = _row(len(checks), timed)
    row.update(judges=judges, servers_per_judge=share)
    return row


def main() -> None:
    """Measure every row at every worker count (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object last")
    parser.add_argument(
        "--max-workers",
        type=int,
        default=small(CORES, min(CORES, 2)),
        help="the largest worker count (default: the machine's cores)",
    )
    parser.add_argument(
        "--verify-functions",
        type=int,
        default=small(None, 12),
        help="CodeI/O functions verified per row (default: all; 3 pairs, 2 kinds each)",
    )
    args = parser.parse_args()
    if args.max_workers < 1:
        print("error: --max-workers must be at least 1", file=sys.stderr)
        raise SystemExit(2)
    root = rewards_perf._data_root()
    if not (root / "cruxeval" / "cruxeval.jsonl").is_file():
        print(
            f"error: CRUXEval data not found under {root}; set EXECLENS_TEST_DATA", file=sys.stderr
        )
        raise SystemExit(2)
    completions, truths, kinds = rewards_perf.prediction_batch(root)
    inputs = [i for i, k in enumerate(kinds) if k == "input"]
    completions, truths = [completions[i] for i in inputs], [truths[i] for i in inputs]
    records = load_function_records(root / "codeio" / "rawcode_1k_parsed.jsonl", keep=3)
    checks, _ = verify_perf.build_instances(records[: args.verify_functions])

    table: dict[int, dict[str, Any]] = {}
    for w in worker_counts(args.max_workers):
        row: dict[str, Any] = {"fork_floor": {"per_s": round(fork_floor(w, small(500, 40) * w), 1)}}
        row.update(engine_rows(w, small(400, 20) * w, small(2500, 80) * w))
        row["reward_input"] = reward_row(w, completions, truths)
        row["verify"] = verify_row(w, checks)
        table[w] = row
        print(f"workers {w}: done", file=sys.stderr, flush=True)
    for w, row in table.items():
        floor = row["fork_floor"]["per_s"]
        for name in ("one_per_child", "batched_16"):
            row[name]["share"] = round(row[name]["per_s"] / floor, 3)
        for name in ("reward_input", "verify"):
            row[name]["share"] = round(row[name]["per_s"] / (table[1][name]["per_s"] * w), 3)
    print_table(table)
    if args.json:
        print(
            json.dumps(
                {
                    "cores": CORES,
                    "workers": list(table),
                    "reward_batch": len(completions),
                    "verify_instances": len(checks),
                    "rows": {str(w): row for w, row in table.items()},
                },
                sort_keys=True,
            )
        )


NAMES = {
    "fork_floor": "fork + exit floor, runs/s",
    "one_per_child": "engine, one job per child",
    "batched_16": "engine, 16 inputs per child",
    "reward_input": "TRL reward, CRUXEval input, completions/s",
    "verify": "CodeI/O verify, instances/s",
}


def print_table(table: dict[int, dict[str, Any]]) -> None:
    """The issue's table: a row per figure, a column per worker count; each rate with its
    share, then the host's CPU per wall second."""
    counts = list(table)
    print(f"{'figure':<44}" + "".join(f"{w:>16}" for w in counts))
    for name, label in NAMES.items():
        cells = []
        for w in counts:
            cell = table[w][name]
            share = f" ({cell['share']:.0%})" if "share" in cell else ""
            cells.append(f"{cell['per_s']:,.0f}{share}")
        print(f"{label:<44}" + "".join(f"{c:>16}" for c in cells))
        if name != "fork_floor":
            host = [f"{table[w][name]['host_cpu_per_wall_s']:.2f}" for w in counts]
            print(f"{'  host CPU per wall second':<44}" + "".join(f"{h:>16}" for h in host))
    print("shares: engine rows of the fork floor at the same workers; reward and verify of")
    print("the 1-worker rate times the workers.  Per-role CPU ms per item: --json.")


if __name__ == "__main__":
    main()
