"""``verify`` throughput on the CodeI/O reference demo's 2,776 prediction instances.

The instances: the first 3 stored pairs of every function of ``rawcode_1k_parsed.jsonl``,
one output and one input prediction each (2,776).  Each gets an answer from a fixed mix
(seeded): right, wrong, malformed and hostile (inputs that raise or loop, answers that
try to break the extractor: a 1 MB string, JSON nested 5,000 deep, ``\\boxed{}`` traps,
``sys.exit``/``os._exit`` smuggled nowhere they could run).  execlens verifies them all as
tasks on the one judge path (``synth.verify_predictions``: ``judge.plan_task`` and its
executor): output predictions in the host (``tolerant`` rule), input predictions
re-executed in the engine, up to 32 checks of any functions per engine request (each
function's checks in a forked child of their own: code of two functions never shares
a process).

In-run baseline: the reference shape, one ``python -`` subprocess per input-prediction
check with an extractable answer (the same runs the engine makes), its import prefix
(numpy included) before the function, output checks in the host; both sides run
``WORKERS`` at a time, and the subprocesses get the engine servers' one-thread BLAS
setting (``OPENBLAS_NUM_THREADS=1``: otherwise each numpy import starts a thread pool,
which would flatter the ratio).  It is timed in two strata, using each check's child
duration from an untimed engine pass: every *heavy* check (over 50 ms of its own compute,
or a timeout) runs; of the light ones every k-th runs (``--baseline-checks``, default 150)
and their time is scaled to all light checks.  Uniform sampling would miss the rare heavy
checks and under-count; ``--baseline-all`` times every check (about 90 s).

Ceiling: both sides pay the programs' own compute, so an engine with zero overhead and
perfect balance would reach baseline seconds / (compute seconds / ``WORKERS``); the
measured ratio is read against that, and printed as a share of it.  The compute is the
children's summed durations in the timed run itself (a timeout counted at its limit).
(It used to come from a second, untimed pass over the same jobs, which on a shared
machine ran under other load than the timed run; that pass now only sorts the checks
into the baseline's strata.)  Work stealing (``steals``) spreads the checks of a slow
batch -- hostile inputs that loop to their limit -- over idle workers.  Prints
instances/s, the ratio, the ceiling, the label table, and (``--json``) one JSON object on
the last line.
Then (issue 25) the same timed verify through judge workers (``judges=``: ``WORKERS // 8``
of them, at least one, their engines ``WORKERS`` servers in all), after the in-process
run: each role's CPU ms and faults per instance for both (perf/_roles.py), the host's
CPU ratio, and how many verdicts differ.
``EXECLENS_PERF_SMALL=1``: the first 12 functions, 4 baseline checks
(``perf/_small.py``).
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import random
import subprocess
import sys
import threading
import time
from collections import Counter
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any, NamedTuple

from _roles import format_roles, measure, per_item
from _small import small

from execlens.engine import Engine, Job, Limits, Outcome, Status
from execlens.judge import JudgePool, plan_task
from execlens.synth import (
    IMPORT_PREFIX,
    NUMPY_PREFIX,
    SYNTH_PRELOAD,
    extract_answer,
    load_function_records,
    prediction_task,
    verify_predictions,
)
from execlens.tasks import Task

DATA = Path(os.environ.get("EXECLENS_TEST_DATA", "../shared/data"))
WORKERS = os.cpu_count() or 2
SECONDS = 2.0  # per input check: hostile inputs that loop cost this much each
BATCH = 32  # verify_predictions' batch size, also used for the compute pass
HEAVY = 0.05  # seconds of a check's own compute from which the baseline runs it for sure
_ENV = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


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


_MALFORMED = [
    "I think the answer is five.",
    '{"output": [1, 2',
    "```json\n{'input': }\n```",
    '{"answer": 3}',
    "",
]


def _hostile(field: str, pair: dict[str, Any], rng: random.Random) -> str:
    choice = rng.randrange(6)
    if choice == 0:
        return _fence(field, "A" * 1_000_000)  # a 1 MB answer
    if choice == 1:
        return '{"' + field + '": ' + "[" * 5000 + "]" * 5000 + "}"  # nesting bomb
    if choice == 2:
        return "\\boxed{\\{'" + field + "': __import__('os').system('echo pwned')\\}}"
    if field == "output":
        return _fence(
            field,
            {"__class__": "os._exit", "value": float("inf")}
            if choice == 3
            else "import sys; sys.exit(0)",
        )
    given = pair["input"]
    if choice == 3 and isinstance(given, dict):  # an extra keyword: TypeError
        return _fence(field, {**given, "__synth_extra__": 1})
    if choice == 4 and isinstance(given, dict):  # every value a huge int: loops or raises
        return _fence(field, dict.fromkeys(given, 10**12))
    return _fence(
        field,
        dict.fromkeys(given, "'; import os; os._exit(0) #") if isinstance(given, dict) else None,
    )


class Instance(NamedTuple):
    """One instance: its task, the response text, and the function's code alone (the
    baseline runs it behind its own prefix)."""

    task: Task
    text: str
    refcode: str

    @property
    def kind(self) -> str:
        """``o`` or ``i``."""
        return "o" if self.task.kind == "output" else "i"


def build_instances(
    records: list[dict[str, Any]], seed: int = 0
) -> tuple[list[Instance], list[str]]:
    """The 2,776 checks (output then input prediction per pair) and each answer's kind."""
    rng = random.Random(seed)
    checks: list[Instance] = []
    kinds: list[str] = []
    for record in records:
        for pair in record["stored_ios"][:3]:
            for kind, field in (("o", "output"), ("i", "input")):
                truth = pair[field]
                mix = rng.choices(("right", "wrong", "malformed", "hostile"), weights=(4, 3, 2, 1))[
                    0
                ]
                if mix == "right":
                    text = _fence(field, truth)
                elif mix == "wrong":
                    text = _fence(field, _wrong(truth))
                elif mix == "malformed":
                    text = rng.choice(_MALFORMED)
                else:
                    text = _hostile(field, pair, rng)
                task = prediction_task(kind, record["refcode"], pair["input"], pair["output"])
                checks.append(Instance(task, text, record["refcode"]))
                kinds.append(mix)
    return checks, kinds


