"""Detect nondeterministic programs: two fresh runs under different hash seeds."""

from __future__ import annotations

import json
from dataclasses import dataclass, replace

from execlens.engine._engine import Engine
from execlens.engine._types import Job, Outcome

__all__ = ["DeterminismReport", "check_determinism"]


@dataclass
class DeterminismReport:
    """Whether two runs of one job agree, and where they differ if not."""

    deterministic: bool
    outcomes: tuple[Outcome, Outcome]
    differences: list[str]


def _fingerprint(outcome: Outcome) -> dict[str, object]:
    return {
        "status": outcome.status.value,
        "value": json.dumps(outcome.value, sort_keys=True),
        "stdout": outcome.stdout,
        "exception": None
        if outcome.exception is None
        else (outcome.exception.type, outcome.exception.message),
    }


def check_determinism(
    engine: Engine, job: Job, seeds: tuple[int, int] = (0, 1)
) -> DeterminismReport:
    """Run ``job`` in two fresh children whose servers use different hash seeds.

    Each server also seeds ``random`` independently at start-up, so unseeded randomness
    and set/dict-order dependence on string hashes both show up as a difference.
    """
    if seeds[0] == seeds[1]:
        raise ValueError("the two hash seeds must differ")
    first = engine.submit(replace(job, hash_seed=seeds[0]))
    second = engine.submit(replace(job, hash_seed=seeds[1]))
    a, b = first.result(), second.result()
    fa, fb = _fingerprint(a), _fingerprint(b)
    differences = [key for key in fa if fa[key] != fb[key]]
    return DeterminismReport(not differences, (a, b), differences)
