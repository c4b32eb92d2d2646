"""A reward batch judged by the judge workers: the caller only deals and gathers.

The caller's work per completion is what cannot be done elsewhere: a dictionary lookup
that keeps the completions of one ground truth together (they share a program, so input
predictions share a forked child in the worker's engine), and the verdict put back in its
place.  Each worker runs :func:`~execlens.rewards.score_local` -- the in-process path
itself -- on its shard, so a verdict is the same whichever process judged it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from execlens.judge import EngineGetter, JudgePool, pack, shard_sizes
from execlens.rewards._core import score_local

if TYPE_CHECKING:
    from execlens.judge import Verdict
    from execlens.tasks import Task
    from execlens.tasks.prompts import ReasoningMode

__all__ = ["score_pooled"]

#: Seconds a completion costs to judge before any is measured (the first call's sizing).
_FIRST_GUESS = 0.0002

_Shard = tuple[list[Any], list[Any], "list[str | None] | None", str, str]


def judge_shard(get_engine: EngineGetter, shard: _Shard) -> tuple[list[Verdict], list[int]]:
    """A worker's part: :func:`score_local` on one shard (its own shared engine).

    Returns the distinct verdicts and, per completion, its verdict's index: most
    verdicts of a batch repeat (``passed``, ``wrong:value`` with the same sentence), and
    the caller unpickles each distinct one once.  Only verdicts without ``data`` are
    shared (they are frozen, and have nothing mutable)."""
    tasks, responses, finish, answer_format, reasoning = shard
    verdicts = score_local(
        tasks,
        responses,
        answer_format=answer_format,
        finish_reasons=finish,
        reasoning=reasoning,  # type: ignore[arg-type]
    )
    table: list[Verdict] = []
    seen: dict[tuple[Any, ...], int] = {}
    order: list[int] = []
    for verdict in verdicts:
        if verdict.data:
            order.append(len(table))
            table.append(verdict)
            continue
        key = (verdict.passed, verdict.status, verdict.reason, verdict.detail)
        found = seen.get(key)
        if found is None:
            found = seen[key] = len(table)
            table.append(verdict)
        order.append(found)
    return table, order


def _key(truth: Any) -> Any:
    # Rows of one ground truth travel together; a string is its own key (its hash is
    # cached), a task its program, anything else its identity.
    if isinstance(truth, str):
        return truth
    program = getattr(truth, "program", None)
    return program if isinstance(program, str) else id(truth)


def score_pooled(
    judges: JudgePool,
    tasks: Sequence[Task | str | dict[str, Any]],
    responses: Sequence[Any],
    answer_format: str,
    finish_reasons: Sequence[str | None] | None,
    reasoning: ReasoningMode,
) -> list[Verdict]:
    """:func:`~execlens.rewards.score_batch` through ``judges`` (same verdicts)."""
    groups: dict[Any, list[int]] = {}
    for index, truth in enumerate(tasks):
        groups.setdefault(_key(truth), []).append(index)
    per_item = judges.per_item or _FIRST_GUESS
    count = shard_sizes([len(g) for g in groups.values()], judges.processes, per_item)
    parts = pack(list(groups.values()), count)
    shards: list[_Shard] = [
        (
            [tasks[i] for i in part],
            [responses[i] for i in part],
            None if finish_reasons is None else [finish_reasons[i] for i in part],
            answer_format,
            reasoning,
        )
        for part in parts
    ]
    verdicts: list[Any] = [None] * len(tasks)
    for part, (table, order) in zip(parts, judges.map(judge_shard, shards, items=len(tasks))):
        for index, which in zip(part, order):
            verdicts[index] = table[which]
    return verdicts
