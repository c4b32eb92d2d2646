"""``verify`` throughput on the CodeI/O reference demo's 2,776 prediction instances.

The instances: the first 3 stored pairs of every function of ``rawcode_1k_parsed.jsonl``,
one output and one input prediction each (2,776).  Each gets an answer from a fixed mix
(seeded): right, wrong, malformed and hostile (inputs that raise or loop, answers that
try to break the extractor: a 1 MB string, JSON nested 5,000 deep, ``\\boxed{}`` traps,
``sys.exit``/``os._exit`` smuggled nowhere they could run).  execlens verifies them all:
output predictions in the host (``tolerant`` rule), input predictions re-executed in the
engine, batched per function.

In-run baseline: the reference shape, one ``python -`` subprocess per input-prediction
check with an extractable answer (the same runs the engine makes), its import prefix
(numpy included) before the function, output checks in the host; both sides run
``WORKERS`` at a time.  By default it runs every such check; ``--baseline-checks N``
times every k-th one and extrapolates (quicker, but it misses the rare heavy checks and
timeouts, so it under-counts).

Ceiling: both sides pay the programs' own compute (the children's summed durations,
from an untimed second engine pass over the same jobs), so an engine with zero overhead
and perfect balance would reach baseline seconds / (compute seconds / ``WORKERS``);
the measured ratio is read against that.  Prints instances/s, the ratio, the ceiling, the label
table, and (``--json``) one JSON object on the last line.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from execlens.engine import Engine, Limits, Status
from execlens.synth import (
    IMPORT_PREFIX,
    NUMPY_PREFIX,
    SYNTH_PRELOAD,
    Check,
    extract_answer,
    load_function_records,
    verify_checks,
)
from execlens.synth._programs import needs_numpy, probe_job

DATA = Path(os.environ.get("EXECLENS_TEST_DATA", "../shared/data"))
WORKERS = os.cpu_count() or 2
SECONDS = 2.0  # per input check: hostile inputs that loop cost this much each
BATCH = 32  # verify_checks' batch size, also used for the compute pass


def _fence(field: str, value: Any) -> str:
    return f"Reasoning ...\n```json\n{json.dumps({field: value})}\n```"


def _wrong(value: Any) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value + 1
    if isinstance(value, str):
        return value + "x"
    if isinstance(value, list):
        return value[:-1] if value else [0]
    if isinstance(value, dict):
        return {k: _wrong(v) for k, v in value.items()}
    return "wrong"


_MALFORMED = ["I think the answer is five.", '{"output": [1, 2', "```json\n{'input': }\n```",
              '{"answer": 3}', ""]


def _hostile(field: str, pair: dict[str, Any], rng: random.Random) -> str:
    choice = rng.randrange(6)
    if choice == 0:
        return _fence(field, "A" * 1_000_000)  # a 1 MB answer
    if choice == 1:
        return '{"' + field + '": ' + "[" * 5000 + "]" * 5000 + "}"  # nesting bomb
    if choice == 2:
        return "\\boxed{\\{'" + field + "': __import__('os').system('echo pwned')\\}}"
    if field == "output":
        return _fence(field, {"__class__": "os._exit", "value": float("inf")} if choice == 3
                      else "import sys; sys.exit(0)")
    given = pair["input"]
    if choice == 3 and isinstance(given, dict):  # an extra keyword: TypeError
        return _fence(field, {**given, "__synth_extra__": 1})
    if choice == 4 and isinstance(given, dict):  # every value a huge int: loops or raises
        return _fence(field, {k: 10 ** 12 for k in given})
    return _fence(field, {k: "'; import os; os._exit(0) #" for k in given}
                  if isinstance(given, dict) else None)


def build_instances(records: list[dict[str, Any]], seed: int = 0
                    ) -> tuple[list[Check], list[str]]:
    """The 2,776 checks (output then input prediction per pair) and each answer's kind."""
    rng = random.Random(seed)
    checks: list[Check] = []
    kinds: list[str] = []
    for record in records:
        for pair in record["stored_ios"][:3]:
            for kind, field in (("o", "output"), ("i", "input")):
                truth = pair[field]
                mix = rng.choices(("right", "wrong", "malformed", "hostile"),
                                  weights=(4, 3, 2, 1))[0]
                if mix == "right":
                    text = _fence(field, truth)
                elif mix == "wrong":
                    text = _fence(field, _wrong(truth))
                elif mix == "malformed":
                    text = rng.choice(_MALFORMED)
                else:
                    text = _hostile(field, pair, rng)
                checks.append(Check(kind, text, record["refcode"], pair["input"],
                                    pair["output"]))
                kinds.append(mix)
    return checks, kinds


def _baseline_program(check: Check, predicted: Any) -> str:
    return (IMPORT_PREFIX + NUMPY_PREFIX + "\n" + check.refcode + "\n\n"
            "import json as _j\n"
            f"_given = _j.loads({json.dumps(predicted)!r})\n"
            "print(_j.dumps(main_solution(**_given)))\n")


def _runs(checks: list[Check]) -> list[tuple[Check, Any]]:
    """The input checks with an extractable answer, each with its answer: the checks
    that are re-executed (by ``verify_checks`` in the engine, by the baseline in a
    subprocess)."""
    runs = []
    for check in checks:
        if check.kind == "i":
            answer = extract_answer(check.text, "input")
            if answer.ok:
                runs.append((check, answer.value))
    return runs


