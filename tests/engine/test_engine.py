"""The engine's behaviour: statuses, calls, batches, ordering, async, recovery."""

from __future__ import annotations

import asyncio
import os
import signal
import time

import pytest

from execlens.engine import (
    Engine,
    Job,
    Limits,
    Outcome,
    Status,
    check_determinism,
)

SQUARE = "def f(x):\n    return x * x\n"


def test_one_of_each_status(engine: Engine) -> None:
    quick = Limits(wall_time=1.0, memory_mb=128, output_bytes=1000)
    jobs = {
        Status.OK: Job(SQUARE, call="f(7)"),
        Status.EXCEPTION: Job(SQUARE, call="f('a')"),
        Status.TIMEOUT: Job("while True:\n    pass\n", limits=quick),
        Status.MEMORY_EXCEEDED: Job("x = bytearray(1 << 30)\n", limits=quick),
        Status.OUTPUT_LIMIT: Job("while True:\n    print('spam')\n", limits=quick),
        Status.CRASHED: Job("import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)\n"),
    }
    outcomes = dict(zip(jobs, engine.map(jobs.values())))
    for expected, outcome in outcomes.items():
        assert outcome.status is expected, (expected, outcome)
    assert outcomes[Status.OK].decoded() == 49
    exc = outcomes[Status.EXCEPTION].exception
    assert exc is not None and exc.type == "TypeError"
    assert exc.traceback[-1].startswith("<program>:2 in f")
    assert outcomes[Status.CRASHED].signal == signal.SIGSEGV


def test_call_statements_entry_points_and_scripts(engine: Engine) -> None:
    assert engine.run(Job(SQUARE, call="assert f(3) == 9")).status is Status.OK
    failed = engine.run(Job(SQUARE, call="assert f(3) == 10"))
    assert failed.status is Status.EXCEPTION and failed.exception.type == "AssertionError"
    by_name = engine.run(
        Job(
            "def g(a, b=0):\n    return [a, b]\n",
            entry_point="g",
            args=((1, 2),),
            kwargs={"b": {3}},
        )
    )
    assert by_name.decoded() == [(1, 2), {3}]
    script = engine.run(Job("print(sum(range(10)))\n"))
    assert script.status is Status.OK and script.stdout == "45\n" and script.decoded() is None


def test_syntax_errors_are_exceptions(engine: Engine) -> None:
    outcome = engine.run(Job("def f(:\n", call="f()"))
    assert outcome.status is Status.EXCEPTION and outcome.exception.type == "SyntaxError"
    bad_call = engine.run(Job(SQUARE, call="f(("))
    assert bad_call.exception is not None and bad_call.exception.type == "SyntaxError"


def test_stdin_and_stderr(engine: Engine) -> None:
    program = "import sys\nn = int(input())\nprint(n * 2)\nprint('warn', file=sys.stderr)\n"
    outcome = engine.run(Job(program, stdin="21\n"))
    assert outcome.stdout == "42\n" and outcome.stderr == "warn\n"
    eof = engine.run(Job(program))
    assert eof.exception is not None and eof.exception.type == "EOFError"


def test_values_cross_as_envelopes(engine: Engine) -> None:
    outcome = engine.run(Job("def f():\n    return {(1, 2): {3.5, float('nan')}}\n", call="f()"))
    assert outcome.value is not None and outcome.value["__type__"] == "dict"
    key, value = outcome.value["__value__"][0]
    assert key["__type__"] == "tuple"
    assert {item["__type__"] for item in value["__value__"]} == {"float"}


