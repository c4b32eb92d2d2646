"""``verify`` throughput on the CodeI/O reference demo's 2,776 prediction instances.

The instances: the first 3 stored pairs of every function of ``rawcode_1k_parsed.jsonl``,
one output and one input prediction each (2,776).  Each gets an answer from a fixed mix
(seeded): right, wrong, malformed and hostile (inputs that raise or loop, answers that
try to break the extractor: a 1 MB string, JSON nested 5,000 deep, ``\\boxed{}`` traps,
``sys.exit``/``os._exit`` smuggled nowhere they could run).  execlens verifies them all:
output predictions in the host (``tolerant`` rule), input predictions re-executed in the
engine, batched per function.

In-run baseline: the reference shape, one ``python -`` subprocess per input-prediction
check, its import prefix (numpy included) before the function, output checks in the host.
It is timed on a sample of input checks (every k-th) and extrapolated to all of them;
both sides run ``WORKERS`` at a time.  Prints instances/s, the ratio, the label table,
and (``--json``) one JSON object on the last line.
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

from execlens.engine import Engine, Limits
from execlens.synth import (
    IMPORT_PREFIX,
    NUMPY_PREFIX,
    SYNTH_PRELOAD,
    Check,
    load_function_records,
    verify_checks,
)

DATA = Path(os.environ.get("EXECLENS_TEST_DATA", "../shared/data"))
WORKERS = os.cpu_count() or 2
SECONDS = 2.0  # per input check: hostile inputs that loop cost this much each


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


def _baseline_one(check: Check) -> None:
    from execlens.synth import extract_answer

    answer = extract_answer(check.text, "input")
    if not answer.ok or not isinstance(answer.value, dict):
        return
    try:
        subprocess.run([sys.executable, "-"], input=_baseline_program(check, answer.value),
                       text=True, capture_output=True, timeout=SECONDS + 1)
    except subprocess.TimeoutExpired:
        pass


def baseline_seconds(checks: list[Check], sample_size: int) -> tuple[float, int]:
    """Seconds the reference shape would take for ``checks`` (input checks by subprocess,
    extrapolated from every k-th one; output checks in the host), and the sample size."""
    from execlens.synth import extract_answer

    inputs = [c for c in checks if c.kind == "i"]
    sample = inputs[::max(1, len(inputs) // sample_size)]
    start = time.perf_counter()
    with ThreadPoolExecutor(WORKERS) as pool:
        list(pool.map(_baseline_one, sample))
    per_check = (time.perf_counter() - start) / len(sample)
    start = time.perf_counter()
    for check in checks:
        if check.kind == "o":
            extract_answer(check.text, "output")
    host = time.perf_counter() - start
    return per_check * len(inputs) + host, len(sample)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object last")
    parser.add_argument("--baseline-checks", type=int, default=60,
                        help="input checks the subprocess baseline is timed on")
    args = parser.parse_args()
    records = load_function_records(DATA / "codeio" / "rawcode_1k_parsed.jsonl", keep=3)
    checks, kinds = build_instances(records)
    limits = Limits(wall_time=SECONDS, memory_mb=512)
    with Engine(workers=WORKERS, preload=SYNTH_PRELOAD, limits=limits) as engine:
        verify_checks(engine, checks[:8])  # warm the servers
        start = time.perf_counter()
        verdicts = verify_checks(engine, checks)
        elapsed = time.perf_counter() - start
    base, sampled = baseline_seconds(checks, args.baseline_checks)
    labels = Counter(v["label"] for v in verdicts)
    by_mix: dict[str, Counter[str]] = {}
    for mix, verdict in zip(kinds, verdicts):
        by_mix.setdefault(mix, Counter())[verdict["label"]] += 1
    right_ok = by_mix["right"]["success"] / max(1, sum(by_mix["right"].values()))
    rate, base_rate = len(checks) / elapsed, len(checks) / base
    print(f"verify: {len(checks)} instances ({sum(c.kind == 'i' for c in checks)} input "
          f"predictions re-executed) in {elapsed:.2f} s = {rate:.0f} instances/s")
    print(f"baseline (python subprocess per input check, numpy prefix; timed on {sampled} "
          f"checks, extrapolated): {base:.1f} s = {base_rate:.1f} instances/s")
    print(f"speed-up: {rate / base_rate:.1f}x   (targets: <= 10 s, >= 20x)")
    print(f"{'answer':<10} " + " ".join(f"{k:>10}" for k in sorted(labels)))
    for mix in ("right", "wrong", "malformed", "hostile"):
        counts = by_mix.get(mix, Counter())
        print(f"{mix:<10} " + " ".join(f"{counts.get(k, 0):>10}" for k in sorted(labels)))
    print(f"right answers verified as success: {right_ok:.1%} (the rest: stored pairs that no "
          "longer reproduce, see benchmarks/collect.py)")
    if args.json:
        print(json.dumps({"instances": len(checks), "seconds": round(elapsed, 3),
                          "instances_per_s": round(rate, 1),
                          "baseline_seconds": round(base, 2),
                          "baseline_instances_per_s": round(base_rate, 2),
                          "speedup": round(rate / base_rate, 2),
                          "labels": dict(sorted(labels.items())),
                          "by_answer": {k: dict(sorted(v.items())) for k, v in by_mix.items()},
                          "right_success_rate": round(right_ok, 4)}, sort_keys=True))


if __name__ == "__main__":
    main()
