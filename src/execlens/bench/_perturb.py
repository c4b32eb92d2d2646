"""``--perturb``: robustness as a transform over any benchmark's planned items.

The transform itself (``execlens.tasks.perturb``) only rewrites source text and says
where each line went; this module makes it safe to score with:

1. the benchmark says what of an item may be rewritten and how its behaviour is observed:
   its optional ``perturb_target(item, task)`` hook returns a :class:`PerturbTarget`
   (the item's truth is what some calls return), a :class:`TracedTarget` (the truth is
   read from the program's traced run: lines, values, output), or a string saying why
   the item cannot take a perturbation;
2. each kind of ``kinds`` is applied in order, each on the previous one's output, and
   the line maps compose; a traced item whose asked line does not survive a kind as a
   line of its own is dropped under that kind (``line_unmapped``);
3. the original and the perturbed programs are re-executed in the engine and compared
   *in the host*: a call target's outcomes (decoded values, type-strict; exception types
   and messages; stdout), a traced target's facts (whatever its observer reads from the
   two runs, at the mapped lines: coverage, the variable's values, the output);
   stdout is not compared after ``prints``, whose whole point is writing to it;
4. an item whose perturbed program behaves differently is dropped (not asked) and counted
   under the first kind that changed it, with the reason; a kind that finds nothing to
   change in a program (no local to rename) passes the program on and is counted as
   ``not_applicable``.

The kept items are rebuilt around their perturbed program, so the model sees it and the
judges run it.  A call target's truth is the original's, proved unchanged by step 3.  A
traced target's truth is recomputed from the perturbed program's own run (the observer
builds it with the benchmark's truth code, in the benchmark's trace modes), and step 3
proves it equal to the original's wherever it must be; the facts that legitimately move
with the layout (the next line after a line: inserted code may run in between; a full
trace's line list) are taken from the perturbed run, and how many kept items had them
move is recorded (``recomputed``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from execlens.tasks.perturb import (
    PerturbError,
    perturb_source,
    protected_names,
)

from ._perturb_kinds import PERTURB_KINDS, KindTally, PerturbUnsupported, check_kinds
from ._perturb_traced import TracedTarget, perturb_traced

if TYPE_CHECKING:
    from execlens.engine import Engine, Outcome

    from ._base import Benchmark
    from ._protocol import Plan

__all__ = [
    "PerturbTarget",
    "parse_perturb_kinds",
    "perturb_plan",
    "perturb_programs",
]


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

    Raises :class:`PerturbUnsupported` naming the kinds for an unknown one, and for an
    order in which a later kind would erase an earlier one's layout (``comments`` before
    ``garbage``), naming an order that keeps both.
    """
    kinds: list[str] = []
    for value in values or ():
        for part in value.split(","):
            kind = part.strip()
            if not kind:  # ``--perturb ""`` or ``rename,,garbage``: no kind to apply
                raise PerturbUnsupported(
                    f"--perturb {value!r} names an empty perturbation: give one of "
                    f"{', '.join(PERTURB_KINDS)} (or leave --perturb out)"
                )
            if kind not in kinds:
                kinds.append(kind)
    return check_kinds(kinds)


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


def perturb_programs(
    targets: Sequence[PerturbTarget], kinds: Sequence[str], seed: int, engine: Engine
) -> tuple[list[str | None], dict[str, Any]]:
    """Each target's program perturbed by ``kinds`` and proved to behave the same.

    Returns the perturbed source per target (None: dropped, it changed behaviour or its
    original could not be observed) and the counts ``results.json`` records.
    """
    from execlens.engine import Job, Status

    kinds = check_kinds(kinds)
    cases: list[_Case] = []
    tally = KindTally(kinds)
    for target in targets:
        protect = protected_names(target.calls)
        source, stages = target.program, []
        for kind in kinds:
            try:
                changed = perturb_source(source, kind, seed, protect=protect)
            except PerturbError:
                tally.not_applicable[kind] += 1
                continue
            tally.staged(kind, source, changed)
            stages.append((kind, changed))
            source = changed
        cases.append(_Case(target, stages))

    def job(target: PerturbTarget, program: str, call: str) -> Job:
        module = f"{target.prelude}\n{program}" if target.prelude else program
        return Job(program=module, call=call, seed=0)

    # Originals and stages of one target are consecutive: the engine batches them.
    jobs = [
        job(case.target, source, call)
        for case in cases
        for source in [case.target.program, *(s for _, s in case.stages)]
        for call in case.target.calls
    ]
    outcomes = list(engine.map(jobs))
    results: list[str | None] = []
    position = 0
    for case in cases:
        calls = len(case.target.calls)
        original = outcomes[position : position + calls]
        position += calls
        staged = []
        for _ in case.stages:
            staged.append(outcomes[position : position + calls])
            position += calls
        bad = next(
            (o.status.value for o in original if o.status not in (Status.OK, Status.EXCEPTION)),
            None,
        )
        if bad is not None:  # a timeout or crash of the original: no behaviour to keep
            tally.unverifiable[bad] += 1
            results.append(None)
            continue
        printed = False
        verdict: str | None = case.target.program
        for (kind, source), outs in zip(case.stages, staged):
            printed = printed or kind == "prints"
            reason = next(
                (
                    r
                    for o, p in zip(original, outs)
                    if (r := _same(o, p, compare_stdout=not printed))
                ),
                None,
            )
            if reason is not None:
                tally.drop(kind, reason)
                verdict = None
                break
            tally.applied[kind] += 1
            verdict = source
        results.append(verdict)
    return results, tally.summary(seed, results)


