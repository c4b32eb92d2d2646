"""verl's custom reward function over :func:`~execlens.rewards.score_batch`.

verl (0.9: ``verl/trainer/ppo/reward.py`` ``get_custom_reward_fn``) loads a function by
``custom_reward_function.path`` + ``name`` and calls it with ``reward_kwargs`` merged in:

* per sample (``naive`` manager, the reward loop): ``compute_score(data_source=...,
  solution_str=..., ground_truth=..., extra_info=...)`` -> a float, or a dict holding
  ``"score"`` whose other keys become ``reward_extra_info``;
* per batch (``batch`` manager): ``compute_score(data_sources=..., solution_strs=...,
  ground_truths=..., extra_infos=...)`` -> a list of those.

:func:`compute_score` answers both (by which keywords arrive), so one ``name`` serves
either manager; :func:`compute_score_async` is the coroutine form.  ``ground_truth`` is
the JSON string ``execlens export`` writes into ``reward_model.ground_truth``.  Point
verl at it with ``custom_reward_function.path=pkg://execlens.rewards.verl_reward``
(or the file path of that module) and ``name=compute_score``.

``solution_str`` is the decoded response, thought included: a ``<think>`` block (or
harmony's analysis channel) is set apart and only the final part is scored; a response
that never closes its thought earns the minimum.  ``reward_kwargs`` may add
``max_response_chars`` and ``length_penalty``: a response longer than that many characters
has ``length_penalty`` subtracted from its score (off by default; verl passes no finish
reason, so the length of the text is the signal).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from execlens.rewards._core import score_batch
from execlens.rewards._shaping import Shaping

__all__ = ["compute_score", "compute_score_async"]


def _shaping(shaping: str | Shaping | None) -> Shaping:
    if shaping is None:
        return Shaping()
    return shaping if isinstance(shaping, Shaping) else Shaping.named(shaping)


def _results(
    ground_truths: Sequence[Any],
    solution_strs: Sequence[str],
    shaping: Shaping,
    max_response_chars: int | None = None,
    length_penalty: float = 0.0,
) -> list[dict[str, Any]]:
    verdicts = score_batch(list(ground_truths), list(solution_strs))
    out = []
    for verdict, text in zip(verdicts, solution_strs):
        reward = shaping.reward(verdict)
        # verl needs a number for every response: not-applicable scores 0.0 here.
        value = float(reward) if reward is not None else 0.0
        if max_response_chars is not None and len(text or "") > max_response_chars:
            value -= length_penalty
        acc = 1.0 if verdict.passed else 0.0
        # Every row has the same keys (verl gathers reward_extra_info per key): a full
        # trace's step credit, else the pass/fail itself.
        credit = verdict.data.get("step_credit", acc)
        out.append(
            {
                "score": value,
                "acc": acc,
                "verdict": verdict.label,
                "step_credit": float(credit) if isinstance(credit, (int, float)) else acc,
            }
        )
    return out


def compute_score(
    data_source: str | None = None,
    solution_str: str | None = None,
    ground_truth: str | None = None,
    extra_info: dict[str, Any] | None = None,
    *,
    data_sources: Sequence[str] | None = None,
    solution_strs: Sequence[str] | None = None,
    ground_truths: Sequence[str] | None = None,
    extra_infos: Sequence[Any] | None = None,
    shaping: str | Shaping | None = None,
    max_response_chars: int | None = None,
    length_penalty: float = 0.0,
    **kwargs: Any,
) -> dict[str, Any] | list[dict[str, Any]]:
    """verl's reward function: one sample (singular keywords) -> ``{"score", "acc",
    "verdict"}``, or a batch (plural keywords) -> a list of them.

    ``shaping`` (a ``reward_kwargs`` entry): ``binary`` (default) or ``absolute_zero``;
    ``max_response_chars`` + ``length_penalty``: the optional length penalty (see the
    module docstring).
    """
    shape = _shaping(shaping)
    if solution_strs is not None or ground_truths is not None:
        if solution_strs is None or ground_truths is None:
            raise TypeError("batch scoring needs both solution_strs and ground_truths")
        if len(solution_strs) != len(ground_truths):
            raise ValueError(
                f"{len(solution_strs)} responses for {len(ground_truths)} ground truths"
            )
        return _results(
            ground_truths,
            solution_strs,
            shape,
            max_response_chars=max_response_chars,
            length_penalty=length_penalty,
        )
    if solution_str is None or ground_truth is None:
        raise TypeError(
            "compute_score needs solution_str and ground_truth (or the batch "
            "keywords solution_strs and ground_truths)"
        )
    return _results(
        [ground_truth],
        [solution_str],
        shape,
        max_response_chars=max_response_chars,
        length_penalty=length_penalty,
    )[0]


async def compute_score_async(
    data_source: str | None = None,
    solution_str: str | None = None,
    ground_truth: str | None = None,
    extra_info: dict[str, Any] | None = None,
    **kwargs: Any,
) -> dict[str, Any] | list[dict[str, Any]]:
    """:func:`compute_score` as a coroutine (the judging runs in a worker thread)."""
    return await asyncio.to_thread(
        compute_score, data_source, solution_str, ground_truth, extra_info, **kwargs
    )
