"""Scoring CRUXEval's 8,000 + 8,000 Code Llama 7B generations, beside the official shape.

Measured in one run, on the shipped data (``EXECLENS_TEST_DATA``, default
``../shared/data``):

* **baseline**: the official scorer's execution shape -- a ``ProcessPoolExecutor`` over
  samples (one worker per core), and for every generation a fresh
  ``multiprocessing.Manager`` + ``Process`` running ``code + assert`` under a 3 s
  ``SIGALRM``.  Sampled on 400 generations (20 samples of each file, evenly spaced);
  its time for all 16,000 is extrapolated from that rate (conservatively: the sample
  holds none of the 26 generations that run into the 3 s timeout, which would cost the
  official scorer about 40 s more on two workers).  Like the official scorer, the
  baseline runs the generations unsandboxed: only this shipped, known data.
* **execlens official**: both files through :class:`CruxEvalOfficialScorer` on a
  16-server scoring engine (engine start-up included in the total).
  The same is run once more without dedupe of identical generations, to show what
  batching and overlapping timeouts give on their own.
* **execlens strict**: input prediction (each parsed call runs ``f`` in the engine) and
  output prediction (no execution at all).

Checks that official mode reproduces the official pass@1 / pass@5 exactly.  Prints wall
times, generations/s and the ratio to the baseline; ``--json`` prints one JSON object on
the last line.  ``EXECLENS_PERF_SMALL=1``: the first 16 samples of each file, a baseline
of 2 samples, 2 servers (``perf/_small.py``; the official numbers then do not apply).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import multiprocessing
import os
import signal
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from _small import small

from execlens.bench import mean_pass_at_k
from execlens.bench.cruxeval import (
    CruxEvalOfficialScorer,
    load_cruxeval_generations,
    load_cruxeval_problems,
)
from execlens.judge import (
    Executor,
    StrictScorer,
    score_samples,
    scoring_engine,
)
from execlens.tasks import Task

REPO = Path(__file__).resolve().parents[1]
OFFICIAL = {  # facebookresearch/cruxeval: samples/evaluation_results/sample_scored_codellama-7b_*
    "input": (35.94999999999998, 44.991071428571416),
    "output": (34.212500000000006, 40.286706349206355),
}
TIMEOUT = 3.0
BASELINE_SAMPLES = small(range(7, 800, 40), range(1, 16, 8))  # 20 samples per file, 400 gens
SAMPLES = small(800, 16)


def _data_dir() -> Path:
    configured = Path(os.environ.get("EXECLENS_TEST_DATA", "../shared/data"))
    root = configured if configured.is_absolute() else (REPO / configured).resolve()
    path = root / "cruxeval"
    if not (path / "cruxeval.jsonl").exists():
        sys.exit(f"CRUXEval data not found under {path} (set EXECLENS_TEST_DATA)")
    return path


# ------------------------------------------------------------------ baseline
def _baseline_child(source: str, result: Any, timeout: float) -> None:
    def on_alarm(signum: int, frame: Any) -> None:
        raise TimeoutError("timed out")

    signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    sink = io.StringIO()
    try:
        with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
            exec(source, {})  # noqa: S102 - the unsandboxed official shape, on known data
        result.append("passed")
    except BaseException as exc:  # noqa: BLE001
        result.append(f"failed: {type(exc).__name__}")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def _baseline_check(source: str) -> bool:
    manager = multiprocessing.Manager()
    try:
        result = manager.list()
        process = multiprocessing.Process(target=_baseline_child, args=(source, result, TIMEOUT))
        process.start()
        process.join(TIMEOUT + 1)
        if process.is_alive():
            process.kill()
            process.join()
        return bool(result) and result[0] == "passed"
    finally:
        manager.shutdown()


def _baseline_sample(sources: list[str]) -> list[bool]:
    return [_baseline_check(source) for source in sources]


def baseline(problems: dict[str, Task], gens: dict[str, dict[str, list[str]]]) -> dict[str, Any]:
    """Run the official shape on the sampled generations; returns its rate and verdicts."""
    work: list[tuple[str, str, list[str]]] = []
    for task in ("input", "output"):
        scorer = CruxEvalOfficialScorer(task)
        for index in BASELINE_SAMPLES:
            problem = problems[f"sample_{index}"]
            jobs = scorer.plan(problem, gens[task][problem.id]).jobs
            work.append((task, problem.id, [f"{j.program}\n{j.call}" for j in jobs]))
    start = time.perf_counter()
    with ProcessPoolExecutor(os.cpu_count() or 2) as pool:
        verdicts = list(pool.map(_baseline_sample, [sources for _, _, sources in work]))
    seconds = time.perf_counter() - start
    count = sum(len(v) for v in verdicts)
    return {
        "generations": count,
        "seconds": seconds,
        "rate": count / seconds,
        "verdicts": {(task, sid): v for (task, sid, _), v in zip(work, verdicts)},
    }


# ------------------------------------------------------------------- execlens
def run_mode(
    scorer: Any,
    problems: list[Task],
    gens: dict[str, list[str]],
    engine: Any,
    dedupe: bool = True,
) -> dict[str, Any]:
    """Score one file with one scorer; wall time, rate, pass@k and executor stats."""
    executor = Executor(engine, dedupe=dedupe) if engine is not None else None
    start = time.perf_counter()
    try:
        scores = {
            p.id: s[scorer.name]
            for p, s in score_samples(
                [scorer], [(p, gens[p.id]) for p in problems], engine, executor=executor
            )
        }
    finally:
        if executor is not None:
            executor.close()
    seconds = time.perf_counter() - start
    lists = [scores[p.id].scored for p in problems]
    count = sum(len(gens[p.id]) for p in problems)
    timeouts = sum(1 for s in scores.values() for v in s.verdicts if v.status.value == "timeout")
    return {
        "seconds": seconds,
        "generations": count,
        "rate": count / seconds,
        "pass@1": mean_pass_at_k(lists, 1),
        "pass@5": mean_pass_at_k(lists, 5),
        "timeouts": timeouts,
        "stats": executor.stats.to_dict() if executor else None,
        "scores": scores,
    }


def main() -> None:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object last")
    parser.add_argument("--workers", type=int, default=small(16, 2), help="scoring engine servers")
    args = parser.parse_args()

    data = _data_dir()
    problems = load_cruxeval_problems(data)[:SAMPLES]
    by_id = {p.id: p for p in problems}
    gens = {
        task: load_cruxeval_generations(data / f"codellama-7b_temp0.2_{task}_generations.json")
        for task in ("input", "output")
    }

    base = baseline(by_id, gens)

    start = time.perf_counter()
    engine = scoring_engine(args.workers)
    startup = time.perf_counter() - start
    try:
        runs = {
            ("official", "input"): run_mode(
                CruxEvalOfficialScorer("input"), problems, gens["input"], engine
            ),
            ("official", "output"): run_mode(
                CruxEvalOfficialScorer("output"), problems, gens["output"], engine
            ),
            ("strict", "input"): run_mode(StrictScorer("input"), problems, gens["input"], engine),
        }
        # The same official runs without dedupe: what batching and overlap alone give.
        undeduped = {
            task: run_mode(CruxEvalOfficialScorer(task), problems, gens[task], engine, dedupe=False)
            for task in ("input", "output")
        }
    finally:
        engine.close()
    runs[("strict", "output")] = run_mode(StrictScorer("output"), problems, gens["output"], None)

    # The baseline's verdicts on its sample must be ours (official mode) too.
    agree = total = 0
    for (task, sid), verdicts in base["verdicts"].items():
        ours = [
            v.passed
            for v in runs[("official", task)]["scores"][sid].verdicts
            if v.status.value != "skipped"
        ]
        total += len(verdicts)
        agree += sum(a == b for a, b in zip(verdicts, ours))

    official_seconds = (
        startup + runs[("official", "input")]["seconds"] + runs[("official", "output")]["seconds"]
    )
    plain_seconds = startup + sum(run["seconds"] for run in undeduped.values())
    plain_same = all(
        (undeduped[t]["pass@1"], undeduped[t]["pass@5"]) == OFFICIAL[t] for t in ("input", "output")
    )
    official_generations = small(16_000, sum(len(gens[t][p.id]) for t in gens for p in problems))
    baseline_estimate = official_generations / base["rate"]
    matches = all(
        (runs[("official", t)]["pass@1"], runs[("official", t)]["pass@5"]) == OFFICIAL[t]
        for t in ("input", "output")
    )

    print(
        f"baseline (Manager + Process per generation, {os.cpu_count()} workers): "
        f"{base['generations']} generations in {base['seconds']:.1f} s = "
        f"{base['rate']:.1f} gen/s -> 16,000 in ~{baseline_estimate:.0f} s "
        f"(verdicts agree with ours on {agree}/{total})"
    )
    print(f"scoring engine start-up ({args.workers} servers): {startup:.2f} s")
    print(
        f"{'mode':8} {'task':6} {'seconds':>8} {'gen/s':>9} {'pass@1':>8} {'pass@5':>8} "
        f"{'timeouts':>8}  executor"
    )
    for (mode, task), run in runs.items():
        print(
            f"{mode:8} {task:6} {run['seconds']:8.2f} {run['rate']:9.0f} {run['pass@1']:8.3f} "
            f"{run['pass@5']:8.3f} {run['timeouts']:8d}  {run['stats'] or '-'}"
        )
    speedup = baseline_estimate / official_seconds
    print(
        f"official mode, all 16,000 (start-up included): {official_seconds:.2f} s = "
        f"{official_generations / official_seconds:.0f} gen/s, {speedup:.1f}x the baseline; "
        f"official numbers reproduced: {'yes' if matches else 'NO'}"
    )
    print(
        f"official mode without dedupe (every generation executed): {plain_seconds:.2f} s = "
        f"{baseline_estimate / plain_seconds:.1f}x the baseline; same numbers: "
        f"{'yes' if plain_same else 'NO'}"
    )
    if args.json:
        summary = {
            "baseline": {
                "generations": base["generations"],
                "seconds": round(base["seconds"], 3),
                "generations_per_second": round(base["rate"], 2),
                "estimated_seconds_16000": round(baseline_estimate, 1),
                "verdicts_agree": agree,
                "verdicts_compared": total,
            },
            "engine_startup_seconds": round(startup, 3),
            "runs": {
                f"{mode}_{task}": {
                    "seconds": round(run["seconds"], 3),
                    "generations_per_second": round(run["rate"], 1),
                    "pass@1": run["pass@1"],
                    "pass@5": run["pass@5"],
                    "timeouts": run["timeouts"],
                    "executor": run["stats"],
                }
                for (mode, task), run in runs.items()
            },
            "official_total_seconds": round(official_seconds, 3),
            "official_generations_per_second": round(official_generations / official_seconds, 1),
            "speedup_vs_baseline": round(speedup, 2),
            "official_numbers_reproduced": matches,
            "official_without_dedupe": {
                "seconds": round(plain_seconds, 3),
                "speedup_vs_baseline": round(baseline_estimate / plain_seconds, 2),
                "numbers_reproduced": plain_same,
                "runs": {
                    task: {
                        "seconds": round(run["seconds"], 3),
                        "timeouts": run["timeouts"],
                        "executor": run["stats"],
                    }
                    for task, run in undeduped.items()
                },
            },
            "workers": args.workers,
            "cpus": os.cpu_count(),
        }
        print(json.dumps(summary))


if __name__ == "__main__":
    main()
