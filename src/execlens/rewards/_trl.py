"""TRL ``GRPOTrainer`` reward functions over :func:`~execlens.rewards.score_batch`.

TRL (``trl/trainer/grpo_trainer.py``, 1.16) calls each reward function with keywords:
``prompts``, ``completions`` (strings, or lists of ``{"role", "content"}`` messages),
``completion_ids``, every other dataset column as a list with one entry per completion,
``trainer_state``, ``log_extra(column, values)`` and ``log_metric(name, value)``.  It
expects one float or ``None`` (not applicable) per completion, names the function by its
``__name__`` (``rewards/<name>/mean``) and gathers ``async`` ones concurrently.

These are thin: they read the ground-truth column, score, shape, and log per-label
counts; all judging is :func:`~execlens.rewards.score_batch`'s.

Reasoning models: a completion's thought (``<think>`` tags, harmony channels, or the
``reasoning_content`` / ``thinking`` key TRL's response parser writes into a
conversational completion) is set apart and only the final part is scored.  TRL passes no
finish reason; give ``max_completion_tokens`` (``GRPOConfig.max_completion_length``) and a
completion whose ``completion_ids`` reach it counts as cut off (``finish_reason ==
"length"``), so that a thought the limit cut is read as one (with ``reasoning="on"``, even
when the chat template opened ``<think>`` in the prompt).

:class:`ExeclensLengthPenalty` is the optional length / truncation penalty (off unless
added to ``reward_funcs``).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from execlens.rewards._core import score_batch
from execlens.rewards._extract import read_completion, select_answer_text
from execlens.rewards._format import well_formed
from execlens.rewards._shaping import Shaping
from execlens.tasks import Task, TaskError

if TYPE_CHECKING:
    from execlens.engine import Engine
    from execlens.judge import Verdict
    from execlens.tasks.prompts import ReasoningMode

__all__ = [
    "AsyncExeclensReward",
    "ExeclensFormatReward",
    "ExeclensLengthPenalty",
    "ExeclensReward",
    "execlens_format_reward",
    "execlens_reward",
    "execlens_reward_async",
]

GROUND_TRUTH_COLUMN = "ground_truth"


def _ground_truths(kwargs: dict[str, Any], column: str, count: int) -> list[Any]:
    if column not in kwargs:
        raise KeyError(
            f"the dataset has no {column!r} column: export it with "
            f"`execlens export` (columns here: {sorted(kwargs)})"
        )
    values = list(kwargs[column])
    if len(values) != count:
        raise ValueError(f"{len(values)} ground truths for {count} completions")
    return values


def _finish_reasons(
    completion_ids: Sequence[Any] | None, count: int, max_completion_tokens: int | None
) -> list[str | None] | None:
    """``"length"`` for the completions whose token ids reached the generation limit."""
    if max_completion_tokens is None or completion_ids is None:
        return None
    if len(completion_ids) != count:
        raise ValueError(f"{len(completion_ids)} completion_ids for {count} completions")
    return [
        "length" if ids is not None and len(ids) >= max_completion_tokens else None
        for ids in completion_ids
    ]


@dataclass(kw_only=True, eq=False)
class _AnswerReward:
    """What the correctness and format rewards share: the ground-truth ``column``, the
    ``name`` TRL logs, where the answer is (``answer_format``), how a thought is read
    (``reasoning``) and the generation limit that marks a completion cut off."""

    column: str = GROUND_TRUTH_COLUMN
    name: str
    answer_format: str = "tagged"
    reasoning: ReasoningMode = "auto"
    max_completion_tokens: int | None = None

    def __post_init__(self) -> None:
        select_answer_text("", self.answer_format)  # an unknown format fails here, not mid-run
        self.__name__ = self.name

    def _finish_reasons(self, completion_ids: Sequence[Any] | None, count: int) -> list[str | None]:
        """Each completion's finish reason as far as TRL's arguments tell it."""
        finish = _finish_reasons(completion_ids, count, self.max_completion_tokens)
        return [None] * count if finish is None else finish


@dataclass(kw_only=True, eq=False)
class ExeclensReward(_AnswerReward):
    """The execution-verified correctness reward, as TRL calls it (synchronous).

    ``shaping`` maps verdicts to rewards; ``column`` names the ground-truth column;
    ``name`` is what TRL logs it as; ``engine`` pins an engine (default: the process's
    shared judging engine); ``answer_format`` says where the answer is (``tagged``, or
    ``first_line`` for direct prompts).  ``reasoning`` is
    :func:`~execlens.tasks.prompts.read_response`'s mode; ``max_completion_tokens`` marks
    completions that reached the generation limit as cut off (see the module docstring).
    Rows whose ground truth is ``None`` get ``None``.
    """

    name: str = "execlens_reward"
    shaping: Shaping = field(default_factory=Shaping)
    engine: Engine | None = None
    log: bool = True

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.engine is None:  # a bad EXECLENS_* worker setting fails here too, named
            from execlens.rewards._engine import check_reward_settings

            check_reward_settings()

    def verdicts(
        self,
        completions: Sequence[Any],
        ground_truths: Sequence[Any],
        completion_ids: Sequence[Any] | None = None,
    ) -> list[Verdict | None]:
        """The verdicts of the rows that have a ground truth (``None`` for the others)."""
        rows = [i for i, truth in enumerate(ground_truths) if truth is not None]
        finish = _finish_reasons(completion_ids, len(completions), self.max_completion_tokens)
        judged = score_batch(
            [ground_truths[i] for i in rows],
            [completions[i] for i in rows],
            engine=self.engine,
            answer_format=self.answer_format,
            reasoning=self.reasoning,
            finish_reasons=None if finish is None else [finish[i] for i in rows],
        )
        out: list[Verdict | None] = [None] * len(completions)
        for index, verdict in zip(rows, judged):
            out[index] = verdict
        return out

    def _logged_rewards(
        self,
        verdicts: Sequence[Verdict | None],
        ground_truths: Sequence[Any],
        log_extra: Callable[[str, list[Any]], None] | None,
        log_metric: Callable[[str, float], None] | None,
    ) -> list[float | None]:
        """Log the verdicts (when ``log``: per-label counts, pass rates per kind) and shape
        them into rewards."""
        if self.log:
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
                        kind = Task.from_json(truth).kind
                    except TaskError:
                        kind = "invalid"
                    passed.setdefault(kind, []).append(verdict.passed)
                for kind, flags in passed.items():
                    log_metric(f"{self.__name__}/pass_rate/{kind}", sum(flags) / len(flags))
        return [self.shaping.reward(v) if v is not None else None for v in verdicts]

    def rewards(
        self,
        completions: Sequence[Any],
        ground_truths: Sequence[Any],
        *,
        completion_ids: Sequence[Any] | None = None,
        log_extra: Callable[[str, list[Any]], None] | None = None,
        log_metric: Callable[[str, float], None] | None = None,
    ) -> list[float | None]:
        """Score, log, shape: one reward (or ``None``) per completion."""
        verdicts = self.verdicts(completions, ground_truths, completion_ids)
        return self._logged_rewards(verdicts, ground_truths, log_extra, log_metric)

    def __call__(
        self,
        prompts: Sequence[Any],
        completions: Sequence[Any],
        completion_ids: Sequence[Any] | None = None,
        **kwargs: Any,
    ) -> list[float | None]:
        """TRL's reward-function signature (see the module docstring): ``kwargs`` holds
        the dataset's columns, ``trainer_state``, ``log_extra`` and ``log_metric``."""
        truths = _ground_truths(kwargs, self.column, len(completions))
        verdicts = self.verdicts(completions, truths, completion_ids)
        return self._logged_rewards(
            verdicts, truths, kwargs.get("log_extra"), kwargs.get("log_metric")
        )


