"""The REval dataset (DREval): loading problems and questions, tracing every input, and
exporting traces in the JetBrains REval layout (configs ``executions`` and ``states``).

HumanEval problems (``DREval/0``–``84``) call ``entry_point`` with an argument tuple;
ClassEval problems (``85``–``153``) run, for input ``i``, the first ``test*`` method of the
``i``-th test class of ``test`` (REval's inputs are those method bodies, rewritten).
"""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import json
import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from execlens.engine import Engine, Job
from execlens.trace._api import TraceLimits, TraceRequest, trace_many
from execlens.trace._trace import Trace
from execlens.values import AnswerParseError, parse_literal, values_equal

__all__ = ["RevalInput", "RevalProblem", "RevalQuestion", "export_reval", "load_reval",
           "load_reval_tasks", "output_matches", "trace_reval"]

DATA_FILE = "DREval_data.jsonl"
TASKS_FILE = "DREval_tasks.jsonl"


class RevalFormatError(ValueError):
    """A DREval file is missing fields or is not JSONL."""


@dataclass(frozen=True)
class RevalInput:
    """One input of a problem: what to run, and (HumanEval) the recorded output."""

    problem: RevalProblem
    index: int
    text: str  # the dataset's input text (argument tuple, or rewritten test body)
    expected_output: str | None
    call: str | None = None
    test_class: str | None = None
    test_method: str | None = None

    @property
    def key(self) -> str:
        """``"DREval/12#3"``: problem id and input index."""
        return f"{self.problem.task_id}#{self.index}"

    def request(self, mode: str = "exact", limits: TraceLimits | None = None,
                hash_seed: int | None = None, capture: str = "full") -> TraceRequest:
        """The trace request for this input."""
        problem = self.problem
        return TraceRequest(program=problem.code, call=self.call,
                            test=problem.test if self.test_class else None,
                            test_class=self.test_class, test_method=self.test_method,
                            mode=mode, capture=capture, limits=limits or TraceLimits(),
                            hash_seed=hash_seed, tag=self)


@dataclass(frozen=True)
class RevalProblem:
    """One DREval problem."""

    task_id: str
    index: int
    entry_point: str
    code: str
    raw_inputs: tuple[str, ...]
    raw_outputs: tuple[str, ...]
    test: str | None
    skip_reason: str | None = None
    inputs: tuple[RevalInput, ...] = field(default=(), compare=False, repr=False)

    @property
    def kind(self) -> str:
        """``"humaneval"`` or ``"classeval"``."""
        return "classeval" if self.test else "humaneval"

    @property
    def code_hash(self) -> str:
        """SHA-256 of the program source."""
        return hashlib.sha256(self.code.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class RevalQuestion:
    """One (line, variable) question of DREval_tasks.jsonl, for one input."""

    task_id: str
    input_index: int
    line: int  # 1-indexed
    var: str
    output_pred: str


def missing_modules(*sources: str | None) -> list[str]:
    """Top-level non-stdlib modules the sources import that are not installed here."""
    missing: list[str] = []
    for source in sources:
        if not source:
            continue
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            for name in names:
                top = name.split(".")[0]
                if top in sys.stdlib_module_names or top in missing:
                    continue
                if importlib.util.find_spec(top) is None:
                    missing.append(top)
    return missing


def _test_classes(test: str) -> list[tuple[str, str | None]]:
    """(class name, first test method name) of each class in a unittest source, in order."""
    out: list[tuple[str, str | None]] = []
    for node in ast.parse(test).body:
        if isinstance(node, ast.ClassDef):
            method = next((m.name for m in node.body
                           if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))
                           and m.name.startswith("test")), None)
            out.append((node.name, method))
    return out


def _resolve(path: str | Path, name: str) -> Path:
    path = Path(path)
    if path.is_dir():
        path = path / name
    if not path.is_file():
        raise FileNotFoundError(f"REval file not found: {path}")
    return path


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    rows = []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise RevalFormatError(f"{path}:{number}: not JSON: {exc}") from exc
    return rows


def load_reval(path: str | Path) -> list[RevalProblem]:
    """Load DREval problems from ``DREval_data.jsonl`` (or the directory holding it).

    Problems that import a module missing here get ``skip_reason`` ("needs gensim ...").
    """
    problems = []
    for number, row in enumerate(_read_jsonl(_resolve(path, DATA_FILE))):
        try:
            task_id, code, inputs = row["task_id"], row["code"], row["inputs"]
            entry_point, outputs, test = row["entry_point"], row.get("outputs") or [], row.get(
                "test")
        except KeyError as exc:
            raise RevalFormatError(f"problem {number}: missing field {exc}") from exc
        missing = missing_modules(code, test)
        reason = (f"needs {', '.join(missing)} (not installed)" if missing else None)
        problem = RevalProblem(task_id=task_id, index=int(task_id.rsplit("/", 1)[-1]),
                               entry_point=entry_point, code=code, raw_inputs=tuple(inputs),
                               raw_outputs=tuple(outputs), test=test, skip_reason=reason)
        built: list[RevalInput] = []
        classes = _test_classes(test) if test else []
        for i, text in enumerate(inputs):
            if test:
                if i >= len(classes) or classes[i][1] is None:
                    raise RevalFormatError(f"{task_id}: input {i} has no matching test class")
                built.append(RevalInput(problem, i, text, None, test_class=classes[i][0],
                                        test_method=classes[i][1]))
            else:
                built.append(RevalInput(problem, i, text,
                                        outputs[i] if i < len(outputs) else None,
                                        call=f"{entry_point}{text.strip()}"))
        object.__setattr__(problem, "inputs", tuple(built))
        problems.append(problem)
    return problems


