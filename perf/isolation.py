"""What the isolation layers cost: this checkout's engine beside a baseline checkout's, in
one run, on the same machine (issue 23).

    python perf/isolation.py --baseline-src /path/to/other/checkout/src [--json]

For each checkout and each set-up, a fresh interpreter imports that checkout's
``execlens`` and measures, with ``perf/engine.py``'s job (``def f(x): return x * 2``,
called once) and one server per core:

* server start: ``Engine(...)`` until every server is ready and a first job has run
  (a user namespace, the minimal root, Landlock and cgroup set-up all happen there);
* one job per forked child (runs/s), and 16 inputs per child (``batch_size=16``);
* CPU per run of the measuring process (host) and of everything it started and reaped
  (servers, zygotes, children: the sandbox).

Set-ups: ``root`` (as run: root with every capability, the namespaces had directly) and
``no-sysadmin`` (root without ``CAP_SYS_ADMIN`` in its bounding set: the namespaces come
from a user namespace here, while a checkout without that support runs without them).
Rounds alternate between the checkouts; the best of each is kept.  ``--json`` prints one
JSON object on the last line.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import subprocess
import sys
from pathlib import Path

from _small import SMALL, small

_MEASURE = r"""
import json, os, resource, sys, time
from execlens.engine import Engine, Job
PROGRAM = "def f(x):\n    return x * 2\n"
workers = os.cpu_count() or 2
runs = int(sys.argv[1])
started = time.perf_counter()
engine = Engine(workers=workers)
engine.run(Job(PROGRAM, call="f(1)"))
start_s = time.perf_counter() - started
report = engine.isolation_report()
missing = [layer.name for layer in report.layers if not layer.active]
out = {"start_s": start_s, "method": getattr(report, "method", ""), "missing": missing}
for name, batch in (("one_per_child", 1), ("batched_16", 16)):
    jobs = [Job(PROGRAM, call=f"f({i})") for i in range(runs)]
    list(engine.map(jobs[:50], batch_size=batch))
    before = (resource.getrusage(resource.RUSAGE_SELF), time.perf_counter())
    outcomes = list(engine.map(jobs, batch_size=batch))
    elapsed = time.perf_counter() - before[1]
    assert all(o.ok for o in outcomes), [o.message for o in outcomes if not o.ok][:3]
    cpu = resource.getrusage(resource.RUSAGE_SELF)
    out[name] = runs / elapsed
    out[name + "_host_cpu_ms"] = (
        (cpu.ru_utime + cpu.ru_stime - before[0].ru_utime - before[0].ru_stime) / runs * 1e3
    )
engine.close()
children = resource.getrusage(resource.RUSAGE_CHILDREN)
out["sandbox_cpu_ms"] = (children.ru_utime + children.ru_stime) / (2 * runs + 101) * 1e3
print(json.dumps(out))
"""

_PR_CAPBSET_DROP = 24
_CAP_SYS_ADMIN = 21


def _drop_sys_admin() -> None:  # runs in the child, before exec
    ctypes.CDLL(None).prctl(_PR_CAPBSET_DROP, _CAP_SYS_ADMIN, 0, 0, 0)


def measure(src: str, setup: str, runs: int) -> dict[str, object]:
    """One fresh interpreter's figures for the checkout whose package lies in ``src``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("EXECLENS_ISOLATION")}
    env["PYTHONPATH"] = src
    done = subprocess.run(
        [sys.executable, "-c", _MEASURE, str(runs)],
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
        cwd="/",
        preexec_fn=_drop_sys_admin if setup == "no-sysadmin" else None,  # noqa: PLW1509
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"{src} ({setup}) failed:\n{done.stderr[-2000:]}")
    result: dict[str, object] = json.loads(done.stdout.splitlines()[-1])
    return result


def _best(samples: list[dict[str, object]]) -> dict[str, object]:
    best = dict(samples[0])
    for sample in samples[1:]:
        for key, value in sample.items():
            if not isinstance(value, float):
                continue
            lower_is_better = key.endswith(("_s", "_ms"))
            current = best[key]
            assert isinstance(current, float)
            best[key] = min(current, value) if lower_is_better else max(current, value)
    return best


def main() -> None:
    """Measure both checkouts in alternating rounds and print the comparison."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    here = str(Path(__file__).resolve().parents[1] / "src")
    parser.add_argument(
        "--baseline-src",
        # the small scale compares this tree with itself: every code path, no figure
        required=not SMALL,
        default=small(None, here),
        help="the other checkout's src/",
    )
    parser.add_argument("--runs", type=int, default=small(3000, 40), help="jobs per measurement")
    parser.add_argument("--rounds", type=int, default=small(3, 1))
    parser.add_argument("--setups", default="root,no-sysadmin")
    parser.add_argument("--json", action="store_true", help="print a JSON line at the end")
    args = parser.parse_args()
    checkouts = {"baseline": str(Path(args.baseline_src).resolve()), "this": here}
    setups = [s for s in args.setups.split(",") if s]
    if os.geteuid() != 0 and "no-sysadmin" in setups:
        setups.remove("no-sysadmin")  # only root has a CAP_SYS_ADMIN to drop
    samples: dict[tuple[str, str], list[dict[str, object]]] = {}
    for _ in range(args.rounds):
        for setup in setups:
            for name, src in checkouts.items():
                samples.setdefault((setup, name), []).append(measure(src, setup, args.runs))
    results: dict[str, object] = {"runs": args.runs, "rounds": args.rounds, "setups": {}}
    for setup in setups:
        before = _best(samples[(setup, "baseline")])
        after = _best(samples[(setup, "this")])
        print(
            f"\n{setup}: baseline namespaces via {before['method'] or 'root'}, "
            f"missing {before['missing']}; this via {after['method']}, "
            f"missing {after['missing']}"
        )
        print(f"{'':28}{'baseline':>12}{'this':>12}{'this/base':>11}")
        rows = {}
        for key in (
            "start_s",
            "one_per_child",
            "batched_16",
            "one_per_child_host_cpu_ms",
            "batched_16_host_cpu_ms",
            "sandbox_cpu_ms",
        ):
            b, a = before[key], after[key]
            assert isinstance(b, float) and isinstance(a, float)
            rows[key] = {"baseline": round(b, 4), "this": round(a, 4), "ratio": round(a / b, 3)}
            print(f"{key:28}{b:12.4g}{a:12.4g}{a / b:11.3f}")
        results["setups"][setup] = {  # type: ignore[index]
            "baseline": {"method": before["method"], "missing": before["missing"]},
            "this": {"method": after["method"], "missing": after["missing"]},
            "figures": rows,
        }
    if args.json:
        print(json.dumps(results))


if __name__ == "__main__":
    main()
