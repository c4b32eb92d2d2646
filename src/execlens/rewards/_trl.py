"""TRL ``GRPOTrainer`` reward functions over :func:`~execlens.rewards.score_batch`.

TRL (``trl/trainer/grpo_trainer.py``, 1.16) calls each reward function with keywords:
``prompts``, ``completions`` (strings, or lists of ``{"role", "content"}`` messages),
``completion_ids``, every other dataset column as a list with one entry per completion,
``trainer_state``, ``log_extra(column, values)`` and ``log_metric(name, value)``.  It
expects one float or ``None`` (not applicable) per completion, names the function by its
``__name__`` (``rewards/<name>/mean``) and gathers ``async`` ones concurrently.

These are thin: they read the ground-truth column, score, shape, and log per-label
counts; all judging is :func:`~execlens.rewards.score_batch`'s.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from execlens.rewards._core import _as_text, score_batch
from execlens.rewards._extract import select_answer_text
from execlens.rewards._format import well_formed
from execlens.rewards._shaping import Shaping
from execlens.rewards._task import RewardTask, RewardTaskError

if TYPE_CHECKING:
    from execlens.engine import Engine
    from execlens.judge import Verdict

__all__ = [
    "AsyncExeclensReward",
    "ExeclensFormatReward",
    "ExeclensReward",
    "execlens_format_reward",
    "execlens_reward",
    "execlens_reward_async",
]

GROUND_TRUTH_COLUMN = "ground_truth"


def _ground_truths(kwargs: dict[str, Any], column: str, count: int) -> list[Any]:
    if column not in kwargs:
        raise KeyError(f"the dataset has no {column!r} column: export it with "
                       f"`execlens export` (columns here: {sorted(kwargs)})")
    values = list(kwargs[column])
    if len(values) != count:
        raise ValueError(f"{len(values)} ground truths for {count} completions")
    return values


class ExeclensReward:
    """The execution-verified correctness reward, as TRL calls it (synchronous).

    ``shaping`` maps verdicts to rewards; ``column`` names the ground-truth column;
    ``name`` is what TRL logs it as; ``engine`` pins an engine (default: the process's
    shared judging engine); ``answer_format`` says where the answer is (``tagged``, or
    ``first_line`` for direct prompts).  Rows whose ground truth is ``None`` get ``None``.
    """

    def __init__(self, *, shaping: Shaping | None = None, column: str = GROUND_TRUTH_COLUMN,
                 name: str = "execlens_reward", engine: Engine | None = None,
                 log: bool = True, answer_format: str = "tagged") -> None:
        select_answer_text("", answer_format)  # an unknown format fails here, not mid-run
        self.answer_format = answer_format
        self.shaping = shaping or Shaping()
        self.column = column
        self.__name__ = name
        self.engine = engine
        self.log = log

    def verdicts(self, completions: Sequence[Any], ground_truths: Sequence[Any]
                 ) -> list[Verdict | None]:
        """The verdicts of the rows that have a ground truth (``None`` for the others)."""
        rows = [i for i, truth in enumerate(ground_truths) if truth is not None]
        texts: list[Any] = [completions[i] for i in rows]
        if self.answer_format != "tagged":
            texts = [select_answer_text(_as_text(t), self.answer_format) for t in texts]
        judged = score_batch([ground_truths[i] for i in rows], texts, engine=self.engine)
        out: list[Verdict | None] = [None] * len(completions)
        for index, verdict in zip(rows, judged):
            out[index] = verdict
        return out

    def _log(self, verdicts: Sequence[Verdict | None], ground_truths: Sequence[Any],
             log_extra: Callable[[str, list[Any]], None] | None,
             log_metric: Callable[[str, float], None] | None) -> None:
        if not self.log:
            return
        labels = [v.label if v is not None else "none" for v in verdicts]
        if log_extra is not None:
            log_extra(f"{self.__name__}_verdict", labels)
        if log_metric is not None:
            for label, count in Counter(labels).items():
                log_metric(f"{self.__name__}/{label}", float(count))
            passed: dict[str, list[bool]] = {}
            for verdict, truth in zip(verdicts, ground_truths):
                if verdict is None:
                    continue
                try:
                    kind = RewardTask.from_json(truth).kind
                except RewardTaskError:
                    kind = "invalid"
                passed.setdefault(kind, []).append(verdict.passed)
            for kind, flags in passed.items():
                log_metric(f"{self.__name__}/pass_rate/{kind}", sum(flags) / len(flags))

    def rewards(self, completions: Sequence[Any], ground_truths: Sequence[Any], *,
                log_extra: Callable[[str, list[Any]], None] | None = None,
                log_metric: Callable[[str, float], None] | None = None) -> list[float | None]:
        """Score, log, shape: one reward (or ``None``) per completion."""
        verdicts = self.verdicts(completions, ground_truths)
        self._log(verdicts, ground_truths, log_extra, log_metric)
        return [self.shaping.reward(v) if v is not None else None for v in verdicts]

    def __call__(self, prompts: Sequence[Any], completions: Sequence[Any],
                 completion_ids: Sequence[Any] | None = None, *,
                 log_extra: Callable[[str, list[Any]], None] | None = None,
                 log_metric: Callable[[str, float], None] | None = None,
                 trainer_state: Any = None, **kwargs: Any) -> list[float | None]:
        """TRL's reward-function signature (see the module docstring)."""
        truths = _ground_truths(kwargs, self.column, len(completions))
        return self.rewards(completions, truths, log_extra=log_extra, log_metric=log_metric)


