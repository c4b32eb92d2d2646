"""REval (DREval): 154 problems and their questions.

Two layouts load the same records:

* the original (r-eval/REval ``data/``): ``DREval_data.jsonl`` (``task_id, entry_point,
  code, inputs, outputs, test``) and ``DREval_tasks.jsonl`` (``task_id, idx, tasks``);
* the JetBrains repackaging (HF ``JetBrains-Research/REval``, configs ``problems`` and
  ``tasks``; local ``problems.jsonl`` / ``tasks.jsonl``) where ``tasks`` is a JSON string.

DREval/0-84 are HumanEval functions (inputs are argument tuples ending in ``,)``),
DREval/85-153 ClassEval classes (one input = one test class of ``test``). Each
(problem, input) pair asks the output question once and coverage/path/state once per
``(lineno, var)``; line numbers are 1-indexed.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from execlens.bench import (
    DatasetError,
    DatasetUnavailableError,
    FieldError,
    LoadResult,
    RecordError,
    Row,
    check_int,
    check_str,
    check_str_list,
    hub_rows,
    parse_samples,
    read_records,
)
from execlens.tasks import skip_reason
from execlens.tasks.prompts import RenderedPrompt

from ._classeval import classeval_test_classes
from ._prompts import RevalPromptInput, render_reval

if TYPE_CHECKING:
    from execlens.trace import TraceLimits, TraceRequest

__all__ = [
    "REVAL_HUB",
    "RevalItem",
    "RevalPair",
    "RevalProblem",
    "RevalDataError",
    "RevalQuestion",
    "RevalRun",
    "load_reval",
    "load_reval_problems",
    "reval_pairs",
    "reval_questions",
]

#: REval's data files shipped with execlens (MIT; see ``data/SOURCE.txt``).
PACKAGED_DATA = Path(__file__).resolve().parent / "data"

REVAL_HUB = "JetBrains-Research/REval"
HUMANEVAL_RANGE = range(85)  # REval's DREval.HUMANEVAL_START..END
CLASSEVAL_RANGE = range(85, 154)
_LAYOUTS = (("DREval_data.jsonl", "DREval_tasks.jsonl"), ("problems.jsonl", "tasks.jsonl"))


@dataclass(frozen=True)
class RevalQuestion:
    """One runtime question: a 1-indexed line and the variable the state task asks about."""

    lineno: int
    var: str


@dataclass(frozen=True)
class RevalPair:
    """The questions of one (problem, input) pair."""

    task_id: str
    input_idx: int
    questions: tuple[RevalQuestion, ...]
    output_pred: str

    @property
    def sample_id(self) -> str:
        """Stable id of the pair (the output question): ``DREval/<n>/<input_idx>``."""
        return f"{self.task_id}/{self.input_idx}"


@dataclass(frozen=True)
class RevalProblem:
    """One DREval problem with its pairs attached."""

    task_id: str
    idx: int
    entry_point: str
    code: str
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    test: str | None
    pairs: tuple[RevalPair, ...] = ()
    setups: tuple[str | None, ...] = field(default=(), repr=False)
    """ClassEval: the ``setUp`` source of each input's test class (None: unittest's own)."""
    tests: tuple[tuple[str, str], ...] = field(default=(), repr=False)
    """ClassEval: ``(test class, its first test method)`` of each input, REval's one rule
    (:func:`classeval_test_classes`)."""
    skip_reason: str | None = None
    """Why the problem cannot run here (``"needs gensim (not installed)"``), or None."""

    @property
    def code_hash(self) -> str:
        """SHA-256 of the program source."""
        return hashlib.sha256(self.code.encode("utf-8")).hexdigest()

    @property
    def runs(self) -> tuple[RevalRun, ...]:
        """One run per input (what the tracer executes), in input order."""
        return tuple(RevalRun(self, i) for i in range(len(self.inputs)))

    @property
    def kind(self) -> Literal["humaneval", "classeval"]:
        """``humaneval`` for DREval/0-84, ``classeval`` for DREval/85-153."""
        if self.idx in HUMANEVAL_RANGE:
            return "humaneval"
        if self.idx in CLASSEVAL_RANGE:
            return "classeval"
        return "humaneval" if self.test is None else "classeval"

    @property
    def sample_id(self) -> str:
        """The problem's ``task_id`` (``DREval/<n>``)."""
        return self.task_id

    def prompt_input(self, pair: RevalPair) -> RevalPromptInput:
        """What REval's prompts show for ``pair`` of this problem."""
        setup = self.setups[pair.input_idx] if self.kind == "classeval" and self.setups else None
        return RevalPromptInput(
            kind=self.kind,
            code=self.code,
            entry_point=self.entry_point,
            input=self.inputs[pair.input_idx],
            output_pred=pair.output_pred,
            setup=setup,
        )


