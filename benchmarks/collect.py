"""``collect`` throughput on CodeI/O's 464 parsed functions, beside the reference shape.

* execlens: every stored pair of ``rawcode_1k_parsed.jsonl`` (4,514) re-executed in the
  engine under the run's hash seed and again in a fresh child under a second hash seed
  (the determinism check), size rule applied, each pair classified;
* in-run baseline: one ``python -`` subprocess per function running its stored pairs
  once, behind the reference's import prefix (numpy included): how the reference
  collects.  Both sides are also timed on the same sample (every k-th function): a few functions
  compute for seconds per pair, so only a shared sample compares like with like;
* generator-driven ``collect`` (1,000-call cap, up to 10 pairs) on a dozen functions
  whose input generators are written here from each function's first stored input.

Prints functions/s, the ratio, the pair classification table, and (``--json``) one
JSON object on the last line.
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

from execlens.engine import Engine
from execlens.synth import collect_functions, load_function_records
from execlens.synth import IMPORT_PREFIX, NUMPY_PREFIX, SYNTH_PRELOAD, CollectSettings

DATA = Path(os.environ.get("EXECLENS_TEST_DATA", "../shared/data"))
WORKERS = os.cpu_count() or 2


def _baseline_program(record: dict[str, Any]) -> str:
    calls = json.dumps([p["input"] for p in record["stored_ios"]])
    return (IMPORT_PREFIX + NUMPY_PREFIX + "\n" + record["refcode"] + "\n\n"
            "import copy as _c, json as _j\n"
            f"for _given in _j.loads({calls!r}):\n"
            "    try:\n"
            "        _out = main_solution(**_c.deepcopy(_given))\n"
            "        print(_j.dumps(_out))\n"
            "    except Exception as _exc:\n"
            "        print('error', type(_exc).__name__)\n")


def _baseline_one(record: dict[str, Any]) -> None:
    try:
        subprocess.run([sys.executable, "-"], input=_baseline_program(record), text=True,
                       capture_output=True, timeout=60)
    except subprocess.TimeoutExpired:
        pass


def baseline(records: list[dict[str, Any]]) -> float:
    """Functions/s of one subprocess per function, ``WORKERS`` at a time."""
    start = time.perf_counter()
    with ThreadPoolExecutor(WORKERS) as pool:
        list(pool.map(_baseline_one, records))
    return len(records) / (time.perf_counter() - start)


def _value_source(value: Any, rng: random.Random) -> str:
    """Source of a random value shaped like ``value`` (the generator we write)."""
    if isinstance(value, bool):
        return "random.choice([True, False])"
    if isinstance(value, int):
        high = max(abs(value) * 2, 10)
        return f"random.randint({-high if value < 0 else 0}, {high})"
    if isinstance(value, float):
        high = max(abs(value) * 2, 1.0)
        return f"round(random.uniform({-high if value < 0 else 0.0}, {high}), 3)"
    if isinstance(value, str):
        alphabet = "".join(sorted(set(value))) or "abc"
        return (f"''.join(random.choice({alphabet!r}) for _ in "
                f"range(random.randint(1, {max(len(value), 1)})))")
    if isinstance(value, list) and value and all(type(v) is type(value[0]) for v in value) \
            and isinstance(value[0], (int, float, str)) and not isinstance(value[0], bool):
        item = _value_source(value[0], rng)
        return f"[{item} for _ in range(random.randint(1, {max(len(value), 2)}))]"
    return repr(value)


def generator_records(records: list[dict[str, Any]], count: int = 12) -> list[dict[str, Any]]:
    """``count`` functions with an input generator written from their first stored input."""
    rng = random.Random(0)
    chosen = []
    for record in records:
        sample = record["stored_ios"][0]["input"]
        if not sample or "random" in record["refcode"] or "time" in record["refcode"]:
            continue
        body = ", ".join(f"{key!r}: {_value_source(value, rng)}" for key, value in sample.items())
        generator = f"import random\n\ndef input_generator():\n    return {{{body}}}\n"
        chosen.append({**record, "id": record["id"] + "/gen", "stored_ios": None,
                       "input_generator": generator, "keep": 10})
        if len(chosen) == count:
            break
    return chosen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object last")
    parser.add_argument("--baseline-functions", type=int, default=40)
    args = parser.parse_args()
    records = load_function_records(DATA / "codeio" / "rawcode_1k_parsed.jsonl", keep=10)
    pairs = sum(len(r["stored_ios"]) for r in records)
    sample = records[::max(1, len(records) // args.baseline_functions)]
    settings = CollectSettings()
    with Engine(workers=WORKERS, preload=SYNTH_PRELOAD, hash_seed=settings.hash_seed) as engine, \
            Engine(workers=WORKERS, preload=SYNTH_PRELOAD, hash_seed=settings.check_seed) as check:
        collect_functions(engine, records[:4], check_engine=check)  # warm both pools
        start = time.perf_counter()
        out = collect_functions(engine, records, check_engine=check)
        elapsed = time.perf_counter() - start
        sample_start = time.perf_counter()
        collect_functions(engine, sample, check_engine=check)
        sample_rate = len(sample) / (time.perf_counter() - sample_start)
        generated = generator_records(records)
        gen_start = time.perf_counter()
        gen_out = collect_functions(engine, generated, check_engine=check)
        gen_elapsed = time.perf_counter() - gen_start
    base_rate = baseline(sample)
    rate = len(records) / elapsed
    classes: Counter[str] = Counter()
    for record in out:
        classes.update(record["collect"].get("pair_classes", {}))
    reasons = Counter(r["reject"]["reason"] for r in out if r.get("reject"))
    kept = sum(1 for r in out if not r.get("reject"))
    gen_kept = [r for r in gen_out if not r.get("reject")]
    gen_reasons = Counter(r["reject"]["reason"] for r in gen_out if r.get("reject"))
    print(f"collect: {len(records)} functions, {pairs} stored pairs (each run twice) in "
          f"{elapsed:.2f} s = {rate:.1f} functions/s")
    print(f"same {len(sample)}-function sample (every {len(records) // len(sample)}th): execlens "
          f"{sample_rate:.1f} functions/s; baseline (python subprocess per function, numpy "
          f"prefix, pairs run once, no determinism rerun) {base_rate:.1f} functions/s")
    print(f"ratio on the sample: {sample_rate / base_rate:.1f}x")
    print("stored pairs on re-execution:")
    for name, count in sorted(classes.items(), key=lambda kv: -kv[1]):
        print(f"  {name:<18} {count:>5}  ({count / pairs:.1%})")
    print(f"functions kept {kept}/{len(records)}; rejected: {dict(sorted(reasons.items()))}")
    print(f"generator-driven collect: {len(generated)} functions in {gen_elapsed:.2f} s "
          f"({len(generated) / gen_elapsed:.1f} functions/s); kept {len(gen_kept)} with "
          f"{sum(len(r['pairs']) for r in gen_kept)} pairs; generator calls "
          f"{sum(r['collect'].get('calls', 0) for r in gen_out)}; rejected "
          f"{dict(sorted(gen_reasons.items()))}")
    if args.json:
        print(json.dumps({
            "functions": len(records), "pairs": pairs, "seconds": round(elapsed, 3),
            "functions_per_s": round(rate, 2), "baseline_functions_per_s": round(base_rate, 2),
            "sample_functions": len(sample), "sample_functions_per_s": round(sample_rate, 2),
            "ratio": round(sample_rate / base_rate, 2), "pair_classes": dict(sorted(classes.items())),
            "functions_kept": kept, "rejected": dict(sorted(reasons.items())),
            "generator": {"functions": len(generated), "seconds": round(gen_elapsed, 3),
                          "kept": len(gen_kept),
                          "pairs": sum(len(r["pairs"]) for r in gen_kept),
                          "rejected": dict(sorted(gen_reasons.items()))},
        }, sort_keys=True))


if __name__ == "__main__":
    main()
