"""Engine throughput beside the execution shapes other tools use, measured in one run.

Every method runs the same trivial program (``def f(x): return x * 2`` called once and
its value sent back to the caller) with as many concurrent workers as cores:

* in-process ``exec`` in a ``multiprocessing.Pool`` (no isolation: the ceiling);
* ``subprocess`` per run (``python -`` with the program on stdin: the CodeI/O shape);
* the same with an import prefix like the one CodeI/O's checker puts before every
  program (numpy and common stdlib modules): what that shape costs in practice, for
  context (the 10× target is judged against the bare row above);
* ``multiprocessing.Process`` + ``Manager`` per run (the human-eval / CRUXEval shape);
* ``multiprocessing.Process`` + ``Pipe`` per run (that shape made lean);
* the execlens engine, one job per forked child, full isolation;
* the execlens engine, 16 inputs per forked child (the inputs are one program's calls,
  one origin: ``Job.origin``, so they may share a child);
* with ``--program-python PATH``: one job per child with programs under that interpreter
  (a program environment such as ``.venv-programs``), beside the host-interpreter row;
* with ``--compare-host-view``: one job per child with the minimal root (the default
  filesystem view) against the read-only view of the whole host it replaced
  (``filesystem="host"``), in alternating rounds, best of each (issue 19: a minimal root
  must not cost start-up time per job);
* the floor under any fresh-process-per-run design: ``fork`` + ``os._exit`` + ``waitpid``
  and nothing else, from an interpreter holding the engine zygote's modules, one such
  loop per core (no job, no isolation, no result).

Slow baselines are sampled on a few hundred runs.  Prints runs/s and the engine's
ratios to each baseline, then where a one-job run's CPU goes: host, fork servers,
zygotes and children (CPU ms and minor page faults per run, from the kernel's
per-process accounting) beside the do-nothing fork loop's forking and forked
processes.  ``--json`` adds one JSON object on the last line.  ``EXECLENS_PERF_SMALL=1``
makes ``--scale`` default to 0.01 (``perf/_small.py``).
"""

from __future__ import annotations

import argparse
import functools
import json
import multiprocessing
import os
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from _small import small

from execlens.engine import DEFAULT_PRELOAD, Engine, Job

PROGRAM = "def f(x):\n    return x * 2\n"
WORKERS = os.cpu_count() or 2
# Every call of the benchmark runs the same program on a value: one origin, so a batch
# may share a child.  (A checkout from before ``Job.origin`` batches without being told:
# leaving it out there lets this script measure before and after in one run.)
ONE_ORIGIN = {"origin": "perf"} if "origin" in Job.__dataclass_fields__ else {}


def _exec_many(count: int) -> int:
    total = 0
    for i in range(count):
        namespace: dict[str, object] = {}
        exec(PROGRAM, namespace)  # noqa: S102 - the no-isolation ceiling
        total += namespace["f"](i)  # type: ignore[operator]
    return total


def in_process(runs: int) -> float:
    per_worker = runs // WORKERS
    with multiprocessing.Pool(WORKERS) as pool:
        pool.map(_exec_many, [10] * WORKERS)  # warm up
        start = time.perf_counter()
        pool.map(_exec_many, [per_worker] * WORKERS)
        elapsed = time.perf_counter() - start
    return per_worker * WORKERS / elapsed


def _threaded(runs: int, one: Callable[[int], object]) -> float:
    with ThreadPoolExecutor(WORKERS) as pool:
        list(pool.map(one, range(2)))  # warm up
        start = time.perf_counter()
        results = list(pool.map(one, range(runs)))
        elapsed = time.perf_counter() - start
    assert all(r is not None for r in results)
    return runs / elapsed


# CodeI/O's checker prepends a block of imports (numpy among them) to every program; this
# stands in for it (ours, not theirs): the common modules such a prefix loads.
CODEIO_STYLE_PREFIX = (
    "import numpy as np\n"
    "import math, random, itertools, collections, functools, heapq, json, re, string\n"
)


def _subprocess_one(i: int, prefix: str = "") -> object:
    code = prefix + PROGRAM + f"print(repr(f({i})))\n"
    done = subprocess.run(
        [sys.executable, "-"], input=code, capture_output=True, text=True, timeout=30, check=True
    )
    return done.stdout.strip()


