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

__all__ = ["close_shared_engine", "judge_worker_count", "shared_executor", "shared_judges"]

logger = logging.getLogger("execlens.rewards")

WORKERS_ENV = "EXECLENS_REWARD_WORKERS"
JUDGES_ENV = "EXECLENS_JUDGE_WORKERS"
MIN_BATCH_ENV = "EXECLENS_JUDGE_MIN_BATCH"
#: Below this many completions a batch is judged in this process (a round trip to the
#: workers would cost more than it saves).
MIN_BATCH = 16
#: One judge worker per this many cores by default (a worker judges ~10k completions/s:
#: about what 8 cores of engine children return).
CORES_PER_JUDGE = 8

_lock = threading.Lock()
_state: dict[str, object] = {}


def _int_env(name: str, least: int) -> int | None:
    text = os.environ.get(name)
    if not text:
        return None
    try:
        value = int(text)
    except ValueError:
        raise ValueError(f"{name} must be an integer, got {text!r}") from None
    if value < least:
        raise ValueError(f"{name} must be at least {least}, got {value}")
    return value


def _workers() -> int | None:
    return _int_env(WORKERS_ENV, 1)


def judge_worker_count() -> int:
    """How many judge workers this process uses: ``EXECLENS_JUDGE_WORKERS`` (0: none,
    judge in this process), else one per :data:`CORES_PER_JUDGE` cores -- none under
    that many: there the host's core is not the ceiling, and a worker would compete with
    the engine's children for the few cores (6-12 % slower end to end on two)."""
    configured = _int_env(JUDGES_ENV, 0)
    if configured is not None:
        return configured
    return (os.cpu_count() or 1) // CORES_PER_JUDGE


def shared_judges(batch: int) -> JudgePool | None:
    """This process's judge workers for a batch of ``batch`` completions (started on
    first need, closed at exit), or None where the batch is judged here: workers off,
    or a batch under ``EXECLENS_JUDGE_MIN_BATCH`` (default :data:`MIN_BATCH`).

    The workers share the judging engine's size (``EXECLENS_REWARD_WORKERS``, else the
    judge's default): each makes its own engine of an equal part of it, on first need.
    """
    least = _int_env(MIN_BATCH_ENV, 1)
    if batch < (least if least is not None else MIN_BATCH):
        return None
    count = judge_worker_count()
    if count == 0:
        return None
    with _lock:
        pool = _state.get("judges")
        if pool is not None and _state.get("judges_pid") == os.getpid():
            return pool  # type: ignore[return-value]
        from execlens.judge import SCORING_WORKERS, JudgePool

        total = _workers() or SCORING_WORKERS
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