def load_reval_tasks(path: str | Path) -> list[RevalQuestion]:
    """Load every (line, var) question of ``DREval_tasks.jsonl`` (or its directory)."""
    questions = []
    for row in _read_jsonl(_resolve(path, TASKS_FILE)):
        for pair in row["tasks"]:
            for task in pair["task"]:
                questions.append(RevalQuestion(row["task_id"], int(pair["input_idx"]),
                                               int(task["lineno"]), str(task["var"]),
                                               pair.get("output_pred", "")))
    return questions


def output_matches(trace: Trace, expected: str | None, engine: Engine | None = None
                   ) -> bool | None:
    """Whether a HumanEval trace returned the recorded output (None: nothing recorded).

    A recorded output that is an expression rather than a literal (``"(3 + 5, 3 * 5)"``)
    is evaluated in ``engine`` (never in the host); without an engine it cannot match.
    """
    if expected is None:
        return None
    if not trace.ok:
        return False
    try:
        reference = parse_literal(expected)
    except AnswerParseError:
        if engine is None:
            return False
        outcome = engine.run(Job(program="", call=expected))
        if not outcome.ok:
            return False
        reference = outcome.decoded()
    return values_equal(trace.output, reference, mode="exact")


def trace_reval(engine: Engine, problems: Sequence[RevalProblem], mode: str = "exact", *,
                limits: TraceLimits | None = None, progress: bool = False,
                hash_seed: int | None = None) -> Iterator[tuple[RevalInput, Trace | None]]:
    """Trace every input of every problem; skipped problems yield ``(input, None)``."""
    runnable: list[TraceRequest] = []
    order: list[RevalInput] = []
    for problem in problems:
        for item in problem.inputs:
            order.append(item)
            if problem.skip_reason is None:
                runnable.append(item.request(mode, limits, hash_seed))
    traces = {id(t.tag): t for t in trace_many(engine, runnable, progress=progress)}
    for item in order:
        yield item, traces.get(id(item))


def execution_record(item: RevalInput, trace: Trace | None) -> dict[str, Any]:
    """One row of the ``executions`` config."""
    problem = item.problem
    record: dict[str, Any] = {
        "task_id": problem.task_id, "idx": problem.index, "input_idx": item.index,
        "problem_type": problem.kind, "input": item.text,
        "expected_output": item.expected_output, "code_hash": problem.code_hash,
    }
    if trace is None:
        record.update(actual_output=None, status="skipped", trace=[], coverage=[],
                      num_states=0, error=problem.skip_reason, mode=None, truncated=None)
        return record
    record.update(
        actual_output=trace.output_envelope, status=trace.status, trace=trace.lines,
        coverage=trace.coverage, num_states=len(trace.steps),
        error=(f"{trace.exception_type}: {trace.exception_message}"
               if trace.exception_type else (trace.message or None)),
        mode=trace.mode, truncated=trace.truncated)
    return record


def states_record(item: RevalInput, trace: Trace | None) -> dict[str, Any]:
    """One row of the ``states`` config (``states`` is a JSON string, as upstream)."""
    problem = item.problem
    states = trace.reval_states() if trace is not None else []
    return {"task_id": problem.task_id, "idx": problem.index, "input_idx": item.index,
            "states": json.dumps(states, ensure_ascii=False, separators=(",", ":"))}


def export_reval(results: Iterable[tuple[RevalInput, Trace | None]], out_dir: str | Path
                 ) -> dict[str, int]:
    """Write ``executions.jsonl`` and ``states.jsonl`` into ``out_dir``; returns counts."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    counts = {"executions": 0, "skipped": 0, "ok": 0}
    with (out / "executions.jsonl").open("w", encoding="utf-8") as executions, \
            (out / "states.jsonl").open("w", encoding="utf-8") as states:
        for item, trace in results:
            executions.write(json.dumps(execution_record(item, trace), ensure_ascii=False)
                             + "\n")
            states.write(json.dumps(states_record(item, trace), ensure_ascii=False) + "\n")
            counts["executions"] += 1
            counts["skipped"] += trace is None
            counts["ok"] += bool(trace is not None and trace.ok)
    return counts
