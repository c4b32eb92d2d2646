"""The kinds a perturbation run may take: known ones, in an order that loses none.

Both runners (:func:`~execlens.bench.perturb_programs` for output questions,
:func:`~execlens.bench.perturb_traced` for line questions) and ``--perturb``'s parser
check through :func:`check_kinds`, so a caller of the API gets the refusal the CLI
gives rather than counts for a kind whose effect a later one erased.
"""

from __future__ import annotations

from collections.abc import Sequence

from execlens.tasks.perturb import KINDS, order_problem

__all__ = ["PERTURB_KINDS", "PerturbUnsupported", "check_kinds"]

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
