"""The module verl loads: ``custom_reward_function.path=pkg://execlens.rewards.verl_reward``,
``custom_reward_function.name=compute_score`` (or ``compute_score_async``).

Kept separate from the package ``__init__`` so that verl's loader finds plain functions
(it tells sync from async with ``inspect.iscoroutinefunction``).
"""

from __future__ import annotations

from execlens.rewards._verl import compute_score, compute_score_async

__all__ = ["compute_score", "compute_score_async"]
