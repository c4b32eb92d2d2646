"""``--perturb`` for the runtime benchmark: each question follows its line into the
perturbed program and its truth is traced again there.

Each run's program is perturbed once (every question about the run sees the same
program): renaming keeps the names of the variables any state question about the run
asks (and keyword names its call or test spells outside the program).  A question's
line is mapped through the perturbation's line map; one whose line is no line of its own
any more is dropped under the kind that split it.

The truth is rebuilt by the benchmark's own truth code (``tasks.tasks_for_trace``, the
exact tracer, as the benchmark's truth is traced) on the perturbed run at the mapped
line, and must equal the original's for every kept item: how the run ended (status,
value, exception) and what it printed (but after ``prints``); for line questions whether
the line ran; for state questions the variable's values after it.  Input questions share
the output's truth.  Two truths legitimately move with the layout and are taken from the
perturbed run: the next line after a line (code inserted after it runs in between) and a
full trace's line list (how many moved is counted).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, cast

from execlens.bench import Observed, TracedTarget, Variant
from execlens.tasks import RuntimeProgram, RuntimeTask, tasks_for_trace
from execlens.tasks.perturb import protected_names, spelled_names

from ._items import RuntimeItem
from ._truth import TRACE_MODE, run_key

if TYPE_CHECKING:
    from execlens.engine import Engine

__all__ = ["RuntimePerturbation"]


@dataclass(frozen=True)
class _Rebuilt:
    """What a kept item needs from its perturbed run."""

    source: str
    line: int | None
    code_line: str | None
    reference: Any


def _reference(
    program: RuntimeProgram, trace: Any, task: RuntimeTask, line: int | None
) -> RuntimeTask | None:
    """``task``'s question about ``program``'s run at ``line``, with its truth, built by
    the truth code the benchmark's own questions come from (``None``: none can be)."""
    kind = "output" if task.kind == "input" else task.kind  # input: the output's truth
    # A coverage or path question names no variable: "given" sites take (line, None).
    questions = cast("tuple[tuple[int, str], ...]", ((line, task.var),) if line is not None else ())
    built = tasks_for_trace(replace(program, questions=questions), trace, "given", kinds=(kind,))
    return built[0] if built else None


class RuntimePerturbation:
    """The runtime benchmark's observer for the ``--perturb`` runner (one per plan)."""

    def __init__(self, programs: Sequence[RuntimeProgram], tasks: Sequence[RuntimeTask]) -> None:
        self._runs = {run_key(p.problem_id, p.input_index): p for p in programs}
        asked: dict[str, set[str]] = {}
        for task in tasks:  # every state question of the run, whatever task is asked
            if task.var is not None:
                asked.setdefault(run_key(task.problem_id, task.input_index), set()).add(task.var)
        self._protect = {
            key: spelled_names(asked.get(key, ()))
            | protected_names([text for text in (program.call, program.test) if text])
            for key, program in self._runs.items()
        }
        self._traces: dict[tuple[str, str], Any] = {}

    def target(self, item: RuntimeItem) -> TracedTarget | str:
        """The item as the runner perturbs it, or why it cannot be."""
        task = item.task
        key = run_key(task.problem_id, task.input_index)
        if key not in self._runs:
            return "its run is not among the planned programs"
        lines = () if task.line is None else (int(task.line),)
        return TracedTarget(task.program, item, self, lines, self._protect[key])

    def _trace(self, variants: Sequence[Variant], engine: Engine) -> None:
        from execlens.tasks import trace_programs

        todo: dict[tuple[str, str], RuntimeProgram] = {}
        for variant in variants:
            task = variant.target.item.task
            key = (run_key(task.problem_id, task.input_index), variant.source)
            if key not in self._traces and key not in todo:
                todo[key] = replace(self._runs[key[0]], program=variant.source)
        traces = trace_programs(list(todo.values()), engine, mode=TRACE_MODE)
        by_program = {id(trace.tag): trace for trace in traces}
        for key, program in todo.items():
            self._traces[key] = by_program.get(id(program))

    def observe(self, variants: Sequence[Variant], engine: Engine) -> list[Observed | str]:
        """Each variant's truth for its item, read from the variant's traced run."""
        self._trace(variants, engine)
        return [self._observed(variant) for variant in variants]

    def _observed(self, variant: Variant) -> Observed | str:
        item: RuntimeItem = variant.target.item
        task = item.task
        key = run_key(task.problem_id, task.input_index)
        trace = self._traces.get((key, variant.source))
        if trace is None or not trace.recorded:
            return f"the traced run left no record ({getattr(trace, 'status', 'skipped')})"
        program = replace(self._runs[key], program=variant.source)
        line = None if task.line is None else variant.line(int(task.line))
        built = _reference(program, trace, task, line)
        if built is None:
            return f"no {task.kind} question can be asked about this run"
        output = _reference(program, trace, replace(task, kind="output"), None)
        facts: dict[str, Any] = {
            "output": output.reference if output else None,
            "stdout": trace.stdout,
        }
        relaid: dict[str, Any] = {}
        if line is not None:
            facts["coverage"] = trace.covered(line)
        if task.kind == "state":
            facts["state"] = built.reference
        elif task.kind == "path":
            relaid["path"] = frozenset(
                n if n == -1 else variant.original_line(n) for n in built.reference
            )
        elif task.kind == "trace":
            relaid["trace"] = tuple(variant.original_line(n) for n in built.reference)
        return Observed(
            facts, relaid, _Rebuilt(variant.source, line, built.code_line, built.reference)
        )

    def rebuild(self, variant: Variant, observed: Observed) -> RuntimeItem:
        """The item asked about the perturbed program: line mapped, truth traced there."""
        item: RuntimeItem = variant.target.item
        new: _Rebuilt = observed.payload
        task = replace(
            item.task,
            program=new.source,
            line=new.line,
            code_line=new.code_line,
            reference=new.reference,
        )
        return replace(item, task=task)

    def executed(self, items: Sequence[RuntimeItem]) -> dict[str, list[int]]:
        """The lines each run of ``items`` executed, in its (perturbed) program."""
        out: dict[str, list[int]] = {}
        for item in items:
            task = item.task
            key = run_key(task.problem_id, task.input_index)
            trace = self._traces.get((key, task.program))
            if trace is not None and key not in out:
                out[key] = [n for n in range(1, task.program.count("\n") + 2) if trace.covered(n)]
        return out
