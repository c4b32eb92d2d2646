"""I/O pair collection and the determinism check (the ``collect`` stage's work).

Two ways in:

* a function with an input generator (:data:`~execlens.synth._programs.GENERATOR_NAMES`):
  one sandboxed run calls the generator (up to ``generator_calls`` times), records each
  input *before* ``main_solution`` sees it, applies the size rule to the live objects,
  deduplicates and keeps up to ``keep`` pairs;
* a function with stored pairs (``rawcode_1k_parsed.jsonl``): every stored pair is
  re-executed and classified.

Then every pair runs again in a fresh child under a second hash seed and other
randomness, and pairs of generator-driven functions (and of functions whose code reads
the clock or randomness) under the extra hash seeds too; a function whose output moves
is dropped as ``nondeterministic``.  Static flags (``reads_time``,
``unseeded_randomness``) are advisory, recorded in ``collect.code_flags``: execution
decides, so a function that seeds its own ``Random(seed)`` or never reaches
``datetime.now()`` is kept.

Deterministic by construction: every sandboxed run gets ``Job.seed`` =
:func:`stable_seed` of the run's seed, the function id and the call (generator call or
pair position), so the same data gives the same records on every run and machine.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from execlens.synth._classify import (
    EXTRA_SEEDS,
    StoredFunction,
    canonical,
    classify_stored_pairs,
    module_name,
)
from execlens.synth._mutation import mutated_parameters
from execlens.synth._programs import collect_program, generator_convention, probe_program
from execlens.synth._size import size_ok

if TYPE_CHECKING:
    from execlens.engine import Engine, Outcome

__all__ = ["CollectSettings", "code_flags", "collect_functions", "stable_seed"]

_TIME = re.compile(
    r"\b(time\.(time|perf_counter|monotonic|process_time|time_ns)|"
    r"(datetime|date)\.(now|today|utcnow)|timeit)\b"
)
_RANDOM = re.compile(
    r"\b(random\.\w+|randint|randrange|shuffle|uuid\.uuid[14]|os\.urandom|"
    r"secrets\.\w+|np\.random\.\w+|numpy\.random\.\w+)\s*\("
)
_SEEDED = re.compile(r"\bseed\s*\(")


def code_flags(refcode: str) -> list[str]:
    """Static flags on a function's code: ``reads_time``, ``unseeded_randomness``.

    Advisory only (a regex cannot see whether the call is reached or the generator is
    seeded): a flagged function gets the extra-seed reruns, and execution decides."""
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


def stable_seed(*parts: object) -> int:
    """A 63-bit seed from ``parts`` (SHA-256 of their text: the same on every machine,
    Python and hash seed)."""
    digest = hashlib.sha256(":".join(str(part) for part in parts).encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


@dataclass
class _Function:
    """One function's collection state."""

    record: dict[str, Any]
    report: dict[str, Any] = field(default_factory=dict)
    pairs: list[dict[str, Any]] = field(default_factory=list)  # candidates, in order
    positions: list[int] = field(default_factory=list)  # each candidate's call index
    failure: dict[str, Any] | None = None  # a rejection before any pair
    moved: bool = False

    @property
    def id(self) -> str:
        return str(self.record["id"])


def _probe_jobs(
    items: Sequence[tuple[_Function, list[dict[str, Any]], list[int]]],
    hash_seed: int,
    tag: str,
    limits: Any,
) -> list[Any]:
    """One probe job per pair, each seeded from (``tag``, hash seed, function, position)."""
    from execlens.engine import Job

    jobs: list[Job] = []
    for function, pairs, positions in items:
        program = probe_program(function.record["refcode"])
        jobs.extend(
            Job(
                program=program,
                entry_point="__synth_probe__",
                kwargs={"given": pair["input"]},
                hash_seed=hash_seed,
                limits=limits,
                seed=stable_seed(tag, hash_seed, function.id, position),
                # One function's code on data (its inputs): one origin, so its pairs
                # may share a child (``batch_size``) while nothing survives between them.
                origin=("function", function.id),
            )
            for pair, position in zip(pairs, positions)
        )
    return jobs


def _split(outcomes: list[Outcome], sizes: list[int]) -> list[list[Outcome]]:
    out, start = [], 0
    for size in sizes:
        out.append(outcomes[start : start + size])
        start += size
    return out


def _failure(outcome: Outcome) -> dict[str, Any]:
    """The rejection of a collection run that did not finish."""
    exc = outcome.exception
    if exc is not None and exc.type == "ModuleNotFoundError":
        module = module_name(exc.message)
        return {"stage": "collect", "reason": f"missing_module:{module}", "modules": [module]}
    detail = f"{outcome.status.value}:{exc.type}" if exc else outcome.status.value
    return {"stage": "collect", "reason": "collect_failed", "detail": detail}