def _add(first: Any, second: Any) -> Any:
    if isinstance(first, dict) and isinstance(second, dict):
        return {
            key: _add(first[key], second[key])
            if key in first and key in second
            else first.get(key, second.get(key))
            for key in {**first, **second}
        }
    if isinstance(first, int) and isinstance(second, int):
        return first + second
    return first


def _merge(first: dict[str, Any], second: dict[str, Any]) -> dict[str, Any]:
    """Two runners' counts as one (a plan mixing call and traced targets): the counts
    added, the kinds and seed as they are."""
    merged = dict(first)
    for key, value in second.items():
        merged[key] = (
            value
            if key not in merged
            else merged[key]
            if key in ("kinds", "seed")
            else _add(merged[key], value)
        )
    return merged


def perturb_plan(
    bench: Benchmark, plan: Plan, kinds: Sequence[str], seed: int, engine: Engine
) -> tuple[Plan, dict[str, Any]]:
    """``plan`` with every item's program perturbed; dropped items left out.

    Raises :class:`PerturbUnsupported` when ``bench`` has no ``perturb_target`` hook, or
    when none of the planned items can take a perturbation (the reasons named).  A
    benchmark with a ``perturbed(plan)`` hook is handed the new plan (its own state --
    the items its metrics read, the truth it registered -- follows it).
    """
    kinds = check_kinds(kinds)
    if bench.perturb_note is not None:
        raise PerturbUnsupported(f"{bench.name} does not support --perturb ({bench.perturb_note})")
    calls: list[PerturbTarget] = []
    traced: list[TracedTarget] = []
    where: list[tuple[str, int, int]] = []
    refused: Counter[str] = Counter()
    for task_index, (task, items) in enumerate(plan):
        for item_index, item in enumerate(items):
            target = bench.perturb_target(item, task)
            if isinstance(target, str):
                refused[target] += 1
            elif isinstance(target, TracedTarget):
                traced.append(target)
                where.append(("traced", task_index, item_index))
            else:
                calls.append(target)
                where.append(("calls", task_index, item_index))
    if not calls and not traced:
        reasons = "; ".join(f"{count} {reason}" for reason, count in refused.most_common())
        raise PerturbUnsupported(
            f"{bench.name}: no planned item can take --perturb ({reasons or 'nothing planned'})"
        )
    summaries = []
    rebuilt: dict[str, list[Any]] = {"calls": [], "traced": []}
    if calls:
        sources, summary = perturb_programs(calls, kinds, seed, engine)
        summaries.append(summary)
        for target, source in zip(calls, sources):
            if source is not None and not target.program.endswith("\n"):
                source = source.rstrip("\n")  # the layout the prompt had
            rebuilt["calls"].append(None if source is None else target.rebuild(source))
    if traced:
        items, summary = perturb_traced(traced, kinds, seed, engine)
        summaries.append(summary)
        rebuilt["traced"] = items
    summary = summaries[0] if len(summaries) == 1 else _merge(*summaries)
    kept: dict[tuple[int, int], Any] = {}
    position = {"calls": 0, "traced": 0}
    for family, task_index, item_index in where:
        item = rebuilt[family][position[family]]
        position[family] += 1
        if item is not None:
            kept[(task_index, item_index)] = item
    new_plan = [
        (task, [kept[(t, i)] for i in range(len(items)) if (t, i) in kept])
        for t, (task, items) in enumerate(plan)
    ]
    if refused:  # items the benchmark cannot perturb (not asked, named)
        summary["not_perturbable"] = dict(sorted(refused.items()))
    bench.perturbed(new_plan)
    return new_plan, summary
