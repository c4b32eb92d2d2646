"""``collect`` throughput on CodeI/O's parsed functions, beside the reference shape.

Timed on a fixed sample (every k-th of the 464 functions of ``rawcode_1k_parsed.jsonl``)
and, with ``--full``, on all 464; both sides on the same functions and the same number
of workers:

* baseline (the reference shape): one ``python -`` subprocess per function running its
  stored pairs once, behind the reference's import prefix (numpy included), with the
  engine servers' one-thread BLAS setting (``OPENBLAS_NUM_THREADS=1``);
* execlens, same work: every stored pair run once in the engine (forked children,
  numpy preloaded, a function's pairs batched into one child);
* execlens ``collect``: its full work -- every pair run twice (the second time under
  another hash seed, the determinism check), size rule, classification.

Ceiling: the functions' own compute is paid on both sides, so an engine with zero
overhead and perfect balance would reach baseline / (compute / workers); each ratio is
printed beside its ceiling and as a share of it.  For the same work, ``compute_s`` is
the summed child durations of that run.  For collect's full work it is the compute of
the jobs collect ran (``collect_compute_s``): each pair run twice, plus the extra-seed
reruns and in-process replays of the pairs that did not reproduce, each job costed at
its pair's child time in the same-work run.  (This used to be 2 x ``compute_s``, which
left the extra runs out and so set the ceiling too high; and child durations summed
over collect's own run would not do either: its two engines run four servers on the
workers' cores, so each child's wall time counts the time it waited for a core.)

A few functions compute for seconds over their pairs (one in the default sample: 2.3 s
over 10 pairs); perfect balance then means spreading one function's pairs over the
workers, which the engine does by work stealing (an idle worker takes the pairs a busy
one has not started; ``steals`` counts it).

"Light" is the sample without the functions whose own compute exceeds 0.5 s: there the
functions compute about 2 ms each, and what is measured is the per-function cost of
each side -- the baseline's interpreter start and imports, the engine's fork, compile
and round trip.  No compute ceiling is printed for it: baseline / (compute / workers)
grows without bound as the compute goes to zero (about 40x there), so it would say how
small the functions are, not how close the engine comes to the machine; no sandbox
that gives each function a process of its own can approach it.  Printed instead: each
side's milliseconds per function (engine: its time beyond the functions' own compute).

Every timing is the best of ``--repeat`` runs (default 3) on both sides, the baseline's
included: on a shared machine other load only ever slows a run down.

Also: a generator-driven ``collect`` (1,000-call cap, up to 10 pairs) on a dozen
functions whose input generators are written here, and (``--full``) the classification
of all 4,514 stored pairs.  ``--json`` prints one JSON object on the last line.
``EXECLENS_PERF_SMALL=1``: a sample of 4 functions, one repeat, 3 generator-driven
functions (``perf/_small.py``).
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

from _small import small

from execlens.engine import Engine, Job
from execlens.synth import (
    IMPORT_PREFIX,
    NUMPY_PREFIX,
    SYNTH_PRELOAD,
    CollectSettings,
    collect_functions,
    load_function_records,
)

DATA = Path(os.environ.get("EXECLENS_TEST_DATA", "../shared/data"))
WORKERS = os.cpu_count() or 2
# The engine's servers run numpy with one BLAS thread; so does the baseline, or each of
# its numpy imports would start a thread pool and flatter the ratio.
_ENV = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def _baseline_program(record: dict[str, Any]) -> str:
    calls = json.dumps([p["input"] for p in record["stored_ios"]])
    return (
        IMPORT_PREFIX + NUMPY_PREFIX + "\n" + record["refcode"] + "\n\n"
        "import copy as _c, json as _j\n"
        f"for _given in _j.loads({calls!r}):\n"
        "    try:\n"
        "        _out = main_solution(**_c.deepcopy(_given))\n"
        "        print(_j.dumps(_out))\n"
        "    except Exception as _exc:\n"
        "        print('error', type(_exc).__name__)\n"
    )


def _baseline_one(record: dict[str, Any]) -> None:
    try:
        subprocess.run(
            [sys.executable, "-"],
            input=_baseline_program(record),
            text=True,
            capture_output=True,
            timeout=60,
            check=False,
            env=_ENV,
        )
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
        return (
            f"''.join(random.choice({alphabet!r}) for _ in "
            f"range(random.randint(1, {max(len(value), 1)})))"
        )
    if (
        isinstance(value, list)
        and value
        and all(type(v) is type(value[0]) for v in value)
        and isinstance(value[0], (int, float, str))
        and not isinstance(value[0], bool)
    ):
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
        chosen.append(
            {
                **record,
                "id": record["id"] + "/gen",
                "stored_ios": None,
                "input_generator": generator,
                "keep": 10,
            }
        )
        if len(chosen) == count:
            break
    return chosen


def _first_jobs(records: list[dict[str, Any]], settings: CollectSettings) -> list[tuple[str, Any]]:
    """One run of every stored pair (the work the baseline does), each job with the id
    of its function."""
    from execlens.engine import Job, Limits
    from execlens.synth import probe_program

    limits = Limits(wall_time=settings.run_seconds, memory_mb=settings.memory_mb)
    return [
        (
            r["id"],
            Job(
                program=probe_program(r["refcode"]),
                entry_point="__synth_probe__",
                kwargs={"given": p["input"]},
                hash_seed=settings.hash_seed,
                limits=limits,
                origin=("function", r["id"]),  # one function's pairs may share a child
            ),
        )
        for r in records
        for p in r["stored_ios"]
        if isinstance(p.get("input"), dict)
    ]


class RecordingEngine(Engine):
    """The engine, noting every job it is handed: collect's ceiling is costed on the
    jobs collect actually ran (see :func:`collect_compute`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.jobs: list[Job] = []

    def submit(self, job: Job) -> Any:  # noqa: D102 - Engine's
        self.jobs.append(job)
        return super().submit(job)

    def submit_batch(self, jobs: Any, per_child: int | None = None) -> Any:  # noqa: D102
        self.jobs.extend(jobs)
        return super().submit_batch(jobs, per_child)

    def map(self, jobs: Any, **kwargs: Any) -> Any:  # noqa: D102
        jobs = list(jobs)
        self.jobs.extend(jobs)
        return super().map(jobs, **kwargs)


def _pair_key(program: str, given: Any) -> tuple[str, str]:
    return program, json.dumps(given, sort_keys=True)


def equal_work(
    engine: Engine, records: list[dict[str, Any]], settings: CollectSettings
) -> tuple[float, Counter[str], dict[tuple[str, str], float]]:
    """Seconds of one engine run of every stored pair of ``records``, each function's
    own compute (its children's summed durations), and each pair's child time (keyed
    by probe program and input)."""
    owned = _first_jobs(records, settings)
    start = time.perf_counter()
    outcomes = list(engine.map([job for _, job in owned], batch_size=settings.batch_size))
    elapsed = time.perf_counter() - start
    compute: Counter[str] = Counter()
    per_pair: dict[tuple[str, str], float] = {}
    for (owner, job), outcome in zip(owned, outcomes):
        compute[owner] += outcome.duration
        per_pair[_pair_key(job.program, job.kwargs["given"])] = outcome.duration
    return elapsed, compute, per_pair


def collect_compute(
    jobs: list[Job], records: list[dict[str, Any]], per_pair: dict[tuple[str, str], float]
) -> tuple[float, Counter[str]]:
    """The own compute of the jobs ``collect`` ran, each costed at its pair's child time
    in the same-work run (measured with the engine's own worker count, so neither
    collect's two engines sharing the cores nor other load inflates it): a probe of a
    pair under any hash seed costs that pair's time, a replay of a function's stored
    inputs in one process the sum of them.  Also the jobs by kind."""
    from execlens.synth import probe_program, replay_program

    probes = {replay_program(r["refcode"]): probe_program(r["refcode"]) for r in records}
    total, kinds = 0.0, Counter[str]()
    for job in jobs:
        if job.entry_point == "__synth_probe__":
            kinds["probe"] += 1
            total += per_pair.get(_pair_key(job.program, job.kwargs["given"]), 0.0)
        elif job.entry_point == "__synth_replay__":
            kinds["replay"] += 1
            total += sum(
                per_pair.get(_pair_key(probes[job.program], given), 0.0)
                for given in job.kwargs["inputs"]
            )
        else:
            kinds["other"] += 1
    return total, kinds


def _timed(function: Any, *args: Any) -> tuple[float, Any]:
    start = time.perf_counter()
    result = function(*args)
    return time.perf_counter() - start, result


def _table(out: list[dict[str, Any]], pairs: int) -> tuple[Counter[str], Counter[str]]:
    classes: Counter[str] = Counter()
    for record in out:
        classes.update(record["collect"].get("pair_classes", {}))
    print(f"stored pairs on re-execution ({pairs}):")
    for name, count in sorted(classes.items(), key=lambda kv: -kv[1]):
        print(f"  {name:<18} {count:>5}  ({count / pairs:.1%})")
    reasons = Counter(r["reject"]["reason"] for r in out if r.get("reject"))
    return classes, reasons


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object last")
    parser.add_argument(
        "--sample",
        type=int,
        default=small(40, 4),
        help="functions in the timed sample (every k-th of the 464)",
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=small(3, 1),
        help="time each side this many times and keep its best run",
    )
    parser.add_argument(
        "--full",
        action="store_true",
        help="also time both sides on all 464 functions and classify all "
        "4,514 stored pairs (several minutes)",
    )
    args = parser.parse_args()
    records = load_function_records(DATA / "codeio" / "rawcode_1k_parsed.jsonl", keep=10)
    sample = records[:: max(1, len(records) // args.sample)]
    settings = CollectSettings()
    result: dict[str, Any] = {
        "sample_functions": len(sample),
        "sample_pairs": sum(len(r["stored_ios"]) for r in sample),
    }
    outputs: dict[str, list[dict[str, Any]]] = {}
    with (
        RecordingEngine(
            workers=WORKERS, preload=SYNTH_PRELOAD, hash_seed=settings.hash_seed
        ) as engine,
        RecordingEngine(
            workers=WORKERS, preload=SYNTH_PRELOAD, hash_seed=settings.check_seed
        ) as check,
    ):
        # Warm-up pass, which also measures each function's own compute (child time).
        _, compute, _ = equal_work(engine, sample, settings)
        heavy = [r for r in sample if compute[r["id"]] > 0.5]
        light = [r for r in sample if compute[r["id"]] <= 0.5]
        parts = {"all": sample, "light": light}
        if args.full:
            parts["full"] = records
        for name, part in parts.items():
            # Each side's best of --repeat runs: other load on the machine only ever
            # slows a run down.
            equal, part_compute, per_pair = min(
                (equal_work(engine, part, settings) for _ in range(args.repeat)),
                key=lambda run: run[0],
            )
            best: tuple[float, list[dict[str, Any]], list[Job]] | None = None
            for _ in range(args.repeat):
                engine.jobs.clear()
                check.jobs.clear()
                seconds, out = _timed(
                    lambda p: collect_functions(engine, p, check_engine=check), part
                )
                if best is None or seconds < best[0]:
                    best = (seconds, out, engine.jobs + check.jobs)
            assert best is not None
            full, outputs[name], jobs = best
            ran, kinds = collect_compute(jobs, part, per_pair)
            result[name] = {
                "functions": len(part),
                "equal_work_s": round(equal, 3),
                "collect_s": round(full, 3),
                "compute_s": round(sum(part_compute.values()), 3),
                "collect_compute_s": round(ran, 3),
                "collect_jobs": dict(sorted(kinds.items())),
            }
        generated = generator_records(records, count=small(12, 3))
        gen_elapsed, gen_out = _timed(
            lambda: collect_functions(engine, generated, check_engine=check)
        )
        result["steals"] = engine.steals + check.steals
    for name, part in parts.items():
        base = len(part) / max(baseline(part) for _ in range(args.repeat))
        entry = result[name]
        entry["baseline_s"] = round(base, 3)
        entry["ratio_equal_work"] = round(base / entry["equal_work_s"], 2)
        entry["ratio_collect"] = round(base / entry["collect_s"], 2)
        if name == "light":  # overhead-bound: per-function costs, no compute ceiling
            entry["baseline_ms_per_function"] = round(1000 * base * WORKERS / len(part), 1)
            entry["engine_overhead_ms_per_function"] = round(
                1000 * (entry["equal_work_s"] * WORKERS - entry["compute_s"]) / len(part), 1
            )
            continue
        entry["ceiling_equal_work"] = round(base / (entry["compute_s"] / WORKERS), 2)
        entry["ceiling_collect"] = round(base / (entry["collect_compute_s"] / WORKERS), 2)
        entry["share_of_ceiling_equal_work"] = round(
            entry["ratio_equal_work"] / entry["ceiling_equal_work"], 3
        )
        entry["share_of_ceiling_collect"] = round(
            entry["ratio_collect"] / entry["ceiling_collect"], 3
        )
    result["heavy_functions"] = {r["id"]: round(compute[r["id"]], 2) for r in heavy}
    print(
        f"sample: {len(sample)} of {len(records)} functions (every "
        f"{len(records) // len(sample)}th), {result['sample_pairs']} stored pairs, "
        f"{WORKERS} workers on each side; {result['steals']} requests split by work "
        "stealing"
    )
    headers = {"all": "sample", "light": "light", "full": f"all {len(records)}"}
    print(f"{'':<42}" + "".join(f"{headers[name]:>10}" for name in parts))
    for label, key in (
        ("baseline (subprocess/function) s", "baseline_s"),
        ("execlens, same work (1 run/pair) s", "equal_work_s"),
        ("execlens collect (2 runs/pair) s", "collect_s"),
        ("own compute (child time, 1 run/pair) s", "compute_s"),
        ("own compute of collect's jobs s", "collect_compute_s"),
        ("ratio, same work", "ratio_equal_work"),
        ("ceiling, same work", "ceiling_equal_work"),
        ("  share of the ceiling", "share_of_ceiling_equal_work"),
        ("ratio, collect's full work", "ratio_collect"),
        ("ceiling, collect's full work", "ceiling_collect"),
        ("  share of the ceiling", "share_of_ceiling_collect"),
        ("baseline ms/function", "baseline_ms_per_function"),
        ("engine overhead ms/function", "engine_overhead_ms_per_function"),
    ):
        cells = [result[name].get(key) for name in parts]
        cells_text = [
            ("-" if cell is None else f"{cell:.0%}" if key.startswith("share") else str(cell))
            for cell in cells
        ]
        print(f"{label:<42}" + "".join(f"{cell:>10}" for cell in cells_text))
    print(
        "ceiling = baseline s / (compute s / workers), with the compute of the work "
        "compared (collect's: its jobs costed at their pairs' child times): the ratio of "
        "an engine with zero overhead and perfect balance, since both sides pay the "
        "functions' own compute; none for 'light', where the functions' compute is near "
        "zero (see the docstring): its rows are per-function costs"
    )
    print(f"collect's jobs (sample): {result['all']['collect_jobs']}")
    print(
        f"sample's own compute: {result['all']['compute_s']} s, of which "
        f"{sum(result['heavy_functions'].values()):.2f} s in {len(heavy)} function(s) over "
        f"0.5 s: {result['heavy_functions']}; 'light' = the sample without them"
    )
    gen_kept = [r for r in gen_out if not r.get("reject")]
    gen_reasons = Counter(r["reject"]["reason"] for r in gen_out if r.get("reject"))
    result["generator"] = {
        "functions": len(generated),
        "seconds": round(gen_elapsed, 3),
        "kept": len(gen_kept),
        "pairs": sum(len(r["pairs"]) for r in gen_kept),
        "calls": sum(r["collect"].get("calls", 0) for r in gen_out),
        "rejected": dict(sorted(gen_reasons.items())),
    }
    print(
        f"generator-driven collect (1,000-call cap, keep 10): {len(generated)} functions in "
        f"{gen_elapsed:.2f} s; kept {len(gen_kept)} with {result['generator']['pairs']} pairs; "
        f"generator calls {result['generator']['calls']}; "
        f"rejected {dict(sorted(gen_reasons.items()))}"
    )
    if args.full:
        pairs = sum(len(r["stored_ios"]) for r in records)
        classes, reasons = _table(outputs["full"], pairs)
        result["full"].update(
            pairs=pairs,
            pair_classes=dict(sorted(classes.items())),
            rejected=dict(sorted(reasons.items())),
        )
        print(
            f"all {len(records)} functions: collect {result['full']['collect_s']:.1f} s; "
            f"rejected {dict(sorted(reasons.items()))}"
        )
    if args.json:
        print(json.dumps(result, sort_keys=True))


if __name__ == "__main__":
    main()