def test_map_keeps_order_and_batches_share_children(engine: Engine) -> None:
    jobs = [Job(SQUARE, call=f"f({i})", tag=i) for i in range(100)]
    for batch_size in (1, 16):
        outcomes = list(engine.map(jobs, batch_size=batch_size))
        assert [o.tag for o in outcomes] == list(range(100))
        assert [o.decoded() for o in outcomes] == [i * i for i in range(100)]
    pids = "import os\ndef f():\n    return os.getpid()\n"
    # One server: an idle second one would take part of a batch (work stealing).
    with Engine(workers=1) as single:
        same = single.submit_batch([Job(pids, call="f()", origin="one") for _ in range(4)])
        assert len({f.result().decoded() for f in same}) == 1
        separate = list(
            single.map([Job(pids, call="f()", origin="one") for _ in range(4)], batch_size=1)
        )
        assert len({o.decoded() for o in separate}) == 4
        # Without an origin (or with different ones) jobs never share a process.
        alone = single.submit_batch([Job(pids, call="f()") for _ in range(4)])
        assert len({f.result().decoded() for f in alone}) == 4
        mixed = single.submit_batch([Job(pids, call="f()", origin=n // 2) for n in range(4)])
        assert len({f.result().decoded() for f in mixed}) == 2


def test_batch_inputs_start_fresh_and_failures_cost_one_input(engine: Engine) -> None:
    program = "counter = []\ndef f(x):\n    counter.append(x)\n    return len(counter)\n"
    calls = ["f(1)", "f(2)", "import os; os._exit(3)", "f(4)", "while True: pass", "f(6)"]
    limits = Limits(wall_time=1.0)
    futures = engine.submit_batch(
        [Job(program, call=c, limits=limits, origin="one") for c in calls]
    )
    outcomes = [f.result() for f in futures]
    assert [o.status for o in outcomes] == [
        Status.OK,
        Status.OK,
        Status.CRASHED,
        Status.OK,
        Status.TIMEOUT,
        Status.OK,
    ]
    assert [o.decoded() for o in outcomes if o.ok] == [1, 1, 1, 1]
    assert outcomes[2].exit_code == 3


def test_mixed_batches_are_rejected(engine: Engine) -> None:
    with pytest.raises(ValueError):
        engine.submit_batch([Job(SQUARE, call="f(1)"), Job("x = 1", call="x")])


def test_async_api(engine: Engine) -> None:
    async def main() -> list[Outcome]:
        single = await engine.arun(Job(SQUARE, call="f(5)"))
        many = await engine.amap([Job(SQUARE, call=f"f({i})") for i in range(20)], batch_size=4)
        return [single, *many]

    outcomes = asyncio.run(main())
    assert [o.decoded() for o in outcomes] == [25] + [i * i for i in range(20)]


def test_progress_callback_sees_every_outcome(engine: Engine) -> None:
    seen: list[Outcome] = []
    list(engine.map([Job(SQUARE, call=f"f({i})") for i in range(10)], progress=seen.append))
    assert len(seen) == 10


def test_determinism_check(engine: Engine) -> None:
    stable = check_determinism(engine, Job(SQUARE, call="f(9)"))
    assert stable.deterministic and stable.differences == []
    hash_order = check_determinism(
        engine, Job("def f():\n    return list({'a', 'b', 'c', 'd', 'e', 'f'})\n", call="f()")
    )
    assert not hash_order.deterministic and "value" in hash_order.differences
    randomness = check_determinism(
        engine, Job("import random\ndef f():\n    return random.random()\n", call="f()")
    )
    assert not randomness.deterministic


def test_hash_seed_is_fixed_per_run(engine: Engine) -> None:
    job = Job("def f():\n    return hash('execlens')\n", call="f()")
    first, second = engine.run(job).decoded(), engine.run(job).decoded()
    assert first == second


def test_dead_server_is_replaced_and_in_flight_job_named() -> None:
    with Engine(workers=1) as engine:
        server = engine._pools[engine.hash_seed].servers[0]
        assert server is not None
        slow = engine.submit(Job("import time\ntime.sleep(3)\n"))
        time.sleep(0.5)
        os.kill(server.pid, signal.SIGKILL)
        outcome = slow.result(timeout=30)
        assert outcome.status is Status.SANDBOX_ERROR
        assert "server died" in outcome.message
        after = engine.run(Job(SQUARE, call="f(4)"))
        assert after.decoded() == 16 and engine.restarts == 1


def test_isolation_none_still_limits_time() -> None:
    with Engine(workers=1, isolation="none") as engine:
        report = engine.isolation_report()
        assert not report.active("network")
        outcome = engine.run(Job("while True:\n    pass\n", limits=Limits(wall_time=0.5)))
        assert outcome.status is Status.TIMEOUT


def test_closed_engine_refuses_work() -> None:
    engine = Engine(workers=1)
    engine.close()
    with pytest.raises(Exception, match="closed"):
        engine.run(Job(SQUARE, call="f(1)"))


def test_bad_limits_are_clear_errors() -> None:
    with pytest.raises(ValueError):
        Limits(wall_time=0)
    with pytest.raises(ValueError):
        Job(SQUARE, call="f(1)", entry_point="f")
    with pytest.raises(ValueError):
        Job(SQUARE, args=(1,))


def test_each_child_has_its_own_process_group_and_no_terminal(engine: Engine) -> None:
    program = (
        "import os\n"
        "def f():\n"
        "    try:\n"
        "        os.open('/dev/tty', os.O_RDWR)\n"
        "        tty = 'opened'\n"
        "    except OSError as exc:\n"
        "        tty = type(exc).__name__\n"
        "    return [os.getpid(), os.getpgid(0), os.getsid(0), tty]\n"
    )
    outcomes = list(engine.map([Job(program, call="f()") for _ in range(4)]))
    assert all(o.ok for o in outcomes), outcomes
    seen = [o.decoded() for o in outcomes]
    for pid, pgid, sid, tty in seen:
        assert pgid == pid  # its own group: the server kills the whole group
        assert sid != os.getsid(0) and sid != pid  # out of the host's session, not a leader
        assert tty == "OSError"  # no controlling terminal to read from or inject into
    assert len({pid for pid, *_ in seen}) == 4  # a fresh child each time


def test_compile_warnings_stay_inside_the_sandbox(capfd: pytest.CaptureFixture[str]) -> None:
    """``None(1)`` and ``x is 1`` make ``compile`` warn; the warning must not reach the
    host's stderr (the fork servers share it) — issue 9 item 11."""
    with Engine(workers=1) as own:
        outcome = own.run(Job("x = 1\nsame = x is 1\n", call="None(1)"))
    assert outcome.status is Status.EXCEPTION and outcome.exception is not None
    assert outcome.exception.type == "TypeError"
    assert "SyntaxWarning" not in capfd.readouterr().err
