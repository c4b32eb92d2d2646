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
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from execlens.synth._classify import StoredFunction, canonical, classify_stored_pairs
from execlens.synth._mutation import mutated_parameters
from execlens.synth._programs import collect_program, probe_program
from execlens.synth._size import size_ok

if TYPE_CHECKING:
    from execlens.engine import Engine, Outcome

__all__ = ["CollectSettings", "code_flags", "collect_functions"]

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


def _generator_seed(seed: int, function_id: str) -> int:
    digest = hashlib.sha256(f"{seed}:{function_id}".encode()).digest()
    return int.from_bytes(digest[:4], "big")


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


def _module_name(message: str) -> str:
    """``scipy`` from "No module named 'scipy.linalg'" (the message when it is not that)."""
    match = re.search(r"No module named '([\w.]+)'", message or "")
    return match.group(1).split(".")[0] if match else (message or "unknown")


def _split(outcomes: list[Outcome], sizes: list[int]) -> list[list[Outcome]]:
    out, start = [], 0
    for size in sizes:
        out.append(outcomes[start:start + size])
        start += size
    return out


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

    # 4. Why stored pairs do not reproduce (more seeds and a replay for the unexplained).
    code = [code_flags(record["refcode"]) for record in records]
    mutates = {i: mutated_parameters(records[i]["refcode"]) for i in stored}
    stored_classes, stored_moved = classify_stored_pairs(engine, [
        StoredFunction(records[i]["refcode"], stored_pairs[k], first_runs[k],
                       second_runs[i], code[i], bool(mutates[i]))
        for k, i in enumerate(stored)], limits)

    out = []
    for i, record in enumerate(records):
        report = reports[i]
        flags = list(code[i])
        keep = int(record["keep"])
        kept: list[dict[str, Any]] = []
        moved = False
        if i in stored_at:
            classes: Counter[str] = Counter()
            seen: set[str] = set()
            missing: set[str] = set()
            at = stored_at[i]
            moved = stored_moved[at]
            for pair, first, kind in zip(stored_pairs[at], first_runs[at], stored_classes[at]):
                classes[kind] += 1
                if kind == "missing_module" and first.exception is not None:
                    missing.add(_module_name(first.exception.message))
                probe = first.decoded() if first.ok else None
                key = canonical(pair["input"])
                # Ground truth is our own fresh, deterministic run on the recorded input.
                if (probe and kind != "nondeterministic" and probe.get("json_ok")
                        and not probe.get("none") and probe.get("size_ok")
                        and size_ok(pair["input"]) and key not in seen and len(kept) < keep):
                    seen.add(key)
                    kept.append({"input": pair["input"], "output": probe["output"]})
            report["stored"] = len(stored_pairs[at])
            report["pair_classes"] = dict(sorted(classes.items()))
            if mutates[i]:
                report["mutates_input"] = mutates[i]
            if missing:
                report["missing_modules"] = sorted(missing)
        else:
            for pair, second in zip(candidates[i], second_runs[i]):
                probe = second.decoded() if second.ok else None
                if probe is None or canonical(probe.get("output")) != canonical(pair["output"]):
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
        elif len(kept) < 2 and report.get("missing_modules"):
            result["reject"] = {"stage": "collect", "reason": "missing_module",
                                "modules": report["missing_modules"], "pairs": len(kept)}
        elif len(kept) < 2:
            result["reject"] = {"stage": "collect", "reason": "too_few_pairs",
                                "pairs": len(kept)}
        out.append(result)
    return out