def _child_manager(i: int, result: list[object]) -> None:
    namespace: dict[str, object] = {}
    exec(PROGRAM, namespace)  # noqa: S102
    result.append(namespace["f"](i))  # type: ignore[operator]


def _manager_one(i: int) -> object:
    with multiprocessing.Manager() as manager:
        result = manager.list()
        process = multiprocessing.Process(target=_child_manager, args=(i, result))
        process.start()
        process.join(timeout=10)
        if process.is_alive():
            process.kill()
        return result[0] if result else None


def _child_pipe(i: int, conn: object) -> None:
    namespace: dict[str, object] = {}
    exec(PROGRAM, namespace)  # noqa: S102
    conn.send(namespace["f"](i))  # type: ignore[attr-defined,operator]
    conn.close()  # type: ignore[attr-defined]


def _pipe_one(i: int) -> object:
    receiver, sender = multiprocessing.Pipe(duplex=False)
    process = multiprocessing.Process(target=_child_pipe, args=(i, sender))
    process.start()
    sender.close()
    value = receiver.recv() if receiver.poll(10) else None
    process.join(timeout=10)
    if process.is_alive():
        process.kill()
    receiver.close()
    return value


# Run in a fresh interpreter (started like the engine's servers) so that nothing this
# benchmark imported, such as threading and its at-fork hook, inflates the floor.
_FORK_FLOOR = """
import os, sys, time
import execlens.engine._server
for name in sys.argv[2:]:
    __import__(name)
assert "threading" not in sys.modules
runs = int(sys.argv[1])
before = open("/proc/self/stat").read()
start = time.perf_counter()
for _ in range(runs):
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
elapsed = time.perf_counter() - start
print(elapsed)
print(before.strip())
print(open("/proc/self/stat").read().strip())
"""


_TICKS = os.sysconf("SC_CLK_TCK")


class RoleCost:
    """CPU time and minor page faults of one role, summed over its processes."""

    def __init__(self, ticks: int = 0, faults: int = 0) -> None:
        self.ticks = ticks
        self.faults = faults

    def per_run(self, runs: int) -> dict[str, float]:
        return {
            "cpu_ms": round(self.ticks / _TICKS / runs * 1e3, 3),
            "faults": round(self.faults / runs, 1),
        }


def fork_floor(runs: int) -> tuple[float, dict[str, RoleCost]]:
    """Forks/s of the do-nothing loops, and what the forking and the forked processes cost."""
    per_worker = runs // WORKERS
    loops = [
        subprocess.Popen(
            [sys.executable, "-s", "-B", "-c", _FORK_FLOOR, str(per_worker), *DEFAULT_PRELOAD],
            stdout=subprocess.PIPE,
            text=True,
            cwd="/",
        )
        for _ in range(WORKERS)
    ]
    reports = [loop.communicate(timeout=300)[0].splitlines() for loop in loops]
    elapsed = max(float(report[0]) for report in reports)
    parent, child = RoleCost(), RoleCost()
    for _, before_text, after_text in reports:
        before, after = _parse_stat(before_text), _parse_stat(after_text)
        parent.ticks += after[0] - before[0]
        parent.faults += after[1] - before[1]
        child.ticks += after[2] - before[2]
        child.faults += after[3] - before[3]
    return per_worker * WORKERS / elapsed, {"forking process": parent, "forked child": child}


def _parse_stat(text: str) -> tuple[int, int, int, int]:
    """From a /proc/PID/stat line: (own CPU ticks, own minor faults, reaped children's
    CPU ticks, their minor faults)."""
    fields = text.rsplit(")", 1)[1].split()  # the command name may hold spaces
    return (
        int(fields[11]) + int(fields[12]),
        int(fields[7]),
        int(fields[13]) + int(fields[14]),
        int(fields[8]),
    )


def _proc_usage(pid: int) -> tuple[int, int, int, int]:
    """:func:`_parse_stat` of a live process."""
    with open(f"/proc/{pid}/stat") as handle:
        return _parse_stat(handle.read())


def _children(pid: int) -> list[int]:
    with open(f"/proc/{pid}/task/{pid}/children") as handle:
        return [int(child) for child in handle.read().split()]


