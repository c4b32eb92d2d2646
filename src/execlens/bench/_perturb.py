"""``--perturb``: robustness as a transform over any benchmark's planned items.

The transform itself (``execlens.tasks.perturb``) only rewrites source text; this module
makes it safe to score with:

1. the benchmark says what of an item may be rewritten and how its behaviour is observed
   (its optional ``perturb_target(item, task)`` hook returns a :class:`PerturbTarget`, or
   a string saying why the item cannot take a perturbation);
2. each kind of ``kinds`` is applied in order, each on the previous one's output;
3. the original and every stage are re-executed in the engine (one batched
   ``Engine.map``) on the item's calls, and their outcomes compared *in the host* on
   decoded values (type-strict), exception types and messages, and stdout (except after
   ``prints``, whose whole point is writing to it);
4. an item whose perturbed program behaves differently is dropped (not asked) and counted
   under the first kind that changed it, with the reason; a kind that finds nothing to
   change in a program (no local to rename) passes the program on and is counted as
   ``not_applicable``.

The kept items are rebuilt around their perturbed program, so the model sees it and the
judges run it: ground truth is the original's, proved unchanged by step 3.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from execlens.tasks.perturb import KINDS, PerturbError, perturb_source, protected_names

if TYPE_CHECKING:
    from execlens.engine import Engine, Outcome

    from ._protocol import Benchmark, Plan

__all__ = [
    "PERTURB_KINDS",
    "PerturbTarget",
    "PerturbUnsupported",
    "parse_perturb_kinds",
    "perturb_plan",
    "perturb_programs",
]

#: The kinds ``--perturb`` accepts.
PERTURB_KINDS = KINDS


class PerturbUnsupported(ValueError):
    """A benchmark (or task) that cannot take ``--perturb``, or an unknown kind."""


@dataclass(frozen=True)
class PerturbTarget:
    """What of one item a perturbation rewrites, and how its behaviour is observed.

    ``program`` is the source the model is shown (rewritten); ``calls`` are expressions
    run after it whose outcomes must not change (``f('abc', 2)``); ``prelude`` is run
    before the program, unchanged (LiveCodeBench's imports); ``rebuild(source)`` is the
    item with ``source`` in place of its program.
    """

    program: str
    calls: tuple[str, ...]
    rebuild: Callable[[str], Any]
    prelude: str = ""


def parse_perturb_kinds(values: Sequence[str] | None) -> tuple[str, ...]:
    """``--perturb`` values (repeated or comma lists) as kinds in order, duplicates dropped.

    Raises :class:`PerturbUnsupported` naming the kinds for an unknown one.
    """
    kinds: list[str] = []
    for value in values or ():
        for part in value.split(","):
            kind = part.strip()
            if not kind:
                continue
            if kind not in PERTURB_KINDS:
                raise PerturbUnsupported(f"unknown perturbation {kind!r}: --perturb takes "
                                         f"{', '.join(PERTURB_KINDS)}")
            if kind not in kinds:
                kinds.append(kind)
    return tuple(kinds)


@dataclass
class _Case:
    target: PerturbTarget
    stages: list[tuple[str, str]]  # (kind, source after it); only kinds that changed it


def _same(original: Outcome, perturbed: Outcome, compare_stdout: bool) -> str | None:
    """Why ``perturbed`` is not the same behaviour as ``original`` (None: it is)."""
    from execlens.values import strict_equal

    if perturbed.status != original.status:
        return f"status_changed:{original.status.value}->{perturbed.status.value}"
    if original.exception is not None or perturbed.exception is not None:
        before, after = original.exception, perturbed.exception
        if before is None or after is None or before.type != after.type:
            return "exception_changed"
        if before.message != after.message:
            return "exception_message_changed"
    elif original.ok:
        try:
            equal = strict_equal(perturbed.decoded(), original.decoded())
        except Exception:  # noqa: BLE001 - an undecodable envelope proves nothing
            return "undecodable_value"
        if not equal:
            return "value_changed"
    if compare_stdout and perturbed.stdout != original.stdout:
        return "stdout_changed"
    return None


def perturb_programs(targets: Sequence[PerturbTarget], kinds: Sequence[str], seed: int,
                     engine: Engine) -> tuple[list[str | None], dict[str, Any]]:
    """Each target's program perturbed by ``kinds`` and proved to behave the same.

    Returns the perturbed source per target (None: dropped, it changed behaviour or its
    original could not be observed) and the counts ``results.json`` records.
    """
    from execlens.engine import Job, Status

    cases: list[_Case] = []
    not_applicable: Counter[str] = Counter()
    for target in targets:
        protect = protected_names(target.calls)
        source, stages = target.program, []
        for kind in kinds:
            try:
                changed = perturb_source(source, kind, seed, protect=protect)
            except PerturbError:
                not_applicable[kind] += 1
                continue
            stages.append((kind, changed))
            source = changed
        cases.append(_Case(target, stages))

    def job(target: PerturbTarget, program: str, call: str) -> Job:
        module = f"{target.prelude}\n{program}" if target.prelude else program
        return Job(program=module, call=call, seed=0)

    # Originals and stages of one target are consecutive: the engine batches them.
    jobs = [job(case.target, source, call)
            for case in cases
            for source in [case.target.program, *(s for _, s in case.stages)]
            for call in case.target.calls]
    outcomes = list(engine.map(jobs))
    applied: Counter[str] = Counter()
    dropped: dict[str, Counter[str]] = {kind: Counter() for kind in kinds}
    unverifiable: Counter[str] = Counter()
    results: list[str | None] = []
    position = 0
    for case in cases:
        calls = len(case.target.calls)
        original = outcomes[position:position + calls]
        position += calls
        staged = []
        for _ in case.stages:
            staged.append(outcomes[position:position + calls])
            position += calls
        bad = next((o.status.value for o in original
                    if o.status not in (Status.OK, Status.EXCEPTION)), None)
        if bad is not None:  # a timeout or crash of the original: no behaviour to keep
            unverifiable[bad] += 1
            results.append(None)
            continue
        printed = False
        verdict: str | None = case.target.program
        for (kind, source), outs in zip(case.stages, staged):
            printed = printed or kind == "prints"
            reason = next((r for o, p in zip(original, outs)
                           if (r := _same(o, p, compare_stdout=not printed))), None)
            if reason is not None:
                dropped[kind][reason] += 1
                verdict = None
                break
            applied[kind] += 1
            verdict = source
        results.append(verdict)
    summary: dict[str, Any] = {
        "kinds": list(kinds),
        "seed": seed,
        "items": len(targets),
        "kept": sum(1 for r in results if r is not None),
        "dropped": sum(1 for r in results if r is None),
        "per_kind": {kind: {"applied": applied[kind],
                            "dropped": sum(dropped[kind].values()),
                            "dropped_reasons": dict(sorted(dropped[kind].items())),
                            "not_applicable": not_applicable[kind]}
                     for kind in kinds},
    }
    if unverifiable:
        summary["unverifiable"] = dict(sorted(unverifiable.items()))
    return results, summary


def perturb_plan(bench: Benchmark, plan: Plan, kinds: Sequence[str], seed: int,
                 engine: Engine) -> tuple[Plan, dict[str, Any]]:
    """``plan`` with every item's program perturbed; dropped items left out.

    Raises :class:`PerturbUnsupported` when ``bench`` has no ``perturb_target`` hook, or
    when none of the planned items can take a perturbation (the reasons named).
    """
    hook = getattr(bench, "perturb_target", None)
    if hook is None:
        raise PerturbUnsupported(f"{bench.name} does not support --perturb "
                                 f"({getattr(bench, 'perturb_note', 'no perturb_target hook')})")
    targets: list[PerturbTarget] = []
    where: list[tuple[int, int]] = []
    refused: Counter[str] = Counter()
    for task_index, (task, items) in enumerate(plan):
        for item_index, item in enumerate(items):
            target = hook(item, task)
            if isinstance(target, str):
                refused[target] += 1
                continue
            targets.append(target)
            where.append((task_index, item_index))
    if not targets:
        reasons = "; ".join(f"{count} {reason}" for reason, count in refused.most_common())
        raise PerturbUnsupported(f"{bench.name}: no planned item can take --perturb "
                                 f"({reasons or 'nothing planned'})")
    sources, summary = perturb_programs(targets, kinds, seed, engine)
    kept: dict[tuple[int, int], Any] = {}
    for (task_index, item_index), target, source in zip(where, targets, sources):
        if source is not None:
            if not target.program.endswith("\n"):  # the layout the prompt had
                source = source.rstrip("\n")
            kept[(task_index, item_index)] = target.rebuild(source)
    new_plan = [(task, [kept[(t, i)] for i in range(len(items)) if (t, i) in kept])
                for t, (task, items) in enumerate(plan)]
    if refused:  # asked about lines every kind shifts, say (not asked, named)
        summary["not_perturbable"] = dict(sorted(refused.items()))
    return new_plan, summary