@dataclass(frozen=True)
class RevalRun:
    """One input of a problem as the tracer runs it: a call (HumanEval) or the first
    ``test*`` method of the input's test class (ClassEval)."""

    problem: RevalProblem
    index: int

    @property
    def key(self) -> str:
        """``"DREval/12#3"``: problem id and input index."""
        return f"{self.problem.task_id}#{self.index}"

    @property
    def text(self) -> str:
        """The dataset's input text (argument tuple, or rewritten test body)."""
        return self.problem.inputs[self.index]

    @property
    def expected_output(self) -> str | None:
        """HumanEval: the recorded return value's repr; None for ClassEval."""
        outputs = self.problem.outputs
        if self.problem.kind == "classeval" or self.index >= len(outputs):
            return None
        return outputs[self.index]

    @property
    def call(self) -> str | None:
        """HumanEval: ``f(<args>)``; None for ClassEval."""
        if self.problem.kind == "classeval":
            return None
        return f"{self.problem.entry_point}{self.text.strip()}"

    @property
    def test_class(self) -> str | None:
        """ClassEval: the input's test class."""
        tests = self.problem.tests
        return tests[self.index][0] if self.index < len(tests) else None

    @property
    def test_method(self) -> str | None:
        """ClassEval: the first ``test*`` method of the input's test class."""
        tests = self.problem.tests
        return tests[self.index][1] if self.index < len(tests) else None

    def request(
        self,
        mode: str = "exact",
        limits: TraceLimits | None = None,
        hash_seed: int | None = None,
        capture: str = "full",
    ) -> TraceRequest:
        """The trace request for this input."""
        from execlens.trace import TraceLimits, TraceRequest

        problem = self.problem
        return TraceRequest(
            program=problem.code,
            call=self.call,
            test=problem.test if self.test_class else None,
            test_class=self.test_class,
            test_method=self.test_method,
            mode=mode,
            capture=capture,
            limits=limits or TraceLimits(),
            hash_seed=hash_seed,
            tag=self,
        )


@dataclass(frozen=True)
class RevalItem:
    """A pair's ``index``-th (lineno, var) question, or its output question (``question`` None)."""

    problem: RevalProblem
    pair: RevalPair
    index: int
    question: RevalQuestion | None

    @property
    def sample_id(self) -> str:
        """``DREval/<n>/<input_idx>/<index>``; ``DREval/<n>/<input_idx>/output`` for the output."""
        tail = "output" if self.question is None else str(self.index)
        return f"{self.pair.sample_id}/{tail}"

    def render(self, task: str, style: str) -> RenderedPrompt:
        """The REval prompt of ``task`` (coverage/path/state for questions, output for pairs)."""
        q = self.question
        return render_reval(
            task,
            style,
            self.problem.prompt_input(self.pair),
            lineno=None if q is None else q.lineno,
            var=None if q is None else q.var,
            sample_id=self.sample_id,
        )


def reval_questions(problems: list[RevalProblem]) -> list[RevalItem]:
    """Every (lineno, var) question in dataset order (3152 for the full data)."""
    return [
        RevalItem(p, pair, i, q)
        for p in problems
        for pair in p.pairs
        for i, q in enumerate(pair.questions)
    ]


def reval_pairs(problems: list[RevalProblem]) -> list[RevalItem]:
    """Every (problem, input) pair in dataset order, for the output task (690 for the full data)."""
    return [RevalItem(p, pair, 0, None) for p in problems for pair in p.pairs]