def _engine_processes(in_pid_namespace: bool) -> dict[str, list[int]]:
    """This process's fork servers and their zygotes, found through /proc.

    With the PID-namespace layer, the process the host started only waits: the server is
    its one child (pid 1 of the namespace), and the zygote the server's first child.
    """
    me = os.getpid()
    servers = []
    for task in os.listdir(f"/proc/{me}/task"):
        with open(f"/proc/{me}/task/{task}/children") as handle:
            for pid in handle.read().split():
                with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                    if b"execlens.engine._server" in cmdline.read():
                        servers.extend(_children(int(pid))[:1] if in_pid_namespace else [int(pid)])
    zygotes = []
    for server in servers:
        zygotes.extend(_children(server)[:1])
    return {"servers": servers, "zygotes": zygotes}


def engine_costs(engine: Engine, runs: int) -> dict[str, RoleCost]:
    """Run ``runs`` one-job children and account each role's CPU and page faults.

    Children are counted through their zygote (its reaped-children totals), the host
    through this process.  Linux's per-process accounting, so noisy neighbours on the
    machine do not enter these figures the way they enter runs/s.
    """
    jobs = [Job(PROGRAM, call=f"f({i})") for i in range(runs)]
    processes = _engine_processes(engine.isolation_report().active("pid_namespace"))
    before = {pid: _proc_usage(pid) for pids in processes.values() for pid in pids}
    host_before = _proc_usage(os.getpid())
    outcomes = list(engine.map(jobs, batch_size=1))
    assert all(o.ok for o in outcomes)
    host_after = _proc_usage(os.getpid())
    costs = {
        "host": RoleCost(host_after[0] - host_before[0], host_after[1] - host_before[1]),
        "servers": RoleCost(),
        "zygotes": RoleCost(),
        "children": RoleCost(),
    }
    for role, pids in processes.items():
        for pid in pids:
            after = _proc_usage(pid)
            costs[role].ticks += after[0] - before[pid][0]
            costs[role].faults += after[1] - before[pid][1]
            if role == "zygotes":
                costs["children"].ticks += after[2] - before[pid][2]
                costs["children"].faults += after[3] - before[pid][3]
    return costs


def engine_rate(engine: Engine, runs: int, batch_size: int) -> float:
    jobs = [Job(PROGRAM, call=f"f({i})", **ONE_ORIGIN) for i in range(runs)]
    list(engine.map(jobs[:50], batch_size=batch_size))  # warm up
    start = time.perf_counter()
    outcomes = list(engine.map(jobs, batch_size=batch_size))
    elapsed = time.perf_counter() - start
    bad = [o for o in outcomes if not o.ok]
    assert not bad, bad[:3]
    assert outcomes[-1].decoded() == (runs - 1) * 2
    return runs / elapsed


def compare_views(runs: int, rounds: int = 3) -> dict[str, float]:
    """One job per child, minimal root vs the host view: alternating rounds, best of each
    (both ``isolation="auto"``: ``full`` refuses the host view; every other layer is the
    same)."""
    best = {"minimal": 0.0, "host": 0.0}
    for _ in range(rounds):
        for view in ("minimal", "host"):
            with Engine(workers=WORKERS, isolation="auto", filesystem=view) as engine:
                best[view] = max(best[view], engine_rate(engine, runs, 1))
    return {
        "engine_one_per_child_minimal_root": best["minimal"],
        "engine_one_per_child_host_view": best["host"],
    }


