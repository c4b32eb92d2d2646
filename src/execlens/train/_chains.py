"""Teacher-chain collection for SFT (CodeReasoner's first phase).

Sample reasoning chains for reward tasks from a teacher model through
``execlens.models`` (any OpenAI-compatible server, or the embedded model), judge each
chain's final answer with :func:`execlens.rewards.score_batch`, and keep the accepted
ones as chat ``messages`` rows for ``execlens train sft``.  Requests go through the
client's content-addressed cache, so a rerun after a kill re-asks nothing answered.

Reasoning teachers: each sample is read with :func:`execlens.rewards.read_completion`
(over :func:`execlens.tasks.prompts.read_response`: its text, the server's separate
reasoning field and its finish reason), the answer is judged in the *final part* only,
and the SFT target keeps the teacher's thought: ``<think>\n{reasoning}\n</think>\n\n{final}``
(:meth:`~execlens.tasks.prompts.ModelResponse.as_target`), or the whole response when the
teacher did not reason.  A rejected sample is counted under a named reason
(``chains.stats.json``'s ``rejected``): the verdict's label, ``truncated_in_reasoning``
(cut off while thinking), ``reasoning_only``, or ``answer_only_in_reasoning`` (the
thought holds an ``[ANSWER]`` but the final part does not).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from execlens.rewards import (
    ANSWER_OPEN,
    Task,
    TaskError,
    read_completion,
    render_messages,
    score_batch,
)
from execlens.store import jsonl_lines
from execlens.train._config import ChainsRunConfig, ConfigError

if TYPE_CHECKING:
    from execlens.models import Asked, TokenBudget
    from execlens.tasks.prompts import ModelResponse

__all__ = ["ChainStats", "collect_chains", "load_tasks", "rejection_reason", "run_chains"]


@dataclass
class ChainStats:
    """Chains sampled and accepted, per task kind; rejections per named reason."""

    sampled: dict[str, int] = field(default_factory=dict)
    accepted: dict[str, int] = field(default_factory=dict)
    failed_requests: int = 0
    rejected: dict[str, int] = field(default_factory=dict)
    asked_again_with_room: int = 0
    """Requests whose chain the token limit cut, asked once more with the thinking budget."""

    def acceptance(self) -> dict[str, float]:
        """Accepted / sampled per kind."""
        return {k: self.accepted.get(k, 0) / n for k, n in self.sampled.items() if n}

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form."""
        return {
            "sampled": dict(self.sampled),
            "accepted": dict(self.accepted),
            "acceptance": self.acceptance(),
            "failed_requests": self.failed_requests,
            "rejected": dict(sorted(self.rejected.items())),
            "asked_again_with_room": self.asked_again_with_room,
        }


def rejection_reason(response: ModelResponse, label: str) -> str:
    """Why a judged sample is not kept: its response's status when it has no final part,
    ``answer_only_in_reasoning`` when only its thought holds an ``[ANSWER]``, else the
    verdict's label."""
    if not response.answerable:
        if response.status.value == "reasoning_only" and ANSWER_OPEN in (response.reasoning or ""):
            return "answer_only_in_reasoning"
        return response.status.value
    if ANSWER_OPEN not in response.final and ANSWER_OPEN in (response.reasoning or ""):
        return "answer_only_in_reasoning"
    return label


def _teacher_budget(client: Any, max_tokens: int, thinking_max_tokens: int | None) -> TokenBudget:
    """The token budget (``models.TokenBudget``) of asking ``client``: the served
    context bounds it unless the client is the embedded model."""
    from execlens.models import TokenBudget, served_context_length

    config = getattr(client, "config", None)
    served = config is not None and config.cache_namespace is None  # not the embedded model
    return TokenBudget(
        max_tokens,
        max(thinking_max_tokens or max_tokens, max_tokens),
        served_context_length(config) if served and config is not None else None,
        fixed=thinking_max_tokens is None,
    )


def _ask_teacher(client: Any, requests: list[Any], budget: TokenBudget, progress: bool) -> Asked:
    """Every request asked within ``budget``, the asking shown as it goes when
    ``progress``; the ``ask_within_budget`` result."""
    from execlens._progress import StageProgress
    from execlens.models import ask_within_budget

    with StageProgress(progress) as display:
        asking = display.stage("asking the teacher", len(requests))
        again: list[Any] = []
        done = 0

        def heard(_: int, __: Any) -> None:
            nonlocal done
            done += 1
            asking(done)

        def more(count: int, total: int) -> None:
            if not again:
                again.append(display.stage("asking again with room to think", total))
            again[0](count)

        return ask_within_budget(client, requests, budget, on_response=heard, on_again=more)


def _read_samples(
    tasks: Sequence[Task], responses: Sequence[Any], stats: ChainStats
) -> list[tuple[Task, ModelResponse]]:
    """Each answered sample read with its task (counted as sampled; a failed request
    counted as such and left out)."""
    pairs: list[tuple[Task, ModelResponse]] = []
    for task, response in zip(tasks, responses):
        for completion in response.completions:
            stats.sampled[task.kind] = stats.sampled.get(task.kind, 0) + 1
            if not completion.ok:
                stats.failed_requests += 1
                continue
            message = {"content": completion.text, "reasoning_content": completion.reasoning}
            pairs.append((task, read_completion(message, finish_reason=completion.finish_reason)))
    return pairs