def _task_number(task_id: str) -> int:
    prefix, _, number = task_id.partition("/")
    if prefix != "DREval" or not number.isdigit():
        raise FieldError("task_id", f"expected 'DREval/<n>', got {task_id!r}")
    return int(number)


def _parse_problem(row: dict[str, Any]) -> RevalProblem:
    task_id = check_str(row, "task_id")
    idx = _task_number(task_id)
    test = row.get("test")
    if test is not None and not isinstance(test, str):
        raise FieldError("test", f"expected a string or null, got {type(test).__name__}")
    problem = RevalProblem(
        task_id=task_id,
        idx=idx,
        entry_point=check_str(row, "entry_point"),
        code=check_str(row, "code"),
        inputs=check_str_list(row, "inputs"),
        outputs=check_str_list(row, "outputs"),
        test=test,
        skip_reason=skip_reason(check_str(row, "code"), test),
    )
    if problem.kind == "humaneval":
        for i, text in enumerate(problem.inputs):
            if not text.endswith(",)"):
                raise FieldError(
                    f"inputs[{i}]",
                    "a HumanEval input must be an argument tuple ending in ',)', "
                    f"got {text[:60]!r}",
                )
        return problem
    if not test:
        raise FieldError("test", "a ClassEval problem needs its unittest source")
    try:
        classes = classeval_test_classes(test, problem.entry_point)
    except (SyntaxError, ValueError) as exc:
        raise FieldError("test", f"cannot read the test classes: {exc}") from None
    if len(classes) != len(problem.inputs):
        raise FieldError(
            "test",
            f"{len(classes)} test classes named {problem.entry_point}Test* "
            f"but {len(problem.inputs)} inputs",
        )
    return replace(
        problem,
        setups=tuple(c.setup for c in classes),
        tests=tuple((c.name, c.first_test) for c in classes),
    )


def _parse_pairs(
    row: dict[str, Any], problem: RevalProblem, source: str, line: int
) -> tuple[list[RevalPair], list[RecordError]]:
    raw = row.get("tasks")
    if isinstance(raw, str):  # the JetBrains layout stores the list as a JSON string
        try:
            raw = json.loads(raw)
        except json.JSONDecodeError as exc:
            return [], [RecordError(source, line, "tasks", f"not valid JSON ({exc.msg})")]
    if not isinstance(raw, list):
        return [], [RecordError(source, line, "tasks", "expected a list of pairs")]
    n_lines = len(problem.code.split("\n"))
    pairs: list[RevalPair] = []
    errors: list[RecordError] = []
    for k, pair in enumerate(raw):
        where = f"tasks[{k}]"
        try:
            if not isinstance(pair, dict):
                raise FieldError(where, "expected an object")
            input_idx = check_int(pair, "input_idx")
            if not 0 <= input_idx < len(problem.inputs):
                raise FieldError(
                    "input_idx",
                    f"{input_idx} is not an input of {problem.task_id} "
                    f"(0..{len(problem.inputs) - 1})",
                )
            questions = pair.get("task")
            if not isinstance(questions, list):
                raise FieldError("task", "expected a list of {lineno, var}")
            parsed: list[RevalQuestion] = []
            for j, q in enumerate(questions):
                if not isinstance(q, dict):
                    raise FieldError(f"task[{j}]", "expected an object")
                try:
                    lineno = check_int(q, "lineno")
                    var = check_str(q, "var")
                except FieldError as exc:
                    raise FieldError(f"task[{j}].{exc.field}", exc.message) from None
                if not 1 <= lineno <= n_lines:
                    raise FieldError(
                        f"task[{j}].lineno", f"{lineno} is not a line of the code (1..{n_lines})"
                    )
                parsed.append(RevalQuestion(lineno, var))
            output_pred = check_str(pair, "output_pred")
        except FieldError as exc:
            name = exc.field if exc.field.startswith("tasks[") else f"{where}.{exc.field}"
            errors.append(RecordError(source, line, name, exc.message))
            continue
        pairs.append(RevalPair(problem.task_id, input_idx, tuple(parsed), output_pred))
    return pairs, errors