def main() -> None:
    """Run every method and print the comparison."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print a JSON line at the end")
    parser.add_argument(
        "--scale", type=float, default=small(1.0, 0.01), help="multiply every run count"
    )
    parser.add_argument(
        "--program-python",
        default=None,
        metavar="PATH",
        help="also measure one job per child with programs under this "
        "interpreter (e.g. .venv-programs/bin/python)",
    )
    parser.add_argument(
        "--compare-host-view",
        action="store_true",
        help="also time one job per child under the read-only host view the "
        "minimal root replaced, in alternating rounds",
    )
    args = parser.parse_args()
    n = lambda base: max(small(20, 4), int(base * args.scale))  # noqa: E731

    figures: dict[str, float] = {}
    figures["in_process_exec"] = in_process(n(200_000))
    figures["subprocess_per_run"] = _threaded(n(200), _subprocess_one)
    figures["subprocess_numpy_prefix_per_run"] = _threaded(
        n(40), functools.partial(_subprocess_one, prefix=CODEIO_STYLE_PREFIX)
    )
    figures["process_manager_per_run"] = _threaded(n(200), _manager_one)
    figures["process_pipe_per_run"] = _threaded(n(600), _pipe_one)
    floor_runs = n(4000)
    figures["fork_exit_floor"], floor_costs = fork_floor(floor_runs)
    cost_runs = n(2000)
    with Engine(workers=WORKERS, isolation="full") as engine:
        layers = [layer.name for layer in engine.isolation_report().layers if layer.active]
        figures["engine_one_per_child"] = engine_rate(engine, n(3000), 1)
        figures["engine_16_per_child"] = engine_rate(engine, n(20_000), 16)
        engine_cost = engine_costs(engine, cost_runs)
    if args.program_python:
        with Engine(workers=WORKERS, isolation="full", python=args.program_python) as engine:
            figures["engine_one_per_child_program_python"] = engine_rate(engine, n(3000), 1)
    if args.compare_host_view:
        figures.update(compare_views(n(3000)))
    per_run = {
        "engine_one_per_child": {
            role: cost.per_run(cost_runs) for role, cost in engine_cost.items()
        },
        "fork_exit_floor": {role: cost.per_run(floor_runs) for role, cost in floor_costs.items()},
    }

    one = figures["engine_one_per_child"]
    ratios = {
        "one_per_child_vs_process_manager": one / figures["process_manager_per_run"],
        "one_per_child_vs_process_pipe": one / figures["process_pipe_per_run"],
        "one_per_child_vs_subprocess": one / figures["subprocess_per_run"],
        "one_per_child_vs_subprocess_numpy_prefix": one
        / figures["subprocess_numpy_prefix_per_run"],
        "batched_vs_process_pipe": figures["engine_16_per_child"] / figures["process_pipe_per_run"],
    }
    if "engine_one_per_child_host_view" in figures:
        ratios["minimal_root_vs_host_view"] = (
            figures["engine_one_per_child_minimal_root"] / figures["engine_one_per_child_host_view"]
        )
    if "engine_one_per_child_program_python" in figures:
        ratios["program_python_vs_host_python"] = (
            figures["engine_one_per_child_program_python"] / one
        )
    targets = {
        "one_per_child_vs_process_manager": 5.0,
        "one_per_child_vs_process_pipe": 1.5,
        "one_per_child_vs_subprocess": 10.0,
    }
    print(f"workers: {WORKERS}; engine isolation layers active: {', '.join(layers)}")
    print(f"{'method':<32}{'runs/s':>12}")
    for name, rate in figures.items():
        print(f"{name:<32}{rate:>12,.0f}")
    print()
    for name, ratio in ratios.items():
        target = targets.get(name)
        verdict = (
            ""
            if target is None
            else (f"  (target ≥ {target:.1f}×: {'met' if ratio >= target else 'MISSED'})")
        )
        print(f"{name:<40}{ratio:>8.1f}×{verdict}")
    needed = 10 * figures["subprocess_per_run"]
    print(
        f"(10× the bare subprocess row needs {needed:,.0f} runs/s with a fresh process per run;"
        f" fork + exit alone, doing nothing, reaches {figures['fork_exit_floor']:,.0f} runs/s;"
        f" the engine gets {one / figures['fork_exit_floor']:.0%} of that)"
    )
    batched_target = figures["engine_16_per_child"] >= 5000
    print(f"{'engine_16_per_child ≥ 5,000 runs/s':<40}{'met' if batched_target else 'MISSED':>9}")
    print()
    print("where one run's CPU goes (ms and minor page faults per run, all processes):")
    print(f"{'':<36}{'CPU ms':>9}{'faults':>9}")
    for shape, roles in per_run.items():
        total_cpu = sum(role["cpu_ms"] for role in roles.values())
        for role, cost in roles.items():
            print(f"  {shape + ': ' + role:<34}{cost['cpu_ms']:>9.3f}{cost['faults']:>9.0f}")
        print(f"  {shape + ': total':<34}{total_cpu:>9.3f}")
    if args.json:
        print(
            json.dumps(
                {
                    "runs_per_s": figures,
                    "ratios": ratios,
                    "workers": WORKERS,
                    "layers": layers,
                    "per_run_cost": per_run,
                }
            )
        )


if __name__ == "__main__":
    main()