def _baseline_program(check: Instance, predicted: Any) -> str:
    return (
        IMPORT_PREFIX + NUMPY_PREFIX + "\n" + check.refcode + "\n\n"
        "import json as _j\n"
        f"_given = _j.loads({json.dumps(predicted)!r})\n"
        "print(_j.dumps(main_solution(**_given)))\n"
    )


def _runs(checks: list[Instance]) -> list[tuple[Instance, Any]]:
    """The input checks with an extractable answer, each with its answer: the checks
    that are re-executed (by ``verify_predictions`` in the engine, by the baseline in a
    subprocess)."""
    runs = []
    for check in checks:
        if check.kind == "i":
            answer = extract_answer(check.text, "input")
            if answer.ok:
                runs.append((check, answer.value))
    return runs


def _baseline_one(run: tuple[Instance, Any]) -> None:
    check, predicted = run
    try:
        subprocess.run(
            [sys.executable, "-"],
            input=_baseline_program(check, predicted),
            text=True,
            capture_output=True,
            timeout=SECONDS + 1,
            check=False,
            env=_ENV,
        )
    except subprocess.TimeoutExpired:
        pass


def _timed_runs(runs: list[tuple[Instance, Any]]) -> float:
    start = time.perf_counter()
    with ThreadPoolExecutor(WORKERS) as pool:
        list(pool.map(_baseline_one, runs))
    return time.perf_counter() - start


