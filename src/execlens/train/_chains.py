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

from execlens.rewards import RewardTask, render_messages, score_batch

__all__ = ["ChainStats", "collect_chains"]


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