@dataclass(kw_only=True, eq=False)
class AsyncExeclensReward(ExeclensReward):
    """:class:`ExeclensReward` as a coroutine: TRL gathers async rewards concurrently, and
    the judging (which waits on the engine) runs in a worker thread."""

    name: str = "execlens_reward_async"

    async def __call__(  # type: ignore[override]  # TRL awaits a coroutine reward
        self,
        prompts: Sequence[Any],
        completions: Sequence[Any],
        completion_ids: Sequence[Any] | None = None,
        **kwargs: Any,
    ) -> list[float | None]:
        """TRL's reward-function signature, awaited."""
        truths = _ground_truths(kwargs, self.column, len(completions))
        verdicts = await asyncio.to_thread(self.verdicts, completions, truths, completion_ids)
        # Logging touches the trainer's buffers: do it back on the caller's thread.
        return self._logged_rewards(
            verdicts, truths, kwargs.get("log_extra"), kwargs.get("log_metric")
        )


@dataclass(kw_only=True, eq=False)
class ExeclensFormatReward(_AnswerReward):
    """The optional format reward: ``value`` when the final part holds one tagged answer
    that parses, else 0.0 (``None`` for rows without ground truth); with
    ``answer_format="first_line"`` the final part's first line must parse instead.  A
    completion cut off while thinking, or answering only inside its thought, gets 0.0.
    ``reasoning`` and ``max_completion_tokens`` are :class:`ExeclensReward`'s.  Weigh it
    with TRL's ``reward_weights``."""

    name: str = "execlens_format_reward"
    value: float = 1.0

    def __call__(
        self,
        prompts: Sequence[Any],
        completions: Sequence[Any],
        completion_ids: Sequence[Any] | None = None,
        **kwargs: Any,
    ) -> list[float | None]:
        """TRL's reward-function signature."""
        truths = _ground_truths(kwargs, self.column, len(completions))
        finish = self._finish_reasons(completion_ids, len(completions))
        out: list[float | None] = []
        for completion, truth, reason in zip(completions, truths, finish):
            if truth is None:
                out.append(None)
                continue
            try:
                task = Task.from_json(truth)
            except TaskError:
                out.append(None)
                continue
            formed = well_formed(
                task,
                completion,
                answer_format=self.answer_format,
                finish_reason=reason,
                reasoning=self.reasoning,
            )
            out.append(self.value if formed else 0.0)
        return out


