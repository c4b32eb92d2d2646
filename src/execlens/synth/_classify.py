"""Why a stored pair does or does not reproduce (the ``collect`` stage's pair classes).

A stored pair is re-executed in a fresh child, and again under a second hash seed.  Each
class is a rule we can check, in this order:

``timeout`` / ``missing_module`` / ``exception``
    the first run failed;
``nondeterministic``
    the two runs (other hash seed, other randomness) disagree, or (for a pair no
    earlier rule explains) more hash seeds move its output; static flags on the code
    (it reads the clock, it draws random numbers) explain nothing by themselves: a
    function that seeds its own generator reproduces and is classified by execution;
``reproduces``
    the same JSON as stored;
``float_rounding``
    equal to the stored output within the ``tolerant`` rule (another numpy/libm summed
    the floats in another order);
``non_finite_output``
    the same value, but it holds ``inf``/``nan``: the reference wrote non-standard JSON
    (``Infinity``), which our pairs do not carry;
``mutated_input``
    the call changes its input, seen on this run or in the code
    (:func:`mutated_parameters`): the reference stored the input after the call;
``state_leak``
    running the function's stored inputs one after another in one process, as the
    reference did, gives other outputs than fresh processes: calls share state
    (memo tables, globals);
``other``
    none of the above.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from execlens.values import values_equal

if TYPE_CHECKING:
    from execlens.engine import Engine, Limits, Outcome

__all__ = [
    "EXTRA_SEEDS",
    "PAIR_CLASSES",
    "StoredFunction",
    "canonical",
    "classify_stored_pairs",
    "failure_class",
    "fingerprint",
    "module_name",
]

PAIR_CLASSES = (
    "reproduces",
    "float_rounding",
    "non_finite_output",
    "nondeterministic",
    "mutated_input",
    "state_leak",
    "missing_module",
    "timeout",
    "exception",
    "other",
)

# Hash seeds tried on pairs no other rule explains, on every pair of a generator-driven
# function, and on functions whose code reads the clock or randomness (the determinism
# check used two).
EXTRA_SEEDS = (2, 3, 4, 5)


def module_name(message: str) -> str:
    """``scipy`` from "No module named 'scipy.linalg'" (the message when it is not that)."""
    match = re.search(r"No module named '([\w.]+)'", message or "")
    return match.group(1).split(".")[0] if match else (message or "unknown")


def canonical(value: Any) -> str:
    """Sorted JSON text (``Infinity`` allowed), the form pairs are compared in."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def fingerprint(outcome: Outcome) -> tuple[Any, ...]:
    """What a run produced, comparable across runs."""
    probe = outcome.decoded() if outcome.ok else None
    if probe is None:
        exc = outcome.exception
        return (outcome.status.value, exc.type if exc else None)
    return ("ok", canonical(probe.get("output")), probe.get("json_ok"))


def failure_class(outcome: Outcome) -> str:
    """The class of a run that did not finish: ``timeout``, ``missing_module`` or
    ``exception``."""
    from execlens.engine import Status

    if outcome.status is Status.TIMEOUT:
        return "timeout"
    exc = outcome.exception
    if exc is not None and exc.type in ("ModuleNotFoundError", "ImportError"):
        return "missing_module"
    return "exception"


@dataclass(frozen=True)
class StoredFunction:
    """One function's stored pairs and their two runs."""

    refcode: str
    pairs: Sequence[dict[str, Any]]
    first: Sequence[Outcome]
    second: Sequence[Outcome]
    flags: Sequence[str]  # code flags: reads_time, unseeded_randomness (advisory)
    mutates: bool  # the code changes a parameter in place
    id: str = ""  # the function's record id: the runs' random seeds derive from it


def _first_pass(function: StoredFunction) -> list[str]:
    mutated_somewhere = function.mutates or any(
        o.ok and (o.decoded() or {}).get("mutated") for o in function.first
    )
    classes = []
    for pair, first, second in zip(function.pairs, function.first, function.second):
        classes.append(_classify(pair, first, second, mutated_somewhere))
    return classes


