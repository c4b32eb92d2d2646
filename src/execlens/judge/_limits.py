"""Resource limits for judging, shared by both modes so their jobs can share a child."""

from __future__ import annotations

from execlens.engine import Limits

__all__ = ["JUDGE_LIMITS", "OFFICIAL_TIMEOUT"]

# CRUXEval's and LiveCodeBench's scorers give every check 3 s of wall time.
OFFICIAL_TIMEOUT = 3.0

# The official scorers swallow any amount of output and set no memory limit; we keep
# generous bounds instead of none (16 checks run at once here).  ``cpu_time`` is left
# unset: the executor scales it with the number of checks sharing one child, so only the
# per-check wall deadline decides a timeout, as in the official scorers.
JUDGE_LIMITS = Limits(wall_time=OFFICIAL_TIMEOUT, memory_mb=1024, output_bytes=4 * 1024 * 1024)
