"""``--perturb`` for items whose truth is read from a traced run (lines, values, output).

A call target (``_perturb``) is proved by what some calls return.  An item asking about
*lines* -- is line N executed, which line runs next, a variable's value after line N --
needs more: its line must be followed into the perturbed program (the kinds' line maps,
composed), and its truth read again from the perturbed program's run at the mapped line.
The benchmark supplies an :class:`Observer` that runs program variants and reads, per
item, the facts that must not move (compared here) and those that may (the next line:
code inserted after a line runs in between; counted here), and rebuilds a kept item
around its perturbed program with the truth it traced there.

Cost: the original and the *final* program of every item are observed; only an item
whose final program fails has its intermediate programs observed, to name the kind that
changed it (what a kept item shows the model is the final program: that is what the
proof is about).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, Protocol

from execlens.tasks.perturb import Perturbed, PerturbError, compose_lines, perturb_program

from ._perturb_kinds import KindTally, check_kinds

if TYPE_CHECKING:
    from execlens.engine import Engine

__all__ = ["Observed", "Observer", "TracedTarget", "Variant", "perturb_traced"]


@dataclass(frozen=True)
class Observed:
    """What an observer read from one program's run(s), for one item.

    ``facts`` must be equal (``==``, facet by facet) between the original and a kept
    perturbed program (a facet named ``stdout`` is not compared after ``prints``);
    ``relaid`` are facts that may legitimately move with the layout, written in the
    *original's* line numbers (an inserted line as ``None``) so that a move can be
    counted; ``payload`` is what :meth:`Observer.rebuild` needs (the recomputed truth).
    """

    facts: Mapping[str, Any]
    relaid: Mapping[str, Any] = field(default_factory=dict)
    payload: Any = None


@dataclass(frozen=True)
class Variant:
    """One program an observer runs for one item: the original (``stage`` 0, ``lines``
    None) or the program after the first ``stage`` applied kinds, with the line map."""

    target: TracedTarget
    source: str
    stage: int = 0
    lines: Mapping[int, int] | None = None

    def line(self, original: int) -> int:
        """Where ``original`` (one of the target's lines, or any line that survived)
        is in this program.  Raises ``KeyError`` for a line that did not survive."""
        return original if self.lines is None else self.lines[original]

    def original_line(self, line: int) -> int | None:
        """The original line that ``line`` of this program was, or None (inserted)."""
        if self.lines is None:
            return line
        return self._inverse.get(line)

    @cached_property
    def _inverse(self) -> dict[int, int]:
        return {new: old for old, new in (self.lines or {}).items()}


class Observer(Protocol):
    """A benchmark's way of running its items' programs and reading their truth."""

    def observe(self, variants: Sequence[Variant], engine: Engine) -> list[Observed | str]:
        """Per variant (same order): what its run(s) show for its item, or why nothing
        could be observed (a run that left no record)."""

    def rebuild(self, variant: Variant, observed: Observed) -> Any:
        """The item asked about ``variant``'s program (lines mapped, truth recomputed)."""


@dataclass(frozen=True)
class TracedTarget:
    """An item whose truth is read from its program's run (lines, values, output).

    ``lines`` are the original lines the item names (each must survive every kind);
    ``protect`` names a rename must keep (the variables questions name, keyword names
    spelled outside the program); ``observer`` runs and reads the program variants.
    Items sharing a program and ``protect`` get the same perturbed program.
    """

    program: str
    item: Any
    observer: Observer
    lines: tuple[int, ...] = ()
    protect: frozenset[str] = frozenset()


@dataclass
class _Staged:
    target: TracedTarget
    stages: list[Variant]  # one per kind that changed the program, in order
    kinds: list[str]  # the kind of each stage
    unmapped: str | None = None  # the kind after which an asked line was lost


def _stage(
    targets: Sequence[TracedTarget], kinds: Sequence[str], seed: int, tally: KindTally
) -> list[_Staged]:
    """Every target's perturbed programs, one per applied kind (line maps composed)."""
    memo: dict[tuple[str, str, frozenset[str]], Perturbed | None] = {}
    staged: list[_Staged] = []
    for target in targets:
        case = _Staged(target, [], [])
        source, lines = target.program, None
        for kind in kinds:
            key = (source, kind, target.protect)
            if key not in memo:  # the items of one program share its perturbations
                try:
                    memo[key] = perturb_program(source, kind, seed, protect=target.protect)
                except PerturbError:
                    memo[key] = None
            done = memo[key]
            if done is None:
                tally.not_applicable[kind] += 1
                continue
            tally.staged(kind, source, done.source)
            lines = compose_lines(lines, done.lines)
            source = done.source
            case.stages.append(Variant(target, source, len(case.stages) + 1, lines))
            case.kinds.append(kind)
            if any(line not in lines for line in target.lines):
                case.unmapped = kind
                break
        staged.append(case)
    return staged


def _observe(variants: Sequence[Variant], engine: Engine) -> list[Observed | str]:
    """Every variant observed, one ``observe`` call per observer (order kept)."""
    out: list[Observed | str] = ["not observed"] * len(variants)
    groups: dict[int, list[int]] = {}
    for index, variant in enumerate(variants):
        groups.setdefault(id(variant.target.observer), []).append(index)
    for indexes in groups.values():
        observer = variants[indexes[0]].target.observer
        for index, result in zip(indexes, observer.observe([variants[i] for i in indexes], engine)):
            out[index] = result
    return out


def _differs(original: Observed, perturbed: Observed | str, printed: bool) -> str | None:
    """Why ``perturbed`` does not show ``original``'s facts (None: it does)."""
    if isinstance(perturbed, str):
        return f"not_observed:{perturbed}"
    missing = object()
    for name, value in original.facts.items():
        if name == "stdout" and printed:
            continue
        if perturbed.facts.get(name, missing) != value:
            return f"{name}_changed"
    return None


def _attribute(
    failing: Mapping[int, str],
    staged: Sequence[_Staged],
    originals: Mapping[int, Observed | str],
    tally: KindTally,
    engine: Engine,
) -> None:
    """Count each failing item under the first kind whose program shows other facts
    (its intermediate programs observed now; the final one is known to differ)."""
    middle = [
        (index, position) for index in failing for position in range(len(staged[index].stages) - 1)
    ]
    seen = (
        dict(zip(middle, _observe([staged[i].stages[p] for i, p in middle], engine)))
        if middle
        else {}
    )
    for index, last in failing.items():
        case, original = staged[index], originals[index]
        assert isinstance(original, Observed)  # failing items had an observed original
        for position, kind in enumerate(case.kinds):
            why = (
                last
                if position == len(case.kinds) - 1
                else _differs(
                    original, seen[(index, position)], "prints" in case.kinds[: position + 1]
                )
            )
            if why is not None:
                tally.drop(kind, why)
                break
            tally.applied[kind] += 1


def perturb_traced(
    targets: Sequence[TracedTarget], kinds: Sequence[str], seed: int, engine: Engine
) -> tuple[list[Any], dict[str, Any]]:
    """Each target's item asked about its perturbed program, proved to show the same truth.

    Returns the rebuilt item per target (None: dropped -- an asked line lost, a fact
    moved -- or its original could not be observed) and the counts ``results.json``
    records (``line_questions``: how many items named a line; ``recomputed``: how many
    kept items had a layout-bound fact move, by fact).
    """
    kinds = check_kinds(kinds)
    tally = KindTally(kinds)
    staged = _stage(targets, kinds, seed, tally)
    live = []
    for index, case in enumerate(staged):
        if case.unmapped is None:
            live.append(index)
        else:
            tally.applied.update(case.kinds[:-1])
            tally.drop(case.unmapped, "line_unmapped")
    changed = [i for i in live if staged[i].stages]
    seen = _observe(
        [Variant(staged[i].target, staged[i].target.program) for i in live]
        + [staged[i].stages[-1] for i in changed],
        engine,
    )
    originals = dict(zip(live, seen[: len(live)]))
    finals = dict(zip(changed, seen[len(live) :]))
    results: list[Any] = [None] * len(staged)
    failing: dict[int, str] = {}
    for index in live:
        case, original = staged[index], originals[index]
        if isinstance(original, str):  # no record of the original: nothing to keep
            tally.unverifiable[original] += 1
            continue
        if not case.stages:  # no kind changed it: asked as it is
            results[index] = case.target.observer.rebuild(
                Variant(case.target, case.target.program), original
            )
            continue
        final = finals[index]
        why = _differs(original, final, "prints" in case.kinds)
        if why is not None or isinstance(final, str):
            failing[index] = why or "not_observed"
            continue
        tally.applied.update(case.kinds)
        tally.recomputed.update(
            name for name, value in original.relaid.items() if final.relaid.get(name) != value
        )
        results[index] = case.target.observer.rebuild(case.stages[-1], final)
    _attribute(failing, staged, originals, tally, engine)
    summary = tally.summary(seed, results)
    summary["line_questions"] = sum(1 for target in targets if target.lines)
    return results, summary
