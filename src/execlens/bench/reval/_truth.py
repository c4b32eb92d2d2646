"""REval ground truth for a run: trace each (problem, input) pair once per mode, answer
every question from that trace, keep it as plain data (and, optionally, on disk).

* ``official``: the ``frame-blind``-mode tracer (REval's reference tracer, bugs included).
  Coverage = the line was recorded; next lines = the line of the next recorded state for
  each occurrence (-1 after the last; ``{-1}`` for a line that never ran, as REval's
  ``get_next_line`` returns); state = REval's ``VarInterpreter`` over the states after
  each occurrence (:func:`execlens.bench.reval._var.reval_interpret`).
* ``strict``: the ``exact``-mode tracer (frame-aware, ``setUp`` traced, the state after a
  line read in its own frame); plus, for the output task, the values every ``??`` mask
  stands for (HumanEval: the call's return value; ClassEval: the masked expressions'
  values, recorded by running the original test body in the engine).

Problems whose code imports a module missing here (DREval/117 and /149 need gensim) are
not run: their pairs are listed in :attr:`RevalTruth.skipped` with the reason.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._masks import MaskError, instrumented_test_method, mask_sites
from ._records import (
    MaskTruth,
    OutputTruth,
    QuestionTruth,
    RevalContext,
    dedupe_envelopes,
)
from ._var import reval_interpret

if TYPE_CHECKING:
    from execlens.engine import Engine
    from execlens.trace import Trace

    from ._data import RevalItem, RevalPair, RevalProblem

__all__ = [
    "TRUTH_VERSION",
    "RevalTruth",
    "build_reval_truth",
    "reval_context",
]

# 2: a numpy.matrix is subscripted as REval's interpreter does (DREval/122 `ysum[0, i]`).
# 3: the executed lines of every pair's run (the report marks them beside the program).
TRUTH_VERSION = 3
TRACE_MODE = {"official": "frame-blind", "strict": "exact"}
_CHILD = "__import__('execlens.bench.reval._child', fromlist=['_'])"


@dataclass
class RevalTruth:
    """Every question's truth under one mode.

    ``questions`` is keyed by question id (``DREval/<n>/<input>/<k>``), ``outputs`` (strict
    only) by pair id (``DREval/<n>/<input>``).  ``skipped`` maps a pair id to why its
    questions cannot be answered here; ``notes`` records anything odd about a pair's run
    (a trace that raised, a test that failed while recording).  ``lines`` holds, per pair
    id, the 1-indexed lines of the code that ran (what this mode's coverage answers
    from): not needed to judge, but a reader of a failure sees the run beside the question.
    """

    mode: str
    questions: dict[str, QuestionTruth] = field(default_factory=dict)
    outputs: dict[str, OutputTruth] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)
    notes: dict[str, str] = field(default_factory=dict)
    lines: dict[str, tuple[int, ...]] = field(default_factory=dict)
    key: str = ""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form."""
        return {
            "version": TRUTH_VERSION,
            "mode": self.mode,
            "key": self.key,
            "questions": {k: v.to_dict() for k, v in self.questions.items()},
            "outputs": {k: v.to_dict() for k, v in self.outputs.items()},
            "skipped": dict(self.skipped),
            "notes": dict(self.notes),
            "lines": {k: list(v) for k, v in self.lines.items()},
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RevalTruth:
        """Rebuild from :meth:`to_dict` output."""
        if data.get("version") != TRUTH_VERSION:
            raise ValueError(
                f"REval truth version {data.get('version')!r} is not {TRUTH_VERSION}: rebuild it"
            )
        return cls(
            mode=data["mode"],
            key=data.get("key", ""),
            questions={k: QuestionTruth.from_dict(v) for k, v in data.get("questions", {}).items()},
            outputs={k: OutputTruth.from_dict(v) for k, v in data.get("outputs", {}).items()},
            skipped=dict(data.get("skipped", {})),
            notes=dict(data.get("notes", {})),
            lines={k: tuple(int(n) for n in v) for k, v in data.get("lines", {}).items()},
        )


# ------------------------------------------------------------------ problems
def _test_class(problem: RevalProblem, input_idx: int) -> tuple[str, str]:
    """(test class, its first test method) of a ClassEval input, as REval picks them."""
    return problem.tests[input_idx]


def reval_context(item: RevalItem) -> RevalContext:
    """The judge's view of a question or output item."""
    problem, pair = item.problem, item.pair
    test_class = None
    if problem.kind == "classeval":
        test_class = _test_class(problem, pair.input_idx)[0]
    question = item.question
    return RevalContext(
        kind=problem.kind,
        code=problem.code,
        entry_point=problem.entry_point,
        template=pair.output_pred,
        test=problem.test,
        test_class=test_class,
        line=None if question is None else question.lineno,
        var=None if question is None else question.var,
    )


def truth_content(problems: Sequence[RevalProblem], mode: str) -> list[Any]:
    """Everything the truth of ``mode`` is computed from (the cache's content): the truth
    version, the mode, and each problem's code, test, inputs and questions."""
    return [
        TRUTH_VERSION,
        mode,
        [
            [
                problem.task_id,
                problem.code,
                problem.test,
                list(problem.inputs),
                [
                    [p.input_idx, p.output_pred, [[q.lineno, q.var] for q in p.questions]]
                    for p in problem.pairs
                ],
            ]
            for problem in problems
        ],
    ]


# ------------------------------------------------------------------ tracing
def _request(problem: RevalProblem, pair: RevalPair, mode: str) -> Any:
    from execlens.trace import TraceRequest

    tag = (problem.task_id, pair.input_idx)
    if problem.kind == "classeval":
        name, method = _test_class(problem, pair.input_idx)
        return TraceRequest(
            program=problem.code,
            test=problem.test,
            test_class=name,
            test_method=method,
            mode=mode,
            tag=tag,
        )
    call = f"{problem.entry_point}{problem.inputs[pair.input_idx].strip()}"
    return TraceRequest(program=problem.code, call=call, mode=mode, tag=tag)


def executed_lines(trace: Trace, code: str) -> tuple[int, ...]:
    """The 1-indexed lines of ``code`` the run executed, as the trace's mode counts
    coverage (``reval``: a recorded state; ``exact``: a line event)."""
    return tuple(n for n in range(1, code.count("\n") + 2) if trace.covered(n))


def _official_question(trace: Trace, line: int, var: str) -> QuestionTruth:
    covered = trace.covered(line)
    if not covered:
        return QuestionTruth(False, (-1,), ())
    steps = trace.steps
    snapshots = []
    for step in trace.occurrences(line):
        after = steps[step.index + 1] if step.index + 1 < len(steps) else step
        snapshots.append(trace.locals_at(after))
    values = reval_interpret(var, snapshots, covered) or []
    return QuestionTruth(True, tuple(sorted(trace.next_lines(line))), dedupe_envelopes(values))


def _strict_question(trace: Trace, line: int, var: str) -> QuestionTruth:
    covered = trace.covered(line)
    following = sorted(trace.next_lines(line)) if covered else []
    values = [
        e
        for e in trace.state_envelopes(var, line)
        if e.get("__type__") != "Nil" or "__value__" in e
    ]
    return QuestionTruth(covered, tuple(following) or (-1,), dedupe_envelopes(values))


def _docstring_leak(problem: RevalProblem, pair: RevalPair) -> bool:
    template = pair.output_pred
    call = (
        template[len("assert ") : template.rfind("==")]
        if template.startswith("assert ")
        else template
    )
    squeeze = re.compile(r"\s+")
    return squeeze.sub("", call) in squeeze.sub("", problem.code)


def _humaneval_output(problem: RevalProblem, pair: RevalPair, trace: Trace) -> OutputTruth:
    leak = ("call_in_docstring",) if _docstring_leak(problem, pair) else ()
    if not trace.ok or trace.output_envelope is None:
        return OutputTruth(
            (),
            error=f"the call did not return: {trace.status} {trace.exception_type or ''}".strip(),
            leak=leak,
        )
    return OutputTruth((MaskTruth((trace.output_envelope,), assertion="=="),), leak=leak)


def _classeval_record_job(problem: RevalProblem, pair: RevalPair) -> Any:
    from execlens.engine import Job

    from ._official import OUTPUT_LIMITS

    name, _ = _test_class(problem, pair.input_idx)
    method = instrumented_test_method(pair.output_pred, problem.inputs[pair.input_idx])
    call = f"{_CHILD}.classeval_record(globals(), {problem.test!r}, {name!r}, {method!r})"
    return Job(program=problem.code, call=call, limits=OUTPUT_LIMITS)


def _classeval_output(problem: RevalProblem, pair: RevalPair, outcome: Any) -> OutputTruth:
    sites = mask_sites(pair.output_pred, problem.inputs[pair.input_idx])
    leak = tuple(sorted({s.leak for s in sites if s.leak}))
    if not outcome.ok or not isinstance(outcome.value, dict):
        return OutputTruth((), error=f"recording failed: {outcome.message}"[:300], leak=leak)
    data = json.loads(outcome.decoded())
    recorded: dict[str, list[dict[str, Any]]] = {}
    for key, envelope in data["records"]:
        recorded.setdefault(key, []).append(envelope)
    masks = []
    for site in sites:
        hidden = recorded.get(str(site.index), [])
        masks.append(
            MaskTruth(
                dedupe_envelopes(hidden),
                dedupe_envelopes(recorded.get(f"{site.index}:other", [])),
                assertion=site.assertion or "?",
                places=site.places,
                delta=site.delta,
                leak=site.leak,
            )
        )
    unrecorded = [m for m, mask in enumerate(masks) if not mask.hidden]
    error = ""
    if unrecorded:
        error = f"masks {unrecorded} never evaluated"
        if data.get("error"):
            error += f" (the test raised {data['error']})"
    return OutputTruth(tuple(masks), error=error, leak=leak)


def _trace_pairs(
    engine: Engine, problems: Sequence[RevalProblem], mode: str, progress: bool
) -> dict[tuple[str, int], Trace]:
    from execlens.trace import trace_many

    requests = [
        _request(problem, pair, TRACE_MODE[mode])
        for problem in problems
        if problem.skip_reason is None
        for pair in problem.pairs
    ]
    return {trace.tag: trace for trace in trace_many(engine, requests, progress=progress)}


def _build(
    engine: Engine, problems: Sequence[RevalProblem], mode: str, key: str, progress: bool
) -> RevalTruth:
    truth = RevalTruth(mode=mode, key=key)
    traces = _trace_pairs(engine, problems, mode, progress)
    record_jobs: list[tuple[RevalProblem, RevalPair]] = []
    for problem in problems:
        reason = problem.skip_reason
        for pair in problem.pairs:
            if reason is not None:
                truth.skipped[pair.sample_id] = reason
                continue
            trace = traces[(problem.task_id, pair.input_idx)]
            if not trace.recorded:
                truth.skipped[pair.sample_id] = (
                    f"the traced run left no record: {trace.status} {trace.message}"
                )[:300]
                continue
            if not trace.ok:
                truth.notes[pair.sample_id] = (
                    f"traced run ended with {trace.status}: {trace.exception_type or trace.message}"
                )[:300]
            truth.lines[pair.sample_id] = executed_lines(trace, problem.code)
            answer = _official_question if mode == "official" else _strict_question
            for index, question in enumerate(pair.questions):
                truth.questions[f"{pair.sample_id}/{index}"] = answer(
                    trace, question.lineno, question.var
                )
            if mode == "strict":
                if problem.kind == "humaneval":
                    truth.outputs[pair.sample_id] = _humaneval_output(problem, pair, trace)
                else:
                    record_jobs.append((problem, pair))
    if record_jobs:
        jobs = []
        for problem, pair in record_jobs:
            try:
                jobs.append(_classeval_record_job(problem, pair))
            except MaskError as error:
                truth.outputs[pair.sample_id] = OutputTruth((), error=str(error))
                jobs.append(None)
        runnable = [job for job in jobs if job is not None]
        outcomes = iter(engine.map(runnable, batch_size=8) if runnable else [])
        for (problem, pair), job in zip(record_jobs, jobs):
            if job is not None:
                truth.outputs[pair.sample_id] = _classeval_output(problem, pair, next(outcomes))
    return truth


def build_reval_truth(
    problems: Iterable[RevalProblem],
    engine: Engine,
    modes: Sequence[str] = ("official", "strict"),
    *,
    cache_dir: str | Path | None = None,
    progress: bool = False,
) -> dict[str, RevalTruth]:
    """The truth of every question of ``problems`` under each mode.

    Each (problem, input) pair is traced once per mode.  With ``cache_dir``, the truth is
    kept in ``reval-truth-<mode>-<content hash>.json`` and read back by later runs over
    the same data (the hash covers the problems, questions, mode, Python version and the
    program environment ``engine`` runs them under: its interpreter and packages).
    """
    from execlens.bench import TruthCache

    problems = list(problems)
    out: dict[str, RevalTruth] = {}
    # NumPy 1 or 2 changes REval's truth (np.mat): another interpreter is another key.
    program = TruthCache.program_of(engine)
    for mode in modes:
        if mode not in TRACE_MODE:
            raise ValueError(f"mode must be 'official' or 'strict', got {mode!r}")
        cache = TruthCache(f"reval-truth-{mode}", Path(cache_dir)) if cache_dir else None
        key = TruthCache.key(truth_content(problems, mode), program)
        cached = None if cache is None else cache.get(key, RevalTruth.from_dict)
        if cached is not None:
            out[mode] = cached
            continue
        out[mode] = _build(engine, problems, mode, key, progress)
        if cache is not None:
            cache.put(key, out[mode].to_dict())
    return out