class ExeclensLengthPenalty:
    """The optional length / truncation penalty: ``-penalty`` for a completion that was
    cut off or ran long, else 0.0.  Off unless added to ``reward_funcs`` (weigh it with
    ``reward_weights``).

    Cut off: its ``completion_ids`` reached ``max_completion_tokens`` (set it to
    ``GRPOConfig.max_completion_length``: TRL passes no finish reason, and a completion
    that fills the budget is the one the limit cut).  Long: its text -- thought included
    -- is longer than ``max_chars``.  At least one of the two must be given.  A cut-off
    thought already gets the correctness reward's minimum; this adds a cost to running
    into the limit at all, as DAPO's overlong penalty does, so a policy learns to finish.
    """

    def __init__(
        self,
        *,
        penalty: float = 1.0,
        max_completion_tokens: int | None = None,
        max_chars: int | None = None,
        name: str = "execlens_length_penalty",
    ) -> None:
        if max_completion_tokens is None and max_chars is None:
            raise ValueError(
                "a length penalty needs max_completion_tokens (the generation limit) or max_chars"
            )
        self.penalty = penalty
        self.max_completion_tokens = max_completion_tokens
        self.max_chars = max_chars
        self.__name__ = name

    def _chars(self, completion: Any) -> int:
        response = read_completion(completion, reasoning="off")
        return len(response.final) + len(response.reasoning or "")

    def __call__(
        self,
        prompts: Sequence[Any],
        completions: Sequence[Any],
        completion_ids: Sequence[Any] | None = None,
        **kwargs: Any,
    ) -> list[float | None]:
        """TRL's reward-function signature."""
        cut = _finish_reasons(completion_ids, len(completions), self.max_completion_tokens) or [
            None
        ] * len(completions)
        out: list[float | None] = []
        for completion, reason in zip(completions, cut):
            long = self.max_chars is not None and self._chars(completion) > self.max_chars
            out.append(-self.penalty if reason == "length" or long else 0.0)
        return out


execlens_reward = ExeclensReward()
execlens_reward_async = AsyncExeclensReward()
execlens_format_reward = ExeclensFormatReward()