def _baseline_one(run: tuple[Check, Any]) -> None:
    check, predicted = run
    try:
        subprocess.run([sys.executable, "-"], input=_baseline_program(check, predicted),
                       text=True, capture_output=True, timeout=SECONDS + 1, check=False)
    except subprocess.TimeoutExpired:
        pass


def baseline_seconds(checks: list[Check], sample_size: int | None) -> tuple[float, int, int]:
    """Seconds the reference shape takes for ``checks``: every answer extracted in the
    host, every input check with an answer run in a subprocess, ``WORKERS`` at a time
    (with ``sample_size``: every k-th of them, extrapolated); and how many of how many
    input checks ran."""
    start = time.perf_counter()
    runs = _runs(checks)
    for check in checks:
        if check.kind == "o":
            extract_answer(check.text, "output")
    host = time.perf_counter() - start
    sample = runs if sample_size is None else runs[::max(1, len(runs) // sample_size)]
    start = time.perf_counter()
    with ThreadPoolExecutor(WORKERS) as pool:
        list(pool.map(_baseline_one, sample))
    spent = time.perf_counter() - start
    return host + spent * len(runs) / len(sample), len(sample), len(runs)


def compute_seconds(engine: Engine, checks: list[Check]) -> tuple[float, int]:
    """The input checks' own compute: the summed child durations of the jobs
    ``verify_checks`` makes (same jobs, order and batching), and how many timed out."""
    runs = sorted(_runs(checks), key=lambda run: needs_numpy(run[0].refcode))
    jobs = [probe_job(check.refcode, value) for check, value in runs]
    outcomes = list(engine.map(jobs, batch_size=BATCH))
    return (sum(o.duration for o in outcomes),
            sum(o.status is Status.TIMEOUT for o in outcomes))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object last")
    parser.add_argument("--baseline-checks", type=int, default=None,
                        help="quick mode: time the subprocess baseline on about this many "
                             "input checks (every k-th) and extrapolate; default: all")
    args = parser.parse_args()
    records = load_function_records(DATA / "codeio" / "rawcode_1k_parsed.jsonl", keep=3)
    checks, kinds = build_instances(records)
    limits = Limits(wall_time=SECONDS, memory_mb=512)
    with Engine(workers=WORKERS, preload=SYNTH_PRELOAD, limits=limits) as engine:
        verify_checks(engine, checks[:8], batch_size=BATCH)  # warm the servers
        start = time.perf_counter()
        verdicts = verify_checks(engine, checks, batch_size=BATCH)
        elapsed = time.perf_counter() - start
        compute, timeouts = compute_seconds(engine, checks)  # untimed
    base, sampled, runnable = baseline_seconds(checks, args.baseline_checks)
    labels = Counter(v["label"] for v in verdicts)
    by_mix: dict[str, Counter[str]] = {}
    for mix, verdict in zip(kinds, verdicts):
        by_mix.setdefault(mix, Counter())[verdict["label"]] += 1
    right_ok = by_mix["right"]["success"] / max(1, sum(by_mix["right"].values()))
    rate, base_rate = len(checks) / elapsed, len(checks) / base
    ceiling = base / (compute / WORKERS)
    how = ("every one timed" if sampled == runnable
           else f"timed on {sampled}, extrapolated (quick mode: misses rare heavy checks)")
    print(f"verify: {len(checks)} instances ({sum(c.kind == 'i' for c in checks)} input "
          f"predictions, {runnable} with an answer re-executed) in {elapsed:.2f} s = "
          f"{rate:.0f} instances/s, {WORKERS} workers")
    print(f"baseline (python subprocess per input check with an answer, numpy prefix; "
          f"{how}): {base:.1f} s = {base_rate:.1f} instances/s")
    print(f"programs' own compute (summed child durations, {timeouts} timeouts of "
          f"{SECONDS:g} s): {compute:.1f} s = {compute / WORKERS:.1f} s on {WORKERS} workers")
    print(f"speed-up: {rate / base_rate:.1f}x   ceiling: {ceiling:.1f}x   "
          "(targets: <= 10 s, >= 20x)")
    print("  ceiling = baseline s / (compute s / workers): the ratio of an engine with zero "
          "overhead and perfect balance, since both sides pay the programs' own compute")
    print(f"{'answer':<10} " + " ".join(f"{k:>10}" for k in sorted(labels)))
    for mix in ("right", "wrong", "malformed", "hostile"):
        counts = by_mix.get(mix, Counter())
        print(f"{mix:<10} " + " ".join(f"{counts.get(k, 0):>10}" for k in sorted(labels)))
    print(f"right answers verified as success: {right_ok:.1%} (the rest: stored pairs that no "
          "longer reproduce, see benchmarks/collect.py)")
    if args.json:
        print(json.dumps({"instances": len(checks), "seconds": round(elapsed, 3),
                          "instances_per_s": round(rate, 1),
                          "input_checks_run": runnable,
                          "baseline_seconds": round(base, 2),
                          "baseline_checks_timed": sampled,
                          "baseline_extrapolated": sampled != runnable,
                          "baseline_instances_per_s": round(base_rate, 2),
                          "speedup": round(rate / base_rate, 2),
                          "compute_s": round(compute, 2), "timeouts": timeouts,
                          "ceiling": round(ceiling, 2),
                          "labels": dict(sorted(labels.items())),
                          "by_answer": {k: dict(sorted(v.items())) for k, v in by_mix.items()},
                          "right_success_rate": round(right_ok, 4)}, sort_keys=True))


if __name__ == "__main__":
    main()
