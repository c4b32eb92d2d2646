"""Run a coroutine to completion so that Ctrl-C is never lost.

``asyncio.run`` turns the first SIGINT into a cancellation of its main task and raises
``KeyboardInterrupt`` only if that task then ends *cancelled*.  Code below us may absorb
a cancellation and finish normally (an HTTP client's cleanup under a cancel scope can),
and then the run simply goes on: a user's Ctrl-C is ignored and the command ends as if
nothing happened.  Here a SIGINT seen during the run always ends in ``KeyboardInterrupt``
once the loop is back, whatever the task did with its cancellation.
"""

from __future__ import annotations

import asyncio
import signal
import threading
from collections.abc import Callable, Coroutine
from types import FrameType
from typing import Any, TypeVar

__all__ = ["run_interruptibly"]

T = TypeVar("T")


def run_interruptibly(make: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """``asyncio.run(make())``, except that a SIGINT during the run always raises
    ``KeyboardInterrupt`` afterwards (a second SIGINT raises at once, as asyncio's does).

    Off the main thread, or where SIGINT already has a handler other than Python's
    default, signals are not ours to take: plain ``asyncio.run``.
    """
    if (
        threading.current_thread() is not threading.main_thread()
        or signal.getsignal(signal.SIGINT) is not signal.default_int_handler
    ):
        return asyncio.run(make())
    hits = 0
    with asyncio.Runner() as runner:
        loop = runner.get_loop()
        task = loop.create_task(make())

        def on_sigint(signum: int, frame: FrameType | None) -> None:
            nonlocal hits
            hits += 1
            if hits == 1 and not task.done():
                # Cancel from the loop, not from inside the handler: the loop may be
                # anywhere in its own bookkeeping when the signal lands.
                loop.call_soon_threadsafe(task.cancel)
                return
            raise KeyboardInterrupt

        signal.signal(signal.SIGINT, on_sigint)
        try:
            try:
                result = loop.run_until_complete(task)
            except asyncio.CancelledError:
                if hits:
                    raise KeyboardInterrupt from None
                raise
            if hits:  # the cancellation was absorbed below us: the interrupt still counts
                raise KeyboardInterrupt
            return result
        finally:
            signal.signal(signal.SIGINT, signal.default_int_handler)
