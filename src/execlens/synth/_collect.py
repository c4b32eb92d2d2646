"""I/O pair collection and the determinism check (the ``collect`` stage's work).

Two ways in:

* a function with an ``input_generator``: one sandboxed run calls the generator (up to
  ``generator_calls`` times, seeded per function), records each input *before*
  ``main_solution`` sees it, applies the size rule to the live objects, deduplicates
  and keeps up to ``keep`` pairs;
* a function with stored pairs (``rawcode_1k_parsed.jsonl``): every stored pair is
  re-executed and classified.

Then every pair runs again in a fresh child under a second hash seed (the servers also
seed ``random`` differently), and functions whose outputs move, or whose code reads the
clock or unseeded randomness, are dropped with the reason recorded.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from execlens.synth._programs import collect_program, probe_program
from execlens.synth._size import size_ok

if TYPE_CHECKING:
    from execlens.engine import Engine, Outcome

__all__ = ["PAIR_CLASSES", "CollectSettings", "code_flags", "collect_functions"]

# How a stored pair fares when re-executed (the must-show table's rows).
PAIR_CLASSES = ("reproduces", "nondeterministic", "mutated_input", "missing_module",
                "timeout", "exception", "other")

_TIME = re.compile(r"\b(time\.(time|perf_counter|monotonic|process_time|time_ns)|"
                   r"(datetime|date)\.(now|today|utcnow)|timeit)\b")
_RANDOM = re.compile(r"\b(random\.\w+|randint|randrange|shuffle|uuid\.uuid[14]|os\.urandom|"
                     r"secrets\.\w+|np\.random\.\w+|numpy\.random\.\w+)\s*\(")
_SEEDED = re.compile(r"\bseed\s*\(")


def code_flags(refcode: str) -> list[str]:
    """Static flags on a function's code: ``reads_time``, ``unseeded_randomness``."""
    flags = []
    if _TIME.search(refcode):
        flags.append("reads_time")
    if _RANDOM.search(refcode) and not _SEEDED.search(refcode):
        flags.append("unseeded_randomness")
    return flags


@dataclass(frozen=True)
class CollectSettings:
    """Seeds, caps and limits of a collection."""

    hash_seed: int = 0
    check_seed: int = 1
    seed: int = 0
    generator_calls: int = 1000
    run_seconds: float = 5.0
    memory_mb: int = 512
    batch_size: int = 16


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def _generator_seed(seed: int, function_id: str) -> int:
    digest = hashlib.sha256(f"{seed}:{function_id}".encode()).digest()
    return int.from_bytes(digest[:4], "big")


def _fingerprint(outcome: Outcome) -> tuple[Any, ...]:
    probe = outcome.decoded() if outcome.ok else None
    if probe is None:
        exc = outcome.exception
        return (outcome.status.value, exc.type if exc else None)
    return ("ok", _canonical(probe.get("output")), probe.get("json_ok"))


def _failure_class(outcome: Outcome) -> str:
    from execlens.engine import Status

    if outcome.status is Status.TIMEOUT:
        return "timeout"
    exc = outcome.exception
    if exc is not None and exc.type in ("ModuleNotFoundError", "ImportError"):
        return "missing_module"
    return "exception"


def _probe_jobs(records: Sequence[dict[str, Any]], pairs: Sequence[list[dict[str, Any]]],
                seed: int, limits: Any) -> list[Any]:
    from execlens.engine import Job

    jobs = []
    for record, function_pairs in zip(records, pairs):
        program = probe_program(record["refcode"])
        jobs.extend(Job(program=program, entry_point="__synth_probe__",
                        kwargs={"given": pair["input"]}, hash_seed=seed, limits=limits)
                    for pair in function_pairs)
    return jobs


def _split(outcomes: list[Outcome], sizes: list[int]) -> list[list[Outcome]]:
    out, start = [], 0
    for size in sizes:
        out.append(outcomes[start:start + size])
        start += size
    return out


def _classify_stored(stored: dict[str, Any], first: Outcome, second: Outcome) -> str:
    if not first.ok:
        return _failure_class(first)
    if _fingerprint(first) != _fingerprint(second):
        return "nondeterministic"
    probe = first.decoded()
    if probe.get("json_ok") and _canonical(probe["output"]) == _canonical(stored.get("output")):
        return "reproduces"
    return "mutated_input" if probe.get("mutated") else "other"