def _cause(discarded: Counter[str] | dict[str, int]) -> str:
    """The rejection reason of a function left with too few pairs: the commonest reason
    its inputs were discarded (``generator_not_dict``, ``output_too_large``,
    ``missing_module:<name>`` ...), or ``too_few_pairs`` when none is known."""
    if not discarded:
        return "too_few_pairs"
    reason = min(discarded, key=lambda name: (-discarded[name], name))
    return "few_distinct_inputs" if reason == "duplicate_input" else reason


def _collect_generated(
    engine: Engine, functions: list[_Function], settings: CollectSettings, limits: Any
) -> None:
    """Step 1: one sandboxed generator run per function."""
    from execlens.engine import Job

    runs: list[tuple[_Function, Any]] = []
    for function in functions:
        record = function.record
        convention = generator_convention(record.get("input_generator") or "")
        if convention is None:
            function.failure = {"stage": "collect", "reason": "no_input_generator"}
            continue
        name, takes_rng = convention
        call = (
            f"__synth_collect__({settings.generator_calls}, {int(record['keep'])}, "
            f"{stable_seed('generate', settings.seed, function.id)}, {name!r}, "
            f"{takes_rng})"
        )
        runs.append(
            (
                function,
                Job(
                    program=collect_program(record["refcode"], record["input_generator"]),
                    call=call,
                    limits=limits,
                    hash_seed=settings.hash_seed,
                    seed=stable_seed("program", settings.seed, function.id),
                ),
            )
        )
    outcomes = engine.map([job for _, job in runs]) if runs else iter(())
    for (function, _), outcome in zip(runs, outcomes):
        if not outcome.ok:
            function.failure = _failure(outcome)
            continue
        result = outcome.decoded()
        function.pairs = [{"input": p["input"], "output": p["output"]} for p in result["pairs"]]
        function.positions = [int(p["call"]) for p in result["pairs"]]
        function.report.update(
            calls=result["calls"], discarded=dict(sorted(result["counts"].items()))
        )


def _moves_under_extra_seeds(
    engine: Engine, items: list[tuple[_Function, list[dict[str, Any]], list[int]]], limits: Any
) -> None:
    """Run each pair under every extra hash seed (and other randomness); a function one of
    whose outputs moves is marked ``moved``."""
    jobs = [job for seed in EXTRA_SEEDS for job in _probe_jobs(items, seed, "extra", limits)]
    if not jobs:
        return
    sizes = [len(pairs) for _, pairs, _ in items]
    outcomes = list(engine.map(jobs))
    per_seed = _split(outcomes, [sum(sizes)] * len(EXTRA_SEEDS))
    for runs in per_seed:
        for (function, pairs, _), outcome_list in zip(items, _split(runs, sizes)):
            for pair, outcome in zip(pairs, outcome_list):
                probe = outcome.decoded() if outcome.ok else None
                if probe is None or canonical(probe.get("output")) != canonical(pair["output"]):
                    function.moved = True


@dataclass
class _Stored:
    """The functions with stored pairs and what running those pairs found.

    ``at`` maps a function's index among all functions to its position here; the lists
    are by that position, ``mutates`` by the function's index."""

    at: dict[int, int]
    pairs: list[list[dict[str, Any]]]  # each function's well-formed stored pairs
    first_runs: list[list[Outcome]] = field(default_factory=list)
    mutates: dict[int, list[str]] = field(default_factory=dict)
    classes: list[list[str]] = field(default_factory=list)
    moved: list[bool] = field(default_factory=list)


def _stored_of(records: Sequence[dict[str, Any]]) -> _Stored:
    """The records with stored pairs, each with its pairs that have a dict ``input``."""
    indices = [i for i, r in enumerate(records) if r.get("stored_ios")]
    pairs = [
        [
            p
            for p in records[i]["stored_ios"]
            if isinstance(p, dict) and isinstance(p.get("input"), dict)
        ]
        for i in indices
    ]
    return _Stored(at={i: k for k, i in enumerate(indices)}, pairs=pairs)


def _rerun(
    checker: Engine,
    functions: list[_Function],
    stored: _Stored,
    settings: CollectSettings,
    limits: Any,
) -> list[list[Outcome]]:
    """Step 3, the determinism rerun: every candidate pair, fresh child, the other hash
    seed; the outcomes per function."""
    rerun_items = [
        (function, stored.pairs[stored.at[i]], list(range(len(stored.pairs[stored.at[i]]))))
        if i in stored.at
        else (function, function.pairs, function.positions)
        for i, function in enumerate(functions)
    ]
    return _split(
        list(
            checker.map(
                _probe_jobs(rerun_items, settings.check_seed, "check", limits),
                batch_size=settings.batch_size,
            )
        ),
        [len(pairs) for _, pairs, _ in rerun_items],
    )


