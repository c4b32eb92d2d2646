"""The judging executor: dedupe, one child per sample, probe-then-rerun timeouts."""

from __future__ import annotations

import time

import pytest

from execlens.engine import Engine, Job, Limits, Status
from execlens.judge import Executor

LOOPS = "def f(x):\n    while x:\n        pass\n    return x\n"
SLEEPY = "import time\ndef f(t):\n    time.sleep(t)\n    return t\n"


def test_identical_jobs_run_once(engine: Engine) -> None:
    jobs = [Job(LOOPS, call="f(0)")] * 6 + [Job(LOOPS, call="f(False)")] * 4
    with Executor(engine) as executor:
        [(key, outcomes)] = list(executor.run([("a", jobs)]))
    assert key == "a" and len(outcomes) == 10
    assert [o.decoded() for o in outcomes] == [0] * 6 + [False] * 4
    assert executor.stats.to_dict() == {
        "jobs": 10,
        "unique": 2,
        "batches": 1,
        "probe_timeouts": 0,
        "retries": 0,
    }


def test_probe_timeouts_are_rerun_with_the_real_limit(engine: Engine) -> None:
    limits = Limits(wall_time=2.0)
    jobs = [
        Job(SLEEPY, call="f(0.4)", limits=limits),
        Job(SLEEPY, call="f(0)", limits=limits),
        Job(LOOPS, call="f(1)", limits=limits),
    ]
    with Executor(engine, probe=0.1) as executor:
        [(_, outcomes)] = list(executor.run([("a", jobs)]))
    # The 0.4 s check overran the probe but not its 2 s limit: it passes, as it would
    # have without a probe.  The loop overran both.
    assert [o.status for o in outcomes] == [Status.OK, Status.OK, Status.TIMEOUT]
    assert outcomes[0].decoded() == 0.4
    assert executor.stats.probe_timeouts == 2


def test_without_a_probe_jobs_keep_their_limits(engine: Engine) -> None:
    executor = Executor(engine, probe=None)
    jobs = [Job(SLEEPY, call="f(0.3)", limits=Limits(wall_time=1.0))]
    [(_, [outcome])] = list(executor.run([("a", jobs)]))
    assert outcome.status is Status.OK and executor.stats.probe_timeouts == 0
    with pytest.raises(ValueError):
        Executor(engine, probe=0)


def test_timeouts_overlap_and_items_finish_out_of_order() -> None:
    limits = Limits(wall_time=1.0)
    slow = [Job(LOOPS, call=f"f({i})", limits=limits) for i in range(1, 5)]
    fast = [Job(LOOPS, call="f(0)", limits=limits)]
    with Engine(workers=6) as engine, Executor(engine, probe=0.1) as executor:
        start = time.monotonic()
        order = []
        for key, outcomes in executor.run([("slow", slow), ("fast", fast), ("none", [])]):
            order.append(key)
            if key == "slow":
                assert [o.status for o in outcomes] == [Status.TIMEOUT] * 4
        elapsed = time.monotonic() - start
    assert order.index("fast") < order.index("slow")
    # Four 1 s timeouts of one sample, run one after another, would take over 4 s.
    assert elapsed < 3.5, elapsed
    assert executor.stats.probe_timeouts == 4


def test_a_small_window_still_runs_everything(engine: Engine) -> None:
    executor = Executor(engine, window=2)
    work = [(i, [Job(LOOPS, call=f"f({0 if i % 2 else False})")]) for i in range(12)]
    results = dict(executor.run(work))
    assert sorted(results) == list(range(12))
    assert all(outcomes[0].ok for outcomes in results.values())
