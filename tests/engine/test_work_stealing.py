"""An idle worker takes the inputs a busy server has not started (issue 17: a request of
slow inputs kept one server busy while the others idled, so ``perf/collect.py``'s same
work reached half its compute ceiling)."""

from __future__ import annotations

import time

from execlens.engine import Engine, Job, Status

SLOW = """\
import time

def f(i, seconds):
    time.sleep(seconds)
    return [{tag}, i]
"""


def test_one_request_of_slow_inputs_spreads_over_the_idle_workers() -> None:
    jobs = [
        Job(program=SLOW.format(tag=0), entry_point="f", args=(i, 0.25), origin="f")
        for i in range(8)
    ]
    with Engine(workers=2) as engine:
        engine.run(Job(program="x = 1", call="x"))  # both servers up before timing
        start = time.perf_counter()
        outcomes = list(engine.map(jobs, batch_size=16))  # one request, one child
        elapsed = time.perf_counter() - start
        steals = engine.steals
    assert [o.decoded() for o in outcomes] == [[0, i] for i in range(8)]
    assert steals >= 1
    # 2 s of sleeping in one request; split over two workers, about half of it.
    assert elapsed < 1.75, elapsed


def test_many_requests_of_mixed_speed_each_outcome_is_its_own() -> None:
    jobs = [
        Job(
            program=SLOW.format(tag=program),
            entry_point="f",
            args=(i, 0.03 if (program + i) % 3 == 0 else 0.0),
        )
        for program in range(12)
        for i in range(1 + program % 5)
    ]
    with Engine(workers=2) as engine:
        outcomes = list(engine.map(jobs, batch_size=4))
        again = list(engine.map(jobs, batch_size=16))
    expected = [[int(job.program.split("return [")[1].split(",")[0]), job.args[0]] for job in jobs]
    assert [o.decoded() for o in outcomes] == expected
    assert [o.decoded() for o in again] == expected


def test_a_crash_in_the_part_taken_fails_only_its_input() -> None:
    program = """\
import os, time

def f(i):
    time.sleep(0.1)
    if i == 6:
        os._exit(3)
    return i
"""
    jobs = [Job(program=program, entry_point="f", args=(i,)) for i in range(8)]
    with Engine(workers=2) as engine:
        outcomes = list(engine.map(jobs, batch_size=16))
    assert [o.status for o in outcomes] == [Status.OK] * 6 + [Status.CRASHED, Status.OK]
    assert [o.decoded() for o in outcomes if o.ok] == [0, 1, 2, 3, 4, 5, 7]


def test_a_slow_job_first_does_not_hold_the_later_ones_back() -> None:
    # Outcomes come in input order, but the jobs behind a slow one keep being dispatched
    # (their outcomes held): with a window of 4, the 12 quick jobs all finish while the
    # first job still runs.  (Before, the window counted every job not yet yielded, so
    # 3 ran and the other 9 waited for the slow one.)
    clock = "import time\n\ndef f(seconds, tag):\n    time.sleep(seconds)\n    return time.time()\n"
    jobs = [Job(program=clock, entry_point="f", args=(1.5, "slow"))]
    jobs += [Job(program=clock + f"# {i}\n", entry_point="f", args=(0.02, i)) for i in range(12)]
    with Engine(workers=2) as engine:
        outcomes = list(engine.map(jobs, window=4))
    assert all(o.ok for o in outcomes)
    slow_end, quick_ends = outcomes[0].decoded(), [o.decoded() for o in outcomes[1:]]
    assert max(quick_ends) < slow_end


def test_an_idle_worker_does_not_spin_on_a_request_with_nothing_left_to_give() -> None:
    # Two quick inputs, then one slow: when the idle worker asks, every input has
    # started, so the answer is "nothing"; asking again and again would burn the host's
    # CPU (and the busy server's) for the whole second.
    jobs = [
        Job(program=SLOW.format(tag=0), entry_point="f", args=(i, seconds))
        for i, seconds in enumerate((0.0, 0.0, 1.0))
    ]
    with Engine(workers=2) as engine:
        engine.run(Job(program="x = 1", call="x"))
        cpu = time.process_time()
        outcomes = list(engine.map(jobs, batch_size=16))
        cpu = time.process_time() - cpu
    assert [o.decoded() for o in outcomes] == [[0, 0], [0, 1], [0, 2]]
    assert cpu < 0.3, cpu