def _run_pairs(
    engine: Engine,
    checker: Engine,
    functions: list[_Function],
    stored: _Stored,
    settings: CollectSettings,
    limits: Any,
) -> list[list[Outcome]]:
    """Steps 2 and 3: the stored pairs re-executed under the run's hash seed (fresh
    namespace each; kept in ``stored``) beside the determinism rerun, whose outcomes
    per function are returned."""
    from concurrent.futures import ThreadPoolExecutor

    first_items = [
        (functions[i], pairs, list(range(len(pairs)))) for i, pairs in zip(stored.at, stored.pairs)
    ]
    first_jobs = _probe_jobs(first_items, settings.hash_seed, "run", limits)
    # Runs beside the generator runs and the rerun (both pools stay busy).
    background = ThreadPoolExecutor(2)
    first_future = background.submit(
        lambda: list(engine.map(first_jobs, batch_size=settings.batch_size))
    )
    # The static mutation analysis (host work) while the engines run, not after them.
    mutates_future = background.submit(
        lambda: {i: mutated_parameters(functions[i].record["refcode"]) for i in stored.at}
    )
    second_runs = _rerun(checker, functions, stored, settings, limits)
    stored.first_runs = _split(first_future.result(), [len(p) for p in stored.pairs])
    stored.mutates = mutates_future.result()
    background.shutdown()
    return second_runs


def _classify_stored(
    engine: Engine,
    functions: list[_Function],
    stored: _Stored,
    second_runs: list[list[Outcome]],
    code: list[list[str]],
    limits: Any,
) -> None:
    """Step 4: why stored pairs do not reproduce (more seeds and a replay for the
    unexplained); kept in ``stored``."""
    stored.classes, stored.moved = classify_stored_pairs(
        engine,
        [
            StoredFunction(
                functions[i].record["refcode"],
                stored.pairs[k],
                stored.first_runs[k],
                second_runs[i],
                code[i],
                bool(stored.mutates[i]),
                functions[i].record["id"],
            )
            for i, k in stored.at.items()
        ],
        limits,
    )


def _keep_stored(
    function: _Function, stored: _Stored, i: int
) -> tuple[list[dict[str, Any]], list[int], Counter[str]]:
    """The stored pairs of function ``i`` that are kept (with our own run's output) and
    their positions, and why the others were dropped; the report says what was found."""
    at = stored.at[i]
    keep = int(function.record["keep"])
    kept_pairs: list[dict[str, Any]] = []
    kept_positions: list[int] = []
    dropped: Counter[str] = Counter()
    classes: Counter[str] = Counter()
    seen: set[str] = set()
    missing: set[str] = set()
    for position, (pair, first, kind) in enumerate(
        zip(stored.pairs[at], stored.first_runs[at], stored.classes[at])
    ):
        classes[kind] += 1
        if kind == "missing_module" and first.exception is not None:
            missing.add(module_name(first.exception.message))
        probe = first.decoded() if first.ok else None
        key = canonical(pair["input"])
        cause = _stored_drop(kind, probe, pair, key in seen)
        # Ground truth is our own fresh, deterministic run on the recorded input.
        # (``probe`` is set whenever ``cause`` is None: no probe is a drop.)
        if cause is None and probe is not None and len(kept_pairs) < keep:
            seen.add(key)
            kept_pairs.append({"input": pair["input"], "output": probe["output"]})
            kept_positions.append(position)
        elif cause is not None:
            if cause == "missing_module" and first.exception is not None:
                cause = f"missing_module:{module_name(first.exception.message)}"
            dropped[cause] += 1
    function.report["stored"] = len(stored.pairs[at])
    function.report["pair_classes"] = dict(sorted(classes.items()))
    if stored.mutates[i]:
        function.report["mutates_input"] = stored.mutates[i]
    if missing:
        function.report["missing_modules"] = sorted(missing)
    return kept_pairs, kept_positions, dropped


def _keep_generated(
    function: _Function, second: list[Outcome]
) -> tuple[list[dict[str, Any]], list[int]]:
    """The generated pairs whose output the rerun reproduced, and their positions; a pair
    whose output moved marks the function ``moved``."""
    kept_pairs: list[dict[str, Any]] = []
    kept_positions: list[int] = []
    for pair, position, outcome in zip(function.pairs, function.positions, second):
        probe = outcome.decoded() if outcome.ok else None
        if probe is None or canonical(probe.get("output")) != canonical(pair["output"]):
            function.moved = True
        else:
            kept_pairs.append(pair)
            kept_positions.append(position)
    return kept_pairs, kept_positions