def _accepted_rows(
    pairs: Sequence[tuple[Task, ModelResponse]], verdicts: Sequence[Any], stats: ChainStats
) -> list[str]:
    """The JSONL ``messages`` rows of the accepted samples; each sample counted as
    accepted or under its rejection reason."""
    lines = []
    for (task, response), verdict in zip(pairs, verdicts):
        if not verdict.passed:
            reason = rejection_reason(response, verdict.label)
            stats.rejected[reason] = stats.rejected.get(reason, 0) + 1
            continue
        stats.accepted[task.kind] = stats.accepted.get(task.kind, 0) + 1
        target = response.as_target()
        messages = render_messages(task) + [{"role": "assistant", "content": target}]
        lines.append(
            json.dumps(
                {"messages": messages, "kind": task.kind, "task_id": task.id}, ensure_ascii=False
            )
        )
    return lines


def collect_chains(
    tasks: Sequence[Task],
    client: Any,
    out: str | Path,
    *,
    samples: int = 4,
    temperature: float = 0.7,
    max_tokens: int = 1024,
    seed: int = 0,
    thinking_max_tokens: int | None = None,
    progress: bool = False,
) -> ChainStats:
    """Sample ``samples`` chains per task from ``client`` (an ``execlens.models``
    client), keep the accepted ones in ``out`` (JSONL ``messages`` rows, written
    atomically) and return the counts; ``out``'s sibling ``chains.stats.json`` holds them.

    The budget follows the rule every path that asks a model shares
    (``models.TokenBudget``): ``max_tokens`` first, and a chain the limit cut asked once
    more with ``thinking_max_tokens`` (``None``: never), within the server's context.
    ``progress`` shows the asking as it goes (a bar on a terminal, lines when piped).
    """
    from execlens.models import GenerationRequest, SamplingParams
    from execlens.store import write_json_atomic, write_text_atomic

    params = SamplingParams(n=samples, temperature=temperature, max_tokens=max_tokens, seed=seed)
    requests = [
        GenerationRequest.chat(render_messages(t), params=params, id=str(i))
        for i, t in enumerate(tasks)
    ]
    budget = _teacher_budget(client, max_tokens, thinking_max_tokens)
    asked = _ask_teacher(client, requests, budget, progress)
    stats = ChainStats(asked_again_with_room=asked.asked_again)
    pairs = _read_samples(tasks, asked.responses, stats)
    # Judged on the final part only (score_batch takes the read responses as they are).
    verdicts = score_batch([t for t, _ in pairs], [r for _, r in pairs])
    lines = _accepted_rows(pairs, verdicts, stats)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(out, "".join(line + "\n" for line in lines))
    write_json_atomic(out.with_name("chains.stats.json"), stats.to_dict())
    return stats


def _ground_truths(path: Path) -> list[Any]:
    """The ``ground_truth`` column of a Parquet / JSONL file -- read without ``datasets``
    (collecting chains needs no training stack, and its progress bars would spoil the
    CLI's one-line errors)."""
    if path.suffix == ".parquet":
        import pyarrow.parquet as pq

        table = pq.read_table(path)
        if "ground_truth" not in table.column_names:
            raise ConfigError(
                f"training data {path} lacks column(s) ['ground_truth'] (has {table.column_names})"
            )
        return table.column("ground_truth").to_pylist()
    if path.suffix not in (".jsonl", ".json"):
        raise ConfigError(f"training data {path}: use .parquet or .jsonl")
    values = []
    for line in jsonl_lines(path, objects=False):
        error = line.error
        if error is not None and error.problem == "undecodable":
            raise ConfigError(
                f"training data {path}: line {line.number} is not UTF-8 text "
                f"(byte {error.offset}); write the tasks with `execlens export`"
            )
        if error is not None:
            raise ConfigError(f"training data {path}: line {line.number} is not JSON")
        if not isinstance(line.value, dict) or "ground_truth" not in line.value:
            raise ConfigError(
                f"training data {path}: line {line.number} lacks column(s) "
                f"['ground_truth']; write the tasks with `execlens export`"
            )
        values.append(line.value["ground_truth"])
    return values


def load_tasks(data: str, *, max_samples: int | None = None) -> list[Task]:
    """The reward tasks of an ``execlens export`` dataset (its ``ground_truth`` column),
    first ``max_samples``; a malformed row is a :class:`ConfigError` naming it."""
    from execlens.train._data import resolve_data_path

    truths = _ground_truths(resolve_data_path(data, "trl.parquet"))[:max_samples]
    tasks = []
    for number, truth in enumerate(truths, 1):
        try:
            tasks.append(Task.from_json(truth))
        except TaskError as exc:
            raise ConfigError(
                f"training data {data}: row {number}'s ground_truth is not a "
                f"reward task ({exc}); write it with `execlens export`"
            ) from None
    if not tasks:
        raise ConfigError(f"training data {data} holds no tasks")
    return tasks


def run_chains(
    config: ChainsRunConfig, *, local_server: Any = None, progress: bool = False
) -> ChainStats:
    """Collect teacher chains as ``config`` says (``execlens train chains CONFIG``):
    ``output_dir/chains.jsonl`` (train on it with ``execlens train sft``) and
    ``output_dir/chains.stats.json``.  ``local_server`` reuses a started embedded-model
    server for ``model: local``; ``progress`` shows the asking."""
    from execlens.models import open_client

    tasks = load_tasks(config.data, max_samples=config.max_samples)
    with open_client(
        config.model, config.base_url, no_cache=config.no_cache, local_server=local_server
    ) as client:
        return collect_chains(
            tasks,
            client,
            Path(config.output_dir) / "chains.jsonl",
            samples=config.samples,
            temperature=config.temperature,
            max_tokens=config.max_tokens,
            seed=config.seed,
            thinking_max_tokens=config.thinking_max_tokens,
            progress=progress,
        )