def baseline_seconds(
    checks: list[Instance], durations: list[float], light_sample: int | None
) -> tuple[float, int, int]:
    """Seconds the reference shape takes for ``checks``: every answer extracted in the
    host, every input check with an answer run in a subprocess, ``WORKERS`` at a time.
    ``durations`` (per run of :func:`_runs`, from the engine) split the runs: heavy ones
    all run; of the light ones every k-th (about ``light_sample``; None: all), scaled.
    Returns the seconds, how many runs were timed, and how many there are."""
    start = time.perf_counter()
    runs = _runs(checks)
    for check in checks:
        if check.kind == "o":
            extract_answer(check.text, "output")
    host = time.perf_counter() - start
    heavy = [run for run, spent in zip(runs, durations) if spent >= HEAVY]
    light = [run for run, spent in zip(runs, durations) if spent < HEAVY]
    sample = light if light_sample is None else light[:: max(1, len(light) // light_sample)]
    light_seconds = _timed_runs(sample) * len(light) / max(1, len(sample))
    return host + _timed_runs(heavy) + light_seconds, len(heavy) + len(sample), len(runs)


class TimingEngine(Engine):
    """The engine, summing the child time of every job it runs: the compute of the
    timed run itself (reruns included), for its ceiling."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.child_seconds = 0.0
        self._lock = threading.Lock()

    def _count(self, future: Future[Outcome]) -> None:
        outcome = future.result()
        spent = max(outcome.duration, SECONDS if outcome.status is Status.TIMEOUT else 0.0)
        with self._lock:
            self.child_seconds += spent

    def submit(self, job: Job) -> Future[Outcome]:  # noqa: D102 - Engine's
        future = super().submit(job)
        future.add_done_callback(self._count)
        return future

    def submit_batch(
        self,
        jobs: Any,
        per_child: int | None = None,  # noqa: D102
    ) -> list[Future[Outcome]]:
        futures = super().submit_batch(jobs, per_child)
        for future in futures:
            future.add_done_callback(self._count)
        return futures


def verify(engine: Engine, checks: list[Instance]) -> list[dict[str, Any]]:
    """``synth.verify_predictions`` on the checks: what the verify stage runs."""
    return verify_predictions(
        engine, [c.task for c in checks], [c.text for c in checks], batch_size=BATCH
    )


def compute_seconds(engine: Engine, checks: list[Instance]) -> tuple[list[float], int]:
    """The input checks' own compute: each run's child duration (in :func:`_runs`
    order), from the jobs ``verify_predictions`` makes (the judge's plans: same jobs,
    order and batching), and how many timed out."""
    runs = _runs(checks)
    jobs = [job for check, value in runs for job in plan_task(check.task, value).jobs]
    durations = [0.0] * len(runs)
    timeouts = 0
    for i, outcome in enumerate(engine.map(jobs, batch_size=BATCH)):
        durations[i] = max(outcome.duration, SECONDS if outcome.status is Status.TIMEOUT else 0.0)
        timeouts += outcome.status is Status.TIMEOUT
    return durations, timeouts


# --- issue 25: the host's share, verified in process vs by judge workers (begin) --------
CORES_PER_JUDGE = 8  # as execlens.rewards picks its judge workers


def pooled_run(checks: list[Instance], limits: Limits) -> dict[str, Any]:
    """The same timed verify through judge workers (``judges=``): ``max(1, WORKERS //
    8)`` of them, their engines ``WORKERS`` servers in all.  Seconds, verdicts, and each
    role's cost per instance."""
    judges = max(1, WORKERS // CORES_PER_JUDGE)
    share = max(1, -(-WORKERS // judges))
    factory = functools.partial(Engine, workers=share, preload=SYNTH_PRELOAD, limits=limits)
    tasks, texts = [c.task for c in checks], [c.text for c in checks]
    with JudgePool(judges, factory) as pool:
        verify_predictions(None, tasks[:8], texts[:8], judges=pool, batch_size=BATCH)  # warm
        start = time.perf_counter()
        verdicts, totals = measure(
            lambda: verify_predictions(None, tasks, texts, judges=pool, batch_size=BATCH)
        )
        elapsed = time.perf_counter() - start
    return {
        "seconds": elapsed,
        "verdicts": verdicts,
        "judges": judges,
        "roles": per_item(totals, len(checks)),
    }


def host_share(
    checks: list[Instance], before: dict[str, Any], after: dict[str, Any], verdicts: list[Any]
) -> dict[str, Any]:
    """Before (in process) vs after (judge workers): rates, per-role costs, the host's
    CPU ratio, and whether every verdict is the same."""
    host_before, host_after = before["host"]["cpu_ms"], after["roles"]["host"]["cpu_ms"]
    # Any two runs differ somewhat: programs that print their own timings or unseeded
    # randomness, and timeouts under the machine's load (two in-process runs on the
    # 2-core machine: 33 of 2,776); the labels show how far.
    differ = sum(a != b for a, b in zip(verdicts, after["verdicts"]))
    labels = sum(a["label"] != b["label"] for a, b in zip(verdicts, after["verdicts"]))
    result = {
        "judges": after["judges"],
        "in_process": before,
        "judge_workers": after["roles"],
        "judge_workers_seconds": round(after["seconds"], 3),
        "judge_workers_instances_per_s": round(len(checks) / after["seconds"], 1),
        "host_cpu_ratio": round(host_before / host_after, 2) if host_after else None,
        "verdicts_differing": differ,
        "labels_differing": labels,
    }
    print(
        f"host CPU per instance: {host_before:.4f} ms in process -> {host_after:.4f} ms with "
        f"{after['judges']} judge worker(s) ({result['host_cpu_ratio']}x less); judge workers "
        f"verify in {after['seconds']:.2f} s = {result['judge_workers_instances_per_s']:.0f} "
        f"instances/s; verdicts differing: {differ} ({labels} in label)"
    )
    print(format_roles("in_process", before))
    print(format_roles("judge_workers", after["roles"]))
    return result


# --- issue 25 (end) ----------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object last")
    parser.add_argument(
        "--baseline-checks",
        type=int,
        default=small(150, 4),
        help="light input checks the subprocess baseline times (every "
        "k-th, scaled to all of them); heavy ones always all run",
    )
    parser.add_argument(
        "--baseline-all",
        action="store_true",
        help="time the baseline on every input check (about 90 s)",
    )
    args = parser.parse_args()
    records = load_function_records(DATA / "codeio" / "rawcode_1k_parsed.jsonl", keep=3)
    records = records[: small(None, 12)]
    checks, kinds = build_instances(records)
    limits = Limits(wall_time=SECONDS, memory_mb=512)
    with TimingEngine(workers=WORKERS, preload=SYNTH_PRELOAD, limits=limits) as engine:
        verify(engine, checks[:8])  # warm the servers
        engine.child_seconds = 0.0
        start = time.perf_counter()
        verdicts, totals = measure(lambda: verify(engine, checks))
        elapsed = time.perf_counter() - start
        compute = engine.child_seconds  # the timed run's own child time
        steals = engine.steals
        durations, timeouts = compute_seconds(engine, checks)  # untimed: the strata
    pooled = pooled_run(checks, limits)  # issue 25: after its own engines are up
    base, sampled, runnable = baseline_seconds(
        checks, durations, None if args.baseline_all else args.baseline_checks
    )
    heavy = sum(spent >= HEAVY for spent in durations)
    labels = Counter(v["label"] for v in verdicts)
    by_mix: dict[str, Counter[str]] = {}
    for mix, verdict in zip(kinds, verdicts):
        by_mix.setdefault(mix, Counter())[verdict["label"]] += 1
    right_ok = by_mix["right"]["success"] / max(1, sum(by_mix["right"].values()))
    rate, base_rate = len(checks) / elapsed, len(checks) / base
    ceiling = base / (compute / WORKERS)
    how = (
        "every one timed"
        if sampled == runnable
        else f"all {heavy} heavy ones timed, {sampled - heavy} of the "
        f"{runnable - heavy} light ones timed and scaled"
    )
    print(
        f"verify: {len(checks)} instances ({sum(c.kind == 'i' for c in checks)} input "
        f"predictions, {runnable} with an answer re-executed) in {elapsed:.2f} s = "
        f"{rate:.0f} instances/s, {WORKERS} workers"
    )
    print(
        f"baseline (python subprocess per input check with an answer, numpy prefix; "
        f"{how}): {base:.1f} s = {base_rate:.1f} instances/s"
    )
    print(
        f"programs' own compute (summed child durations, {timeouts} timeouts of "
        f"{SECONDS:g} s): {compute:.1f} s = {compute / WORKERS:.1f} s on {WORKERS} workers"
    )
    print(
        f"speed-up: {rate / base_rate:.1f}x   ceiling: {ceiling:.1f}x   share of the "
        f"ceiling: {rate / base_rate / ceiling:.0%}   (targets: <= 10 s, >= 20x); "
        f"{steals} batches split by work stealing"
    )
    print(
        "  ceiling = baseline s / (compute s / workers): the ratio of an engine with zero "
        "overhead and perfect balance, since both sides pay the programs' own compute"
    )
    print(f"{'answer':<10} " + " ".join(f"{k:>10}" for k in sorted(labels)))
    for mix in ("right", "wrong", "malformed", "hostile"):
        counts = by_mix.get(mix, Counter())
        print(f"{mix:<10} " + " ".join(f"{counts.get(k, 0):>10}" for k in sorted(labels)))
    print(
        f"right answers verified as success: {right_ok:.1%} (the rest: stored pairs that no "
        "longer reproduce, see perf/collect.py)"
    )
    shares = host_share(checks, per_item(totals, len(checks)), pooled, verdicts)  # issue 25
    if args.json:
        print(
            json.dumps(
                {
                    "host_share": shares,  # issue 25
                    "instances": len(checks),
                    "seconds": round(elapsed, 3),
                    "instances_per_s": round(rate, 1),
                    "input_checks_run": runnable,
                    "baseline_seconds": round(base, 2),
                    "baseline_checks_timed": sampled,
                    "heavy_checks": heavy,
                    "baseline_extrapolated": sampled != runnable,
                    "baseline_instances_per_s": round(base_rate, 2),
                    "speedup": round(rate / base_rate, 2),
                    "compute_s": round(compute, 2),
                    "timeouts": timeouts,
                    "ceiling": round(ceiling, 2),
                    "share_of_ceiling": round(rate / base_rate / ceiling, 3),
                    "steals": steals,
                    "labels": dict(sorted(labels.items())),
                    "by_answer": {k: dict(sorted(v.items())) for k, v in by_mix.items()},
                    "right_success_rate": round(right_ok, 4),
                },
                sort_keys=True,
            )
        )


if __name__ == "__main__":
    main()