def _function_result(
    function: _Function,
    flags_of_code: list[str],
    kept_pairs: list[dict[str, Any]],
    discarded: Counter[str] | dict[str, int],
) -> dict[str, Any]:
    """One function's output record: its pairs and ``collect`` report, or why it is
    rejected (``discarded``: why its inputs were, for a function left with too few)."""
    record, report = function.record, function.report
    if flags_of_code:
        report["code_flags"] = flags_of_code
    kept = kept_pairs if not function.moved else []
    flags = ["nondeterministic"] if function.moved else []
    result = {**record, "pairs": kept, "collect": report, "flags": flags}
    if function.failure is not None:
        result["reject"] = function.failure
    elif function.moved:
        result["reject"] = {
            "stage": "collect",
            "reason": "nondeterministic",
            "flags": flags + flags_of_code,
        }
    elif len(kept) < 2:
        cause = _cause(discarded)
        result["reject"] = {"stage": "collect", "reason": cause, "pairs": len(kept)}
        if cause.startswith("missing_module:"):
            result["reject"]["modules"] = report.get("missing_modules") or [cause.split(":", 1)[1]]
    return result


def collect_functions(
    engine: Engine,
    records: Sequence[dict[str, Any]],
    settings: CollectSettings = CollectSettings(),
    *,
    check_engine: Engine | None = None,
) -> list[dict[str, Any]]:
    """Collect (or re-execute) pairs for every function record; returns one record per
    function with ``pairs`` and a ``collect`` report, rejected ones with ``reject``.

    ``check_engine`` (servers started under ``check_seed``) runs the determinism rerun
    with a full pool; without it ``engine`` runs it on its single extra-seed server."""
    from execlens.engine import Limits

    limits = Limits(wall_time=settings.run_seconds, memory_mb=settings.memory_mb)
    functions = [_Function(record) for record in records]
    code = [code_flags(record["refcode"]) for record in records]

    # 1. Generator-driven functions: one collection run each.
    generated = [f for f in functions if not f.record.get("stored_ios")]
    _collect_generated(engine, generated, settings, limits)
    # 2, 3. Stored pairs re-executed beside the determinism rerun of every pair.
    stored = _stored_of(records)
    second_runs = _run_pairs(engine, check_engine or engine, functions, stored, settings, limits)
    # 4. Why stored pairs do not reproduce.
    _classify_stored(engine, functions, stored, second_runs, code, limits)

    # 5. Generator-driven pairs that agreed, and the agreeing pairs of functions whose
    #    code reads the clock or randomness, run under the extra hash seeds as well.
    extra: list[tuple[_Function, list[dict[str, Any]], list[int]]] = []
    dropped: list[Counter[str]] = [Counter() for _ in functions]
    kept_pairs: list[list[dict[str, Any]]] = [[] for _ in functions]
    for i, function in enumerate(functions):
        if i in stored.at:
            function.moved = stored.moved[stored.at[i]]
            kept_pairs[i], positions, dropped[i] = _keep_stored(function, stored, i)
            if code[i] and not function.moved and len(kept_pairs[i]) >= 2:
                extra.append((function, kept_pairs[i], positions))
        elif function.failure is None:
            kept_pairs[i], positions = _keep_generated(function, second_runs[i])
            if not function.moved and len(kept_pairs[i]) >= 2:
                extra.append((function, kept_pairs[i], positions))
    _moves_under_extra_seeds(engine, extra, limits)

    return [
        _function_result(
            function,
            code[i],
            kept_pairs[i],
            dropped[i] if i in stored.at else function.report.get("discarded") or {},
        )
        for i, function in enumerate(functions)
    ]


def _stored_drop(
    kind: str, probe: dict[str, Any] | None, pair: dict[str, Any], duplicate: bool
) -> str | None:
    """Why a stored pair is not kept (``None``: it is kept)."""
    if probe is None or kind in ("nondeterministic", "timeout", "exception", "missing_module"):
        return kind
    if kind == "non_finite_output" or not probe.get("json_ok"):
        return "non_finite_output" if kind == "non_finite_output" else "output_not_json"
    if probe.get("none"):
        return "output_none"
    if not probe.get("size_ok"):
        return "output_too_large"
    if not size_ok(pair["input"]):
        return "input_too_large"
    if duplicate:
        return "duplicate_input"
    return None
