"""Teacher-chain collection for SFT (CodeReasoner's first phase).

Sample reasoning chains for reward tasks from a teacher model through
``execlens.models`` (any OpenAI-compatible server, or the embedded model), judge each
chain's final answer with :func:`execlens.rewards.score_batch`, and keep the accepted
ones as chat ``messages`` rows for ``execlens train sft``.  Requests go through the
client's content-addressed cache, so a rerun after a kill re-asks nothing answered.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from execlens.rewards import RewardTask, RewardTaskError, render_messages, score_batch
from execlens.train._config import ChainsRunConfig, ConfigError

__all__ = ["ChainStats", "collect_chains", "load_tasks", "run_chains"]


@dataclass
class ChainStats:
    """Chains sampled and accepted, per task kind."""

    sampled: dict[str, int] = field(default_factory=dict)
    accepted: dict[str, int] = field(default_factory=dict)
    failed_requests: int = 0

    def acceptance(self) -> dict[str, float]:
        """Accepted / sampled per kind."""
        return {k: self.accepted.get(k, 0) / n for k, n in self.sampled.items() if n}

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form."""
        return {"sampled": dict(self.sampled), "accepted": dict(self.accepted),
                "acceptance": self.acceptance(), "failed_requests": self.failed_requests}


def collect_chains(tasks: Sequence[RewardTask], client: Any, out: str | Path, *,
                   samples: int = 4, temperature: float = 0.7, max_tokens: int = 1024,
                   seed: int = 0) -> ChainStats:
    """Sample ``samples`` chains per task from ``client`` (an ``execlens.models``
    client), keep the accepted ones in ``out`` (JSONL ``messages`` rows, written
    atomically) and return the counts; ``out``'s sibling ``chains.stats.json`` holds them.
    """
    from execlens.models import GenerationRequest, SamplingParams
    from execlens.store import write_json_atomic, write_text_atomic

    params = SamplingParams(n=samples, temperature=temperature, max_tokens=max_tokens,
                            seed=seed)
    requests = [GenerationRequest.chat(render_messages(t), params=params, id=str(i))
                for i, t in enumerate(tasks)]
    responses = client.generate_sync(requests)
    stats = ChainStats()
    pairs: list[tuple[RewardTask, str]] = []
    for task, response in zip(tasks, responses):
        for text in response.texts:
            stats.sampled[task.kind] = stats.sampled.get(task.kind, 0) + 1
            if text is None:
                stats.failed_requests += 1
                continue
            pairs.append((task, text))
    verdicts = score_batch([t for t, _ in pairs], [c for _, c in pairs])
    lines = []
    for (task, text), verdict in zip(pairs, verdicts):
        if verdict.passed:
            stats.accepted[task.kind] = stats.accepted.get(task.kind, 0) + 1
            messages = render_messages(task) + [{"role": "assistant", "content": text}]
            lines.append(json.dumps({"messages": messages, "kind": task.kind,
                                     "task_id": task.id}, ensure_ascii=False))
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
            raise ConfigError(f"training data {path} lacks column(s) ['ground_truth'] (has "
                              f"{table.column_names})")
        return table.column("ground_truth").to_pylist()
    if path.suffix not in (".jsonl", ".json"):
        raise ConfigError(f"training data {path}: use .parquet or .jsonl")
    values = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            raise ConfigError(f"training data {path}: line {number} is not JSON") from None
        if not isinstance(row, dict) or "ground_truth" not in row:
            raise ConfigError(f"training data {path}: line {number} lacks column(s) "
                              f"['ground_truth']; write the tasks with `execlens export`")
        values.append(row["ground_truth"])
    return values


def load_tasks(data: str, *, max_samples: int | None = None) -> list[RewardTask]:
    """The reward tasks of an ``execlens export`` dataset (its ``ground_truth`` column),
    first ``max_samples``; a malformed row is a :class:`ConfigError` naming it."""
    from execlens.train._data import resolve_data_path

    truths = _ground_truths(resolve_data_path(data, "trl.parquet"))[:max_samples]
    tasks = []
    for number, truth in enumerate(truths, 1):
        try:
            tasks.append(RewardTask.from_json(truth))
        except RewardTaskError as exc:
            raise ConfigError(f"training data {data}: row {number}'s ground_truth is not a "
                              f"reward task ({exc}); write it with `execlens export`") from None
    if not tasks:
        raise ConfigError(f"training data {data} holds no tasks")
    return tasks


def run_chains(config: ChainsRunConfig, *, local_server: Any = None) -> ChainStats:
    """Collect teacher chains as ``config`` says (``execlens train chains CONFIG``):
    ``output_dir/chains.jsonl`` (train on it with ``execlens train sft``) and
    ``output_dir/chains.stats.json``.  ``local_server`` reuses a started embedded-model
    server for ``model: local``."""
    from execlens.models import open_client

    tasks = load_tasks(config.data, max_samples=config.max_samples)
    with open_client(config.model, config.base_url, no_cache=config.no_cache,
                     local_server=local_server) as client:
        return collect_chains(tasks, client, Path(config.output_dir) / "chains.jsonl",
                              samples=config.samples, temperature=config.temperature,
                              max_tokens=config.max_tokens, seed=config.seed)
