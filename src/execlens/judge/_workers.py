"""How many judge workers a process uses, read once from the environment for everyone.

The rewards (``rewards.score_batch``) and the synthesis pipeline's verify stages judge
through a :class:`~execlens.judge.JudgePool` under the same rule, so one setting governs
both:

* ``EXECLENS_JUDGE_WORKERS``: how many worker processes (``0``: judge in the calling
  process).  Default: one per :data:`CORES_PER_JUDGE` cores (and no more than the
  engine has servers to split among them) **where that makes at least
  :data:`LEAST_DEFAULT_JUDGES`, else none** -- so none on a machine under 16 cores.

  Why: the pool moves the judging, it does not shrink it (measured per role on two
  cores: the workers spend what the calling process spent, within a few per cent, and
  the caller keeps ~0.006 ms per item of dealing).  So it pays only where the calling
  process's one core is the ceiling *and* more than one process judges: on the 16-core
  node of issue 25 the host sat at a full core from 8 engine workers on, which two
  workers lift.  One worker is that same one core in another process plus a hand-off
  (the caller waits for it), and under 8 cores the engine's children, not the host,
  are the ceiling: there a worker only takes CPU from them (measured on two cores: 6-17
  % slower end to end with one worker).  ``EXECLENS_JUDGE_WORKERS=1`` still gives one
  (a caller whose own core is busy with other threads may want that).
* ``EXECLENS_JUDGE_MIN_BATCH``: a batch under this many items is judged in the calling
  process (default :data:`JUDGE_MIN_BATCH`): a round trip to the workers costs more than such
  a batch saves.

A value that is not a whole number (or is under its least value) raises
:class:`EnvSettingError`, which names the variable and the fix; the CLI turns it into
exit 2 and one ``error:`` line.  :func:`check_judge_settings` raises it up front, so a
run refuses before it starts rather than at its first batch.
"""

from __future__ import annotations

import os

__all__ = [
    "CORES_PER_JUDGE",
    "JUDGES_ENV",
    "JUDGE_MIN_BATCH",
    "JUDGE_MIN_BATCH_ENV",
    "LEAST_DEFAULT_JUDGES",
    "EnvSettingError",
    "check_judge_settings",
    "int_env",
    "judge_min_batch",
    "judge_worker_count",
    "judges_for",
]

JUDGES_ENV = "EXECLENS_JUDGE_WORKERS"
JUDGE_MIN_BATCH_ENV = "EXECLENS_JUDGE_MIN_BATCH"
#: Below this many items a batch is judged in the calling process.
JUDGE_MIN_BATCH = 16
#: One judge worker per this many cores by default (a worker judges ~10k completions/s:
#: about what 8 cores of engine children return).
CORES_PER_JUDGE = 8
#: Fewer default workers than this are none: one worker judges no faster than the
#: calling process (see the module docstring).
LEAST_DEFAULT_JUDGES = 2


class EnvSettingError(ValueError):
    """An ``EXECLENS_*`` environment variable holds a value execlens cannot use; the
    message names the variable, what it got and the fix."""

    def __init__(self, name: str, text: str, least: int) -> None:
        self.variable = name
        super().__init__(
            f"{name} must be a whole number of at least {least}, got {text!r}: "
            f"set it to such a number (e.g. {name}={least}) or unset it for the default"
        )


def int_env(name: str, least: int) -> int | None:
    """The whole number in environment variable ``name`` (None when unset or empty);
    :class:`EnvSettingError` when it is not one or is under ``least``."""
    text = os.environ.get(name)
    if text is None or not text.strip():
        return None
    try:
        value = int(text)
    except ValueError:
        raise EnvSettingError(name, text, least) from None
    if value < least:
        raise EnvSettingError(name, text, least)
    return value


def judge_worker_count(servers: int | None = None) -> int:
    """How many judge workers this process uses: ``EXECLENS_JUDGE_WORKERS``, else one
    per :data:`CORES_PER_JUDGE` cores and no more than ``servers`` (the engine's size
    the workers split: each needs one), none where that is under
    :data:`LEAST_DEFAULT_JUDGES` (see the module docstring)."""
    configured = int_env(JUDGES_ENV, 0)
    if configured is not None:
        return configured
    default = (os.cpu_count() or 1) // CORES_PER_JUDGE
    if servers is not None:
        default = min(default, servers)
    return default if default >= LEAST_DEFAULT_JUDGES else 0


def judge_min_batch() -> int:
    """The smallest batch sent to judge workers: ``EXECLENS_JUDGE_MIN_BATCH``, else
    :data:`JUDGE_MIN_BATCH`."""
    least = int_env(JUDGE_MIN_BATCH_ENV, 1)
    return JUDGE_MIN_BATCH if least is None else least


def judges_for(batch: int, servers: int | None = None) -> int:
    """How many judge workers a batch of ``batch`` items goes to: 0 (judge it in this
    process) when workers are off or the batch is under :func:`judge_min_batch`;
    ``servers`` as for :func:`judge_worker_count`."""
    if batch < judge_min_batch():
        return 0
    return judge_worker_count(servers)


def check_judge_settings() -> None:
    """Read both settings now, so a bad value refuses a run before its first batch."""
    judge_worker_count()
    judge_min_batch()
