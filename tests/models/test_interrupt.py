"""A Ctrl-C during a model run is never lost (``models._interrupt.run_interruptibly``)."""

from __future__ import annotations

import asyncio
import os
import signal
import threading
from collections.abc import Iterator

import pytest

from execlens.models._interrupt import run_interruptibly


@pytest.fixture(autouse=True)
def default_sigint() -> Iterator[None]:
    """Python's own SIGINT handler, as a plain ``execlens`` process has it."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


async def _absorbs_its_cancellation() -> str:
    """Ctrl-C arrives, and the cancellation it becomes is swallowed (as a client's
    cleanup under a cancel scope can): the coroutine then finishes normally."""
    os.kill(os.getpid(), signal.SIGINT)
    try:
        await asyncio.sleep(30)
    except asyncio.CancelledError:
        return "finished anyway"
    return "never interrupted"


def test_an_absorbed_cancellation_still_ends_in_keyboard_interrupt() -> None:
    with pytest.raises(KeyboardInterrupt):
        run_interruptibly(_absorbs_its_cancellation)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_cancellation_that_propagates_is_a_keyboard_interrupt() -> None:
    async def interrupted() -> None:
        os.kill(os.getpid(), signal.SIGINT)
        await asyncio.sleep(30)

    with pytest.raises(KeyboardInterrupt):
        run_interruptibly(interrupted)


def test_without_a_signal_the_result_comes_back_and_the_handler_is_restored() -> None:
    async def answer() -> int:
        await asyncio.sleep(0)
        return 42

    assert run_interruptibly(answer) == 42
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_off_the_main_thread_signals_are_left_alone() -> None:
    results: list[object] = []

    async def answer() -> str:
        return "from a thread"

    worker = threading.Thread(target=lambda: results.append(run_interruptibly(answer)))
    worker.start()
    worker.join(30)
    assert results == ["from a thread"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