def collect_functions(engine: Engine, records: Sequence[dict[str, Any]],
                      settings: CollectSettings = CollectSettings(), *,
                      check_engine: Engine | None = None) -> list[dict[str, Any]]:
    """Collect (or re-execute) pairs for every function record; returns one record per
    function with ``pairs`` and a ``collect`` report, rejected ones with ``reject``.

    ``check_engine`` (servers started under ``check_seed``) runs the determinism rerun
    with a full pool; without it ``engine`` runs it on its single extra-seed server."""
    from concurrent.futures import ThreadPoolExecutor

    from execlens.engine import Job, Limits

    limits = Limits(wall_time=settings.run_seconds, memory_mb=settings.memory_mb)
    reports: list[dict[str, Any]] = [{} for _ in records]
    candidates: list[list[dict[str, Any]]] = [[] for _ in records]

    # 1. Generator-driven functions: one collection run each.
    generated = [i for i, r in enumerate(records) if not r.get("stored_ios")
                 and r.get("input_generator")]
    jobs = [Job(program=collect_program(records[i]["refcode"], records[i]["input_generator"]),
                call=(f"__synth_collect__({settings.generator_calls}, {int(records[i]['keep'])}, "
                      f"{_generator_seed(settings.seed, records[i]['id'])})"),
                limits=limits, hash_seed=settings.hash_seed) for i in generated]
    for i, outcome in zip(generated, engine.map(jobs)) if jobs else ():
        if not outcome.ok:
            exc = outcome.exception
            reports[i]["failure"] = (f"{outcome.status.value}:{exc.type}" if exc
                                     else outcome.status.value)
            continue
        result = outcome.decoded()
        candidates[i] = result["pairs"]
        reports[i].update(calls=result["calls"], discarded=dict(sorted(result["counts"].items())))

    # 2. Stored pairs: re-executed under the run's hash seed (fresh namespace each).
    stored = [i for i, r in enumerate(records) if r.get("stored_ios")]
    stored_pairs = [[p for p in records[i]["stored_ios"] if isinstance(p, dict)
                     and isinstance(p.get("input"), dict)] for i in stored]
    first_jobs = _probe_jobs([records[i] for i in stored], stored_pairs, settings.hash_seed,
                             limits)
    # Runs beside the generator runs and the rerun (both pools stay busy).
    background = ThreadPoolExecutor(1)
    first_future = background.submit(
        lambda: list(engine.map(first_jobs, batch_size=settings.batch_size)))

    # 3. The determinism rerun: every candidate pair, fresh child, the other hash seed.
    stored_at = {i: k for k, i in enumerate(stored)}
    rerun_pairs = [stored_pairs[stored_at[i]] if i in stored_at else candidates[i]
                   for i in range(len(records))]
    checker = check_engine or engine
    second_runs = _split(list(checker.map(
        _probe_jobs(records, rerun_pairs, settings.check_seed, limits),
        batch_size=settings.batch_size)), [len(p) for p in rerun_pairs])
    first_runs = _split(first_future.result(), [len(p) for p in stored_pairs])
    background.shutdown()

    out = []
    for i, record in enumerate(records):
        report = reports[i]
        flags = code_flags(record["refcode"])
        keep = int(record["keep"])
        kept: list[dict[str, Any]] = []
        moved = False
        if i in stored_at:
            classes: Counter[str] = Counter()
            seen: set[str] = set()
            for pair, first, second in zip(stored_pairs[stored_at[i]], first_runs[stored_at[i]],
                                           second_runs[i]):
                kind = _classify_stored(pair, first, second)
                classes[kind] += 1
                moved |= kind == "nondeterministic"
                probe = first.decoded() if first.ok else None
                key = _canonical(pair["input"])
                # Ground truth is our own fresh, deterministic run on the recorded input.
                if (probe and kind != "nondeterministic" and probe.get("json_ok")
                        and not probe.get("none") and probe.get("size_ok")
                        and size_ok(pair["input"]) and key not in seen and len(kept) < keep):
                    seen.add(key)
                    kept.append({"input": pair["input"], "output": probe["output"]})
            report["stored"] = len(stored_pairs[stored_at[i]])
            report["pair_classes"] = dict(sorted(classes.items()))
        else:
            for pair, second in zip(candidates[i], second_runs[i]):
                probe = second.decoded() if second.ok else None
                if probe is None or _canonical(probe.get("output")) != _canonical(pair["output"]):
                    moved = True
                else:
                    kept.append(pair)
        if moved:
            flags.insert(0, "nondeterministic")
        result = {**record, "pairs": kept, "collect": report, "flags": flags}
        if report.get("failure"):
            result["reject"] = {"stage": "collect", "reason": "collect_failed",
                                "detail": report["failure"]}
        elif flags:
            result["reject"] = {"stage": "collect", "reason": flags[0], "flags": flags}
        elif len(kept) < 2:
            result["reject"] = {"stage": "collect", "reason": "too_few_pairs",
                                "pairs": len(kept)}
        out.append(result)
    return out
