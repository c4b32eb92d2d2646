"""The kinds a perturbation run may take (known ones, in an order that loses none), and
what a run counts of each.

Both runners (:func:`~execlens.bench.perturb_programs` for output questions,
:func:`~execlens.bench.perturb_traced` for line questions) and ``--perturb``'s parser
check through :func:`check_kinds`, so a caller of the API gets the refusal the CLI
gives rather than counts for a kind whose effect a later one erased; both count what
each kind did in a :class:`KindTally`, so ``results.json`` has one shape for them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from execlens.tasks.perturb import KINDS, LAYOUT_KINDS, order_problem, parsed_form

__all__ = ["PERTURB_KINDS", "KindTally", "PerturbUnsupported", "check_kinds"]

#: The kinds ``--perturb`` accepts.
PERTURB_KINDS = KINDS


class PerturbUnsupported(ValueError):
    """A benchmark (or task) that cannot take ``--perturb``, or an unknown kind or order."""


def check_kinds(kinds: Sequence[str]) -> tuple[str, ...]:
    """``kinds`` as a tuple, or :class:`PerturbUnsupported` naming the kinds for an
    unknown one, and naming an order that keeps both for an order in which a later kind
    would erase an earlier one's layout (``comments`` before ``garbage``)."""
    for kind in kinds:
        if kind not in PERTURB_KINDS:
            raise PerturbUnsupported(
                f"unknown perturbation {kind!r}: --perturb takes {', '.join(PERTURB_KINDS)}"
            )
    problem = order_problem(kinds)
    if problem is not None:  # a kind counted as applied whose effect is gone
        raise PerturbUnsupported(f"--perturb {','.join(kinds)}: {problem}")
    return tuple(kinds)


@dataclass
class KindTally:
    """What each kind of a perturbation run did: applied (the item kept its behaviour
    under it), dropped by reason, had nothing to change; items whose original could not
    be observed; kept items whose layout-bound facts were recomputed.  Per kind also: how
    many programs it rewrote (``perturbed``), how many of those still differ from the
    program before it after ``ast.parse`` + ``ast.unparse`` (``differs_after_unparse``:
    0 for a layout check, whose program parses back to the same tree), and whether it
    is a layout check (``layout_check``)."""

    kinds: Sequence[str]
    applied: Counter[str] = field(default_factory=Counter)
    dropped: dict[str, Counter[str]] = field(default_factory=dict)
    not_applicable: Counter[str] = field(default_factory=Counter)
    unverifiable: Counter[str] = field(default_factory=Counter)
    recomputed: Counter[str] = field(default_factory=Counter)
    perturbed: Counter[str] = field(default_factory=Counter)
    reparsed_differs: Counter[str] = field(default_factory=Counter)

    def drop(self, kind: str, reason: str) -> None:
        """Count an item dropped under ``kind`` for ``reason``."""
        self.dropped.setdefault(kind, Counter())[reason] += 1

    def staged(self, kind: str, before: str, after: str) -> None:
        """Count a program ``kind`` rewrote, and whether what it changed survives
        ``ast.parse`` + ``ast.unparse`` (a layout-only change does not)."""
        self.perturbed[kind] += 1
        if parsed_form(before) != parsed_form(after):
            self.reparsed_differs[kind] += 1

    def summary(self, seed: int, results: Sequence[Any]) -> dict[str, Any]:
        """The counts ``results.json`` records under ``perturbation`` (``results``: one
        entry per item, None for a dropped one)."""
        summary: dict[str, Any] = {
            "kinds": list(self.kinds),
            "seed": seed,
            "items": len(results),
            "kept": sum(1 for r in results if r is not None),
            "dropped": sum(1 for r in results if r is None),
            "per_kind": {
                kind: {
                    "layout_check": kind in LAYOUT_KINDS,
                    "perturbed": self.perturbed[kind],
                    "differs_after_unparse": self.reparsed_differs[kind],
                    "applied": self.applied[kind],
                    "dropped": sum(self.dropped.get(kind, Counter()).values()),
                    "dropped_reasons": dict(sorted(self.dropped.get(kind, {}).items())),
                    "not_applicable": self.not_applicable[kind],
                }
                for kind in self.kinds
            },
        }
        if self.recomputed:  # kept items whose layout-bound truth came from the perturbed run
            summary["recomputed"] = dict(sorted(self.recomputed.items()))
        if self.unverifiable:
            summary["unverifiable"] = dict(sorted(self.unverifiable.items()))
        return summary
