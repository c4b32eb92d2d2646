"""What the eval and score runners share: scoring into a run directory through the store's
one resume loop (``execlens.store.ShardExecutor``).

A run's items are numbered in plan order; item ``i`` of a task belongs to shard
``i // SHARD_SIZE`` of that task's *keyed* step (``store`` shard set ``samples-<task>``),
whose completion marker lists the ids the shard holds.  The executor, not the runner,
decides what is left: a rerun keeps every record of a finished shard, scores only the
items no shard holds yet (a shard that lacks some of this run's items -- ``--limit``
grew, or a model request failed last time -- is rewritten with the old records and the
new ones), and the final files are read back from the shards in plan order:
``samples.jsonl`` and ``results.json`` are byte-identical whether the run went through
in one go or was killed (SIGKILL included) and rerun.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ._run import RunError
from .metrics import sample_accuracy

if TYPE_CHECKING:
    from execlens.engine import Engine
    from execlens.judge import SampleScore, Scorer, Verdict
    from execlens.store import RunDir, ShardExecutor, Step

    from ._base import Benchmark

__all__ = [
    "SHARD_SIZE",
    "Unit",
    "difference_reason",
    "pending",
    "prepare_context",
    "record_isolation",
    "run_records",
    "sample_record",
    "score_shard",
    "scoring_engine_for",
    "summarise",
    "unit_steps",
    "write_samples",
]

SHARD_SIZE = 100
_EXAMPLES_PER_REASON = 3


@dataclass
class Unit:
    """One item to score: its record id, position, answers and extra record fields."""

    key: str
    task: str
    position: int
    item: Any
    answers: list[str]
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def shard(self) -> int:
        """The index of the shard holding this unit's record."""
        return self.position // SHARD_SIZE


def difference_reason(official: Verdict, strict: Verdict) -> str | None:
    """Why two verdicts on one generation disagree, or ``None`` when they agree.

    ``"strict unparseable:boolop"`` (official passed it, strict did not, and why) or
    ``"official skipped:filter"`` (strict passed it, official did not, and why).
    """
    if official.passed == strict.passed:
        return None
    return f"strict {strict.label}" if official.passed else f"official {official.label}"


def sample_record(
    key: str, answers: Sequence[str], scores: Mapping[str, SampleScore], n: int
) -> dict[str, Any]:
    """The ``samples.jsonl`` line of one scored sample.

    ``n`` is how many generations the sample should have: every mode but ``official``
    counts each missing one as a failure (the official list stays as the official
    script records it).
    """
    modes = list(scores)
    details = []
    for index, text in enumerate(answers):
        verdicts = {
            mode: scores[mode].verdicts[index]
            for mode in modes
            if index < len(scores[mode].verdicts)
        }
        entry: dict[str, Any] = {mode: verdict.label for mode, verdict in verdicts.items()}
        if "official" in verdicts and "strict" in verdicts:
            reason = difference_reason(verdicts["official"], verdicts["strict"])
            if reason is not None:
                entry["differs"] = reason
                entry["generation"] = text[:500]
        for mode, verdict in verdicts.items():
            if verdict.detail and verdict.status.value not in ("passed", "wrong"):
                entry[f"{mode}_detail"] = verdict.detail[:300]
        details.append(entry)
    missing = max(0, n - len(answers))
    record: dict[str, Any] = {"id": key}
    for mode in modes:
        scored = list(scores[mode].scored)
        if mode != "official":
            scored += [False] * missing
        record[mode] = scored
    for mode in modes:
        record[f"{mode}_accuracy"] = sample_accuracy(record[mode])
    record["n"] = n
    if missing:
        record["missing"] = missing
    record["generations"] = details
    return record


def record_isolation(run: RunDir, results: dict[str, Any], engine: Engine | None) -> None:
    """Record the sandbox's isolation in ``results`` and the run's manifest.

    ``engine`` is the one this run executed programs on; ``None`` when this invocation
    executed nothing (every verdict resumed): then the isolation the verdicts were
    computed under is the one the manifest recorded when they were, so a resumed run's
    ``results.json`` is the same bytes as an uninterrupted one's.
    """
    summary = (
        engine.isolation_report().summary()
        if engine is not None
        else run.manifest.environment.get("isolation")
    )
    if summary is None:
        return
    results["isolation"] = summary
    if engine is not None:
        run.record_environment("isolation", summary)


def scoring_engine_for(benchmark: Benchmark, workers: int | None) -> Engine:
    """A scoring engine sized and preloaded as ``benchmark`` asks (defaults otherwise)."""
    from execlens.judge import scoring_engine

    return scoring_engine(workers or benchmark.scoring_workers, preload=benchmark.preload)


def prepare_context(
    benchmark: Benchmark, items: Sequence[Any], task: str, engine: Engine | None
) -> Any:
    """What the benchmark's scorers need computed once for ``items`` of ``task`` (strict
    ground truth traced or run by the engine): its ``prepare`` hook, the same for eval
    and score (``None`` by default)."""
    return benchmark.prepare(list(items), task, engine)