def _classify(pair: dict[str, Any], first: Outcome, second: Outcome, mutates: bool) -> str:
    if not first.ok:
        return failure_class(first)
    if fingerprint(first) != fingerprint(second):
        return "nondeterministic"
    probe = first.decoded() or {}
    stored = pair.get("output")
    if probe.get("json_ok"):
        if canonical(probe["output"]) == canonical(stored):
            return "reproduces"
        if values_equal(probe["output"], stored, mode="tolerant"):
            return "float_rounding"
    elif probe.get("loose_json") is not None and probe["loose_json"] == canonical(stored):
        return "non_finite_output"
    if mutates:
        return "mutated_input"
    return "other"


def classify_stored_pairs(
    engine: Engine, functions: Sequence[StoredFunction], limits: Limits
) -> tuple[list[list[str]], list[bool]]:
    """Each stored pair's class, and per function whether a pair's output moved under
    another hash seed (the function is then nondeterministic).

    Pairs the first pass leaves as ``other`` are run again under :data:`EXTRA_SEEDS`,
    and their functions' stored inputs are replayed in one process."""
    from execlens.engine import Job
    from execlens.synth._collect import stable_seed
    from execlens.synth._programs import probe_program, replay_program

    classes = [_first_pass(function) for function in functions]
    open_pairs = [
        (f, k) for f, kinds in enumerate(classes) for k, kind in enumerate(kinds) if kind == "other"
    ]
    moved = [any(kind == "nondeterministic" for kind in kinds) for kinds in classes]
    if not open_pairs:
        return classes, moved
    seed_jobs = [
        Job(
            program=probe_program(functions[f].refcode),
            entry_point="__synth_probe__",
            kwargs={"given": functions[f].pairs[k]["input"]},
            hash_seed=seed,
            limits=limits,
            seed=stable_seed("extra", seed, functions[f].id, k),
        )
        for f, k in open_pairs
        for seed in EXTRA_SEEDS
    ]
    replayed = sorted({f for f, _ in open_pairs})
    replay_jobs = [
        Job(
            program=replay_program(functions[f].refcode),
            entry_point="__synth_replay__",
            kwargs={"inputs": [p["input"] for p in functions[f].pairs]},
            limits=limits.with_(wall_time=_replay_seconds(limits, functions[f])),
            seed=stable_seed("replay", functions[f].id),
        )
        for f in replayed
    ]
    outcomes = list(engine.map([*seed_jobs, *replay_jobs]))
    seed_outcomes, replay_outcomes = outcomes[: len(seed_jobs)], outcomes[len(seed_jobs) :]
    replays = dict(zip(replayed, replay_outcomes))
    for index, (f, k) in enumerate(open_pairs):
        first = functions[f].first[k]
        tries = seed_outcomes[index * len(EXTRA_SEEDS) : (index + 1) * len(EXTRA_SEEDS)]
        if any(fingerprint(o) != fingerprint(first) for o in tries):
            classes[f][k] = "nondeterministic"
            moved[f] = True
        elif _leaks_state(replays[f], first, k):
            classes[f][k] = "state_leak"
    return classes, moved


def _replay_seconds(limits: Limits, function: StoredFunction) -> float:
    """Every input's own limit, in one process; at most an hour."""
    return min(limits.wall_time * max(1, len(function.pairs)), 3600.0)


def _leaks_state(replay: Outcome, fresh: Outcome, position: int) -> bool:
    """Whether the in-process replay gave pair ``position`` another result than its fresh
    run did."""
    if not replay.ok:
        return False
    results = replay.decoded() or []
    probe = fresh.decoded() or {}
    if probe.get("json_ok"):
        fresh_text = canonical(probe.get("output"))
    elif probe.get("loose_json") is not None:
        fresh_text = probe["loose_json"]
    else:
        fresh_text = "repr:" + str(probe.get("output"))
    return position < len(results) and results[position] != fresh_text
