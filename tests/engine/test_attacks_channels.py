"""Attacks on the channels between a child and its server (issue 23).

A program shares its process with the code that reports its result, so it can write
frames of its own.  These attacks each once cost the server or other jobs: ``O_NONBLOCK``
on the shared output pipes crashed later jobs of that server; a deeply nested frame
killed the server and lost the results it had; a forged frame delivered millions of
items past the value caps; a program wrote the result of the next input of its batch
before that input ran.  Each test runs the attack against a one-server engine (so that
every job of it meets the same server) and asserts that only the attacker's own input
is affected.

The attacker finds the reporting code's secret the way a program could: in the
reporting module's state (the nonce of the running input).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from execlens.engine import Engine, Job, Limits, Status

pytestmark = pytest.mark.attack

LIMITS = Limits(wall_time=10.0, memory_mb=1024)

# What a program can do to write a frame the server might take for a result: sign it
# with whatever the reporting code signs with (the running input's nonce here; the
# per-job token and input index in the engine before issue 23).
FORGE = """
import json, os, struct, sys

def forge(record, index=None, raw=None):
    report = sys.modules.get("execlens.engine._report")
    if report is not None:
        field, secret, current = "n", report.STATE.nonce, report.STATE.index
    else:
        state = sys.modules["execlens.engine._child"]._State
        field, secret, current = "t", state.token, state.index
    if raw is None:
        frame = dict(record, i=current if index is None else index)
        frame[field] = secret
        raw = json.dumps(frame).encode()
    os.write(199, struct.pack(">I", len(raw)) + raw)
"""


def _job(program: str, call: str, origin: str | None) -> Job:
    """A job of ``origin`` (no origin at all when ``None``: the default)."""
    return Job(program, call=call, **({} if origin is None else {"origin": origin}))


@pytest.fixture
def single() -> Iterator[Engine]:
    """One server: every job of a test runs on it, one after the other."""
    with Engine(workers=1, limits=LIMITS) as engine:
        yield engine


def test_attack_o_nonblock_on_the_output_pipes(single: Engine) -> None:
    nonblock = (
        "import fcntl, os\n"
        "for fd in (1, 2, 199):\n"
        "    fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_NONBLOCK)\n"
    )
    # A result several times a pipe's buffer: a non-blocking pipe refuses most of it.
    big = "def f():\n    print('y' * 20000)\n    return ['x' * 10000] * 100\n"
    first = single.run(Job(nonblock, call="'set'"))
    later = single.run(Job(big, call="f()"))
    # And a program that sets the flag on its own pipes still gets its result out.
    own = single.run(Job(nonblock + big, call="f()"))
    assert first.status is Status.OK
    for outcome in (later, own):
        assert outcome.status is Status.OK, outcome.message
        assert outcome.decoded() == ["x" * 10000] * 100
        assert outcome.stdout.startswith("y" * 20000)
    assert single.restarts == 0


@pytest.mark.parametrize("origin", [None, "one"], ids=["own-children", "one-child"])
def test_attack_a_200_kb_nested_frame(single: Engine, origin: str | None) -> None:
    program = FORGE + (
        "def f(x):\n"
        "    if x == 2:\n"
        "        forge(None, raw=b'[' * 100_000 + b']' * 100_000)\n"
        "        import time\n"
        "        time.sleep(1)\n"
        "    return x * 2\n"
    )
    futures = single.submit_batch([_job(program, f"f({x})", origin) for x in (1, 2, 3)])
    outcomes = [future.result() for future in futures]
    # The frame's child alone is marked; the result read before it and the input after
    # it are kept; the server lives on.
    assert [o.status for o in outcomes] == [Status.OK, Status.CRASHED, Status.OK]
    assert outcomes[0].decoded() == 2 and outcomes[2].decoded() == 6
    assert "result channel" in outcomes[1].message
    assert single.restarts == 0, "a frame killed the server"


def test_attack_a_forged_frame_of_five_million_items(single: Engine) -> None:
    program = FORGE + (
        "forge({'status': 'ok', 'value': {'__type__': 'list', '__value__': [0] * 5_000_000}})\n"
        "os._exit(0)\n"
    )
    outcome = single.run(Job(program))
    assert outcome.status is Status.CRASHED, outcome.status
    assert outcome.value is None
    assert "caps" in outcome.message
    assert single.restarts == 0


@pytest.mark.parametrize("origin", [None, "one"], ids=["own-children", "one-child"])
@pytest.mark.parametrize("exit_after", [False, True], ids=["returns", "exits"])
def test_attack_results_forged_for_the_next_input(
    single: Engine, origin: str | None, exit_after: bool
) -> None:
    # Input 0 writes a result for input 1 (and, when it exits at once, one for itself
    # too, so that nothing contradicts them) before input 1 has run.
    program = FORGE + (
        "def f(x):\n"
        "    if x == 0:\n"
        f"        if {exit_after}:\n"
        "            forge({'status': 'ok', 'value': {'__type__': 'str', '__value__': 'real-0'}})\n"
        "        forge({'status': 'ok', 'value': {'__type__': 'str', '__value__': 'forged'}},\n"
        "              index=1)\n"
        f"        if {exit_after}:\n"
        "            os._exit(0)\n"
        "    return f'real-{x}'\n"
    )
    futures = single.submit_batch([_job(program, f"f({x})", origin) for x in (0, 1, 2)])
    outcomes = [future.result() for future in futures]
    assert outcomes[1].status is Status.OK and outcomes[1].decoded() == "real-1"
    assert outcomes[2].status is Status.OK and outcomes[2].decoded() == "real-2"
    assert outcomes[0].value != outcomes[1].value
    if not exit_after:
        # The input that forged pays: its own result contradicts its forged frame.
        assert outcomes[0].status is Status.CRASHED, outcomes[0]
    # (When it exits at once it may well have reported its own input as it liked: a
    # program decides what its own executions return anyway.)