def unit_steps(units: Sequence[Unit]) -> list[Step]:
    """The store's steps over ``units``: one keyed step per task (in plan order), whose
    shard ``s`` holds the units of that task with ``unit.shard == s``.

    A run's ``work`` handles one shard's pending units (those no finished shard holds)
    and returns their records (``"id"``: the unit's key); a unit it leaves out -- its
    model request failed -- is not recorded, and the next run asks it again.
    """
    from execlens.store import Step

    steps = []
    for task in dict.fromkeys(unit.task for unit in units):
        chunks: list[list[Unit]] = []
        for unit in units:
            if unit.task == task:
                while len(chunks) <= unit.shard:
                    chunks.append([])
                chunks[unit.shard].append(unit)
        # A shard no unit of this run falls into (an --offset slice) is not asked for.
        steps.append(
            Step(f"samples-{task}", fed=len(chunks), feed=chunks, key=lambda unit: unit.key)
        )
    return steps


def pending(executor: ShardExecutor) -> list[Unit]:
    """The units of the run no finished shard holds, in plan order."""
    return [unit for name in executor.steps for unit in executor.pending(name)]


def run_records(executor: ShardExecutor) -> list[dict[str, Any]]:
    """This run's records, read back from the shards, in plan order."""
    from execlens.store import StoreError

    try:
        return [record for name in executor.steps for record in executor.records(name)]
    except StoreError as exc:  # the work did not return a unit's record: never silently
        raise RunError(f"{exc}") from exc


def score_shard(
    units: Sequence[Unit],
    scorers: Mapping[str, Scorer[Any]],
    *,
    n: int,
    engine: Engine | None,
    progress: Callable[[], None] | None = None,
) -> list[dict[str, Any]]:
    """Score one shard's ``units`` in every mode of ``scorers``; their records, in order.

    ``progress()`` is called as each unit is scored.
    """
    from execlens.judge import score_samples

    # The judge's executor hands back the item; the unit rides along through a lookup.
    lookup = {id(unit.item): unit for unit in units}
    records: dict[str, dict[str, Any]] = {}
    for item, scores in score_samples(
        list(scorers.values()), [(unit.item, unit.answers) for unit in units], engine
    ):
        unit = lookup[id(item)]
        record = sample_record(unit.key, unit.answers, scores, n)
        record.update(unit.extra)
        records[unit.key] = record
        if progress is not None:
            progress()
    return [records[unit.key] for unit in units]


def write_samples(run: RunDir, records: Iterable[dict[str, Any]]) -> None:
    """``samples.jsonl``: one line per record, atomically."""
    run.write_text(
        "samples.jsonl",
        "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records),
    )


def summarise(
    benchmark: Benchmark, records: Sequence[dict[str, Any]], task: str, modes: Sequence[str]
) -> dict[str, Any]:
    """``results.json``'s scores from every sample's record (in plan order)."""
    metrics = dict(benchmark.metrics(records, task))
    baselines = metrics.pop("baselines", None)
    flags = list(metrics.pop("flags", []) or [])
    extra = metrics.pop("detailed", None) or {}
    detailed: dict[str, Any] = {}
    for mode in modes:
        lists = [record.get(mode, []) for record in records]
        labels = Counter(
            entry[mode]
            for record in records
            for entry in record.get("generations", [])
            if mode in entry
        )
        detailed[mode] = {
            **metrics.get(mode, {}),
            **extra.get(mode, {}),
            "solved": sum(1 for verdicts in lists if True in verdicts),
            "denominator": sum(len(verdicts) for verdicts in lists),
            "verdicts": dict(sorted(labels.items(), key=lambda kv: (-kv[1], kv[0]))),
        }
    missing = sum(int(record.get("missing", 0)) for record in records)
    if missing:
        flags.append(
            f"{missing} generation(s) missing across "
            f"{sum(1 for r in records if r.get('missing'))} sample(s): strict counts "
            "each as a failure; official mode uses the shorter lists as the official "
            "script does"
        )
    results: dict[str, Any] = {
        "samples": len(records),
        "generations": sum(len(record.get("generations", [])) for record in records),
        "metrics": {mode: metrics[mode] for mode in modes if mode in metrics},
        "modes": detailed,
        "differences": _differences(records),
    }
    if baselines:
        results["baselines"] = baselines
    if flags:
        results["flags"] = flags
    return results


def _differences(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    only_official: Counter[str] = Counter()
    only_strict: Counter[str] = Counter()
    examples: dict[str, list[dict[str, Any]]] = {}
    for record in records:
        for index, entry in enumerate(record.get("generations", [])):
            reason = entry.get("differs")
            if reason is None:
                continue
            (only_official if reason.startswith("strict ") else only_strict)[reason] += 1
            shown = examples.setdefault(reason, [])
            if len(shown) < _EXAMPLES_PER_REASON:
                shown.append(
                    {"id": record["id"], "index": index, "generation": entry.get("generation", "")}
                )
    return {
        "total": sum(only_official.values()) + sum(only_strict.values()),
        "official_pass_strict_fail": dict(only_official.most_common()),
        "official_fail_strict_pass": dict(only_strict.most_common()),
        "examples": examples,
    }
