"""One judging engine (and judge workers) per process: created on first need, reused,
shut down at exit.

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
    from execlens.judge import Executor, JudgePool

__all__ = [
    "check_reward_settings",
    "close_shared_engine",
    "shared_executor",
    "shared_judges",
]

logger = logging.getLogger("execlens.rewards")

WORKERS_ENV = "EXECLENS_REWARD_WORKERS"

_lock = threading.Lock()
_state: dict[str, object] = {}


def _workers() -> int | None:
    from execlens.judge import int_env

    return int_env(WORKERS_ENV, 1)


def check_reward_settings() -> None:
    """Read the rewards' environment settings now (``EXECLENS_REWARD_WORKERS``,
    ``EXECLENS_JUDGE_WORKERS``, ``EXECLENS_JUDGE_MIN_BATCH``): a bad value raises
    :class:`execlens.judge.EnvSettingError` before training starts, not at its first
    reward."""
    from execlens.judge import check_judge_settings

    _workers()
    check_judge_settings()


def shared_judges(batch: int) -> JudgePool | None:
    """This process's judge workers for a batch of ``batch`` completions (started on
    first need, closed at exit), or None where the batch is judged here: workers off,
    or a batch under ``EXECLENS_JUDGE_MIN_BATCH`` (default 16).

    The workers share the judging engine's size (``EXECLENS_REWARD_WORKERS``, else the
    judge's default): each makes its own engine of an equal part of it, on first need.
    """
    from execlens.judge import JUDGES_ENV, SCORING_WORKERS, JudgePool, judges_for

    total = _workers() or SCORING_WORKERS
    count = judges_for(batch, total)
    if count == 0:
        return None
    with _lock:
        pool = _state.get("judges")
        if pool is not None and _state.get("judges_pid") == os.getpid():
            return pool  # type: ignore[return-value]
        share = max(1, -(-total // count))
        judges = JudgePool(count, env={WORKERS_ENV: str(share), JUDGES_ENV: "0"})
        _state.update(judges=judges, judges_pid=os.getpid())
        if not _state.get("registered"):
            atexit.register(close_shared_engine)
            _state["registered"] = True
        return judges


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
        judges = _state.pop("judges", None)
        if _state.pop("judges_pid", None) == os.getpid() and judges is not None:
            judges.close()  # type: ignore[attr-defined]
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