def _assemble(
    problem_rows: list[Row], problem_source: str, task_rows: list[Row], task_source: str
) -> LoadResult[RevalProblem]:
    parsed = parse_samples(
        problem_rows,
        problem_source,
        _parse_problem,
        key=lambda problem: problem.task_id,
        key_field="task_id",
    )
    errors: list[RecordError] = list(parsed.errors)
    problems = {problem.task_id: problem for problem in parsed.records}
    attached: dict[str, list[RevalPair]] = {}
    for line, row in task_rows:
        try:
            task_id = check_str(row, "task_id")
            if "idx" in row and check_int(row, "idx") != _task_number(task_id):
                raise FieldError("idx", f"{row['idx']} does not match task_id {task_id}")
        except FieldError as exc:
            errors.append(RecordError(task_source, line, exc.field, exc.message))
            continue
        problem = problems.get(task_id)
        if problem is None:
            errors.append(
                RecordError(task_source, line, "task_id", f"{task_id} is not a loaded problem")
            )
            continue
        if task_id in attached:
            errors.append(
                RecordError(task_source, line, "task_id", f"duplicate tasks record for {task_id}")
            )
            continue
        pairs, pair_errors = _parse_pairs(row, problem, task_source, line)
        errors.extend(pair_errors)
        attached[task_id] = pairs
    records = [
        replace(p, pairs=tuple(attached.get(p.task_id, ())))
        for p in sorted(problems.values(), key=lambda p: p.idx)
    ]
    return LoadResult(records, errors, f"{problem_source} + {task_source}")


def _local_files(data: str | Path) -> tuple[Path, Path]:
    root = Path(data).expanduser()
    if root.is_file():
        for problems_name, tasks_name in _LAYOUTS:
            if root.name == problems_name and (root.parent / tasks_name).is_file():
                return root, root.parent / tasks_name
        raise DatasetUnavailableError(
            f"REval: give a directory, or a problems file with its tasks file beside it "
            f"({' / '.join(f'{a} + {b}' for a, b in _LAYOUTS)}); got {root}"
        )
    if root.is_dir():
        for base in (root, root / "data"):
            for problems_name, tasks_name in _LAYOUTS:
                if (base / problems_name).is_file() and (base / tasks_name).is_file():
                    return base / problems_name, base / tasks_name
        raise DatasetUnavailableError(
            f"no REval data in {root} (looked for "
            f"{' / '.join(f'{a} + {b}' for a, b in _LAYOUTS)}, also under data/)"
        )
    raise DatasetUnavailableError(f"REval: no such file or directory: {root}")


def load_reval(data: str | Path | None = None, *, split: str = "test") -> LoadResult[RevalProblem]:
    """Load REval problems with their pairs from ``data``; without ``data``, the copy
    shipped with execlens (the hub's JetBrains repackaging only if that copy was removed)."""
    if data is None and (PACKAGED_DATA / "DREval_data.jsonl").is_file():
        data = PACKAGED_DATA  # offline: no hub needed for REval
    if data is None:
        problem_source, problem_rows = hub_rows(REVAL_HUB, "problems", split)
        task_source, task_rows = hub_rows(REVAL_HUB, "tasks", split)
        return _assemble(problem_rows, problem_source, task_rows, task_source)
    problems_path, tasks_path = _local_files(data)
    problem_rows, errors_a = read_records(problems_path)
    task_rows, errors_b = read_records(tasks_path)
    result = _assemble(problem_rows, str(problems_path), task_rows, str(tasks_path))
    result.errors = errors_a + errors_b + result.errors
    return result


class RevalDataError(DatasetError, ValueError):
    """REval data that cannot be used as given (the message names the file and record)."""


def load_reval_problems(data: str | Path) -> list[RevalProblem]:
    """The problems of local REval data, for tracing; raises :class:`RevalDataError`.

    Malformed problems stop the load (the first five are named).  Questions are attached
    where the tasks file has them; a tasks record naming a problem the problems file
    lacks is allowed here (tracing a subset of the problems beside the full tasks file).
    """
    try:
        loaded = load_reval(data)
    except DatasetError as exc:
        raise RevalDataError(str(exc)) from exc
    errors = [e for e in loaded.errors if not e.message.endswith("is not a loaded problem")]
    if errors:
        raise RevalDataError("; ".join(str(e) for e in errors[:5]))
    return list(loaded.records)
