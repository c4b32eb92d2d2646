"""Meaning-preserving program edits, in the style of CodeCrash (robustness transforms).

A perturbation rewrites a program's *surface* -- names, layout, dead code, comments,
prints -- and keeps what it computes, so a model that reasons about execution answers the
same and one that pattern-matches surface features does not.  Everything here is pure
(stdlib ``ast``/``random``): it never runs the program.  Whether a rewrite really kept
the behaviour is proved elsewhere, by re-executing both programs in the engine
(``execlens.bench``'s ``--perturb`` runner); a rewrite that changed behaviour is dropped
and counted there, never trusted.

Kinds (:data:`KINDS`, in an order that loses none of them):

* ``rename``: local variables and parameters of every function get misleading names
  (other plausible variable names, shuffled); globals, attributes, keyword-argument
  names, ``global`` names, names a nested class binds and functions that read their own
  namespace (``locals()``, ``eval``, ...) are left alone;
* ``garbage``: dead code in function bodies -- ``if False:`` blocks, ``while False:``
  loops and assignments to fresh, never-read names;
* ``prints``: misleading ``print`` calls before statements (CodeCrash's kind: text to
  stdout).  The benchmarks judge returned values, not stdout, so the re-execution check
  compares values and exceptions and, for this kind only, not stdout;
* ``invert``, ``loops``, ``deadbranch``: control-flow rewrites (``_flow``): inverted
  conditions with their branches swapped, ``for`` loops driven by an explicit iterator in
  a ``while``, statements wrapped in an always-true ``if`` whose ``else`` is dead;
* ``reformat``: the canonical ``ast.unparse`` layout (quotes, spacing, parentheses,
  comments dropped), one element per line inside brackets, blank lines after blocks;
* ``comments``: misleading comments before statements (claims about what they do),
  inserted into the text as it is.

``reformat`` and ``comments`` are **layout checks** (:data:`LAYOUT_KINDS`): the program
they produce parses back to the very tree of the original (:func:`parsed_form` is the
same), so a model that reads the code's structure sees nothing change.  They measure
sensitivity to layout, not robustness; the tree kinds change what is parsed.

Every kind but ``comments`` writes the program out again through ``ast.unparse``: it is
re-laid out, and an earlier ``reformat``'s layout or ``comments``' text is gone
(:func:`order_problem` names such an order).  Line numbers move: :func:`perturb_program`
returns, with the text, a line map (original line -> perturbed line, read from the
statements; see ``_lines``) so that questions naming lines (REval, the runtime
benchmark's coverage/path/state) can be asked about the same statement in the perturbed
program; a line that no longer is a line of its own (split apart, or not a statement's
first line) maps to nothing.

Deterministic: the same ``(source, kind, seed)`` gives the same text (``random.Random``
seeded with a string hashes it with SHA-512, independent of ``PYTHONHASHSEED``).
"""

from __future__ import annotations

from ._kinds import (
    KINDS,
    LAYOUT_KINDS,
    Perturbed,
    PerturbError,
    order_problem,
    parsed_form,
    perturb_program,
    perturb_source,
    protected_names,
    spelled_names,
)
from ._lines import compose_lines

__all__ = [
    "KINDS",
    "LAYOUT_KINDS",
    "PerturbError",
    "Perturbed",
    "compose_lines",
    "order_problem",
    "parsed_form",
    "perturb_program",
    "perturb_source",
    "protected_names",
    "spelled_names",
]
