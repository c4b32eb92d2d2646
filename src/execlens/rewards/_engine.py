"""One judging engine per process: created on first need, reused, shut down at exit.

Reward functions are called thousands of times per training run; starting fork servers
per call would cost more than the judging.  The engine (and the executor that batches
jobs onto it) is made lazily on the first batch that needs execution -- output-
prediction-only training never starts one -- and closed by ``atexit``.  A forked
process (a dataloader worker) does not inherit a parent's engine: it makes its own.
"""

from __future__ import annotations

import atexit
import json
import logging
import os
import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from execlens.engine import Engine
    from execlens.judge import Executor

__all__ = ["close_shared_engine", "shared_executor"]

logger = logging.getLogger("execlens.rewards")

WORKERS_ENV = "EXECLENS_REWARD_WORKERS"

_lock = threading.Lock()
_state: dict[str, object] = {}


def _workers() -> int | None:
    text = os.environ.get(WORKERS_ENV)
    if not text:
        return None
    try:
        value = int(text)
    except ValueError:
        raise ValueError(f"{WORKERS_ENV} must be an integer, got {text!r}") from None
    if value < 1:
        raise ValueError(f"{WORKERS_ENV} must be at least 1, got {value}")
    return value


def shared_executor() -> Executor:
    """This process's judging executor (and engine), started on first use."""
    with _lock:
        if _state.get("pid") == os.getpid():
            return _state["executor"]  # type: ignore[return-value]
        from execlens.judge import Executor, scoring_engine

        workers = _workers()
        engine: Engine = scoring_engine(workers) if workers else scoring_engine()
        _state.update(pid=os.getpid(), engine=engine, executor=Executor(engine))
        # The training log says what the rewards were judged under (degraded: a warning).
        summary = engine.isolation_report().summary()
        level = logging.WARNING if summary["mode"] == "degraded" else logging.INFO
        logger.log(level, "judging engine isolation: %s", json.dumps(summary, sort_keys=True))
        if not _state.get("registered"):
            atexit.register(close_shared_engine)
            _state["registered"] = True
        return _state["executor"]  # type: ignore[return-value]


def close_shared_engine() -> None:
    """Shut this process's judging engine down (a later batch starts a new one)."""
    with _lock:
        if _state.get("pid") != os.getpid():
            _state.pop("executor", None)
            _state.pop("engine", None)
            return
        executor = _state.pop("executor", None)
        engine = _state.pop("engine", None)
        _state.pop("pid", None)
    if executor is not None:
        executor.close()  # type: ignore[attr-defined]
    if engine is not None:
        engine.close()  # type: ignore[attr-defined]