class AsyncExeclensReward(ExeclensReward):
    """:class:`ExeclensReward` as a coroutine: TRL gathers async rewards concurrently, and
    the judging (which waits on the engine) runs in a worker thread."""

    def __init__(self, *, name: str = "execlens_reward_async", **options: Any) -> None:
        super().__init__(name=name, **options)

    async def __call__(self, prompts: Sequence[Any], completions: Sequence[Any],  # type: ignore[override]
                       completion_ids: Sequence[Any] | None = None, *,
                       log_extra: Callable[[str, list[Any]], None] | None = None,
                       log_metric: Callable[[str, float], None] | None = None,
                       trainer_state: Any = None, **kwargs: Any) -> list[float | None]:
        """TRL's reward-function signature, awaited."""
        truths = _ground_truths(kwargs, self.column, len(completions))
        verdicts = await asyncio.to_thread(self.verdicts, completions, truths)
        # Logging touches the trainer's buffers: do it back on the caller's thread.
        self._log(verdicts, truths, log_extra, log_metric)
        return [self.shaping.reward(v) if v is not None else None for v in verdicts]


class ExeclensFormatReward:
    """The optional format reward: ``value`` when the answer is tagged and parses, else
    0.0 (``None`` for rows without ground truth); with ``answer_format="first_line"`` the
    completion's first line must parse instead.  Weigh it with TRL's ``reward_weights``."""

    def __init__(self, *, value: float = 1.0, column: str = GROUND_TRUTH_COLUMN,
                 name: str = "execlens_format_reward", answer_format: str = "tagged") -> None:
        select_answer_text("", answer_format)
        self.answer_format = answer_format
        self.value = value
        self.column = column
        self.__name__ = name

    def __call__(self, prompts: Sequence[Any], completions: Sequence[Any],
                 completion_ids: Sequence[Any] | None = None, **kwargs: Any
                 ) -> list[float | None]:
        """TRL's reward-function signature."""
        truths = _ground_truths(kwargs, self.column, len(completions))
        out: list[float | None] = []
        for completion, truth in zip(completions, truths):
            if truth is None:
                out.append(None)
                continue
            try:
                task = RewardTask.from_json(truth)
            except RewardTaskError:
                out.append(None)
                continue
            formed = well_formed(task, _as_text(completion), answer_format=self.answer_format)
            out.append(self.value if formed else 0.0)
        return out


execlens_reward = ExeclensReward()
execlens_reward_async = AsyncExeclensReward()
execlens_format_reward = ExeclensFormatReward()
