"""Same outcomes with the minimal root and with the read-only host view (issue 19).

Runs CRUXEval's 800 programs (``f(input)``, one fresh child each) and REval's 978 runs
(every runnable DREval input: HumanEval calls, ClassEval test methods with ``setUp``)
through two engines that differ only in ``filesystem=`` (``"minimal"``, the default,
and ``"host"``, the view before issue 19), plus REval's whole truth (both modes: every
traced pair, the ClassEval record runs) that the reference numbers are computed from.
Compares status, value envelope, stdout/stderr and exception of every run, and the
truth dicts for equality.  Prints the counts and every difference; exit code 1 if any.

    python perf/filesystem_parity.py [--data ../shared/data] [--workers 2]

``EXECLENS_PERF_SMALL=1``: 20 runs of each and the truth of 3 REval problems
(``perf/_small.py``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from _small import small

from execlens.bench.reval import build_reval_truth, load_reval, load_reval_problems
from execlens.engine import Engine, Job, Limits, Outcome

REPO = Path(__file__).resolve().parents[1]
LIMITS = Limits(wall_time=10.0, memory_mb=1024)
_CLASSEVAL_RUN = (
    "\n\ndef __parity_run__(test, test_class, test_method):\n"
    "    namespace = dict(globals())\n"
    "    namespace['__name__'] = '__bench_test__'\n"
    "    exec(test, namespace)\n"
    "    case = namespace[test_class](test_method)\n"
    "    case.setUp()\n"
    "    getattr(case, test_method)()\n"
    "    return 'passed'\n"
)


def _summary(outcome: Outcome) -> dict[str, Any]:
    exc = outcome.exception
    return {
        "status": outcome.status.value,
        "value": outcome.value,
        "stdout": outcome.stdout,
        "stderr": outcome.stderr,
        "exception": [exc.type, exc.message, exc.traceback] if exc else None,
    }


def cruxeval_jobs(data: Path) -> list[Job]:
    """One job per CRUXEval sample: its program called on its input."""
    rows = [json.loads(line) for line in (data / "cruxeval" / "cruxeval.jsonl").open()]
    return [
        Job(row["code"], call=f"f({row['input']})", limits=LIMITS, tag=row["id"]) for row in rows
    ]


def reval_jobs(data: Path) -> list[Job]:
    """One job per runnable REval run, as ``perf/tracer.py`` runs them untraced."""
    jobs = []
    for problem in load_reval_problems(data / "reval"):
        if problem.skip_reason:
            continue
        for item in problem.runs:
            if item.call is not None:
                jobs.append(Job(problem.code, call=item.call, limits=LIMITS, tag=item.key))
            else:
                call = (
                    f"__parity_run__({problem.test!r}, {item.test_class!r}, {item.test_method!r})"
                )
                jobs.append(
                    Job(problem.code + _CLASSEVAL_RUN, call=call, limits=LIMITS, tag=item.key)
                )
    return jobs


def _run_all(
    view: str, workers: int, jobs: dict[str, list[Job]], problems: list
) -> tuple[dict[str, list[dict[str, Any]]], dict[str, Any], float]:
    start = time.perf_counter()
    with Engine(workers=workers, filesystem=view) as engine:
        layer = next(x for x in engine.isolation_report().layers if x.name == "filesystem")
        print(
            f"[{view}] filesystem layer active={layer.active}: {layer.detail[:120]}...", flush=True
        )
        runs = {name: [_summary(o) for o in engine.map(batch)] for name, batch in jobs.items()}
        truth = {mode: t.to_dict() for mode, t in build_reval_truth(problems, engine).items()}
    return runs, truth, time.perf_counter() - start


def main() -> int:
    """Run both views and print the comparison."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--data",
        type=Path,
        default=Path(os.environ.get("EXECLENS_TEST_DATA", REPO.parent / "shared" / "data")),
    )
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    runs = small(None, 20)
    jobs = {
        "cruxeval": cruxeval_jobs(args.data)[:runs],
        "reval": reval_jobs(args.data)[:runs],
    }
    loaded = load_reval(args.data / "reval")
    loaded.raise_for_errors()
    problems = loaded.records[: small(None, 3)]
    results = {}
    for view in ("minimal", "host"):
        results[view] = _run_all(view, args.workers, jobs, problems)
    differences = 0
    for name, batch in jobs.items():
        minimal, host = results["minimal"][0][name], results["host"][0][name]
        same = [a == b for a, b in zip(minimal, host)]
        statuses: dict[str, int] = {}
        for summary in minimal:
            statuses[summary["status"]] = statuses.get(summary["status"], 0) + 1
        print(
            f"{name}: {len(batch)} runs, {sum(same)} identical outcomes "
            f"(status, value, stdout, stderr, exception); statuses {statuses}"
        )
        for job, a, b, ok in zip(batch, minimal, host, same):
            if not ok:
                differences += 1
                print(f"  DIFFERENT {job.tag}: minimal={a} host={b}")
    for mode in ("official", "strict"):
        a, b = results["minimal"][1][mode], results["host"][1][mode]
        equal = a == b
        differences += not equal
        print(
            f"reval truth ({mode}): {len(a['questions'])} questions, {len(a['outputs'])} "
            f"outputs, {len(a['lines'])} traced pairs, {len(a['skipped'])} skipped: "
            f"{'identical' if equal else 'DIFFERENT'}"
        )
    for view in ("minimal", "host"):
        print(f"[{view}] wall {results[view][2]:.1f} s")
    print("differences:", differences)
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
