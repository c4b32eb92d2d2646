"""CRUXEval-X scoring for Python: the judge upstream runs for other languages, defined for
Python (``official``), and a strict one.

**Official.** Upstream's judge (``inference/infer_vllm.py`` lines 130-160) fills the hole
and runs the program with MultiPL-E (15 s), passing iff the run ends with status OK.
Its ``input_map``/``lang_map`` have no ``py`` entry (the shipped judge raises KeyError
for Python), so execlens defines the Python judge the way every other language's works:

* the program is the prompt's program: the code before ``def check(candidate):`` plus
  the record's reasoning tail (which defines and calls ``check``);
* output task: ``program.replace("????", answer)``;
* input task: ``program.replace("candidate(????)", answer)`` (or ``f(????)`` where the
  tail calls ``f``), so the answer must be a whole call;
* the program runs as MultiPL-E runs it, ``python3 <file>.py`` in a process of its own
  (inside the sandbox: :func:`execlens.bench.script_job`), 15 s; **pass iff the process
  exits with status 0** (MultiPL-E's ``OK``) -- not iff the code ends normally.

Upstream's holes are kept: ``[] or True`` (or the call itself, for the output task)
makes the assertion hold and passes; an answer that ends the process early with status
0 -- ``os._exit(0)``, ``sys.exit()``, ``exit(0)`` pasted into the hole -- passes before
any assertion runs, exactly as upstream's judge passes it; one that exits otherwise
(``sys.exit("0")`` prints ``0`` and exits 1) fails.

**Strict** is the core's (``judge.TaskScorer`` over :func:`strict_task`).  The answer must
be a Python literal (output) or one call of ``f`` / ``candidate`` with literal arguments
(input), parsed in the host (:mod:`execlens.values`, :func:`strict_answer`); the output
task compares it type-strictly with the value the engine computes for the tail's call
(a ``tasks.TruthRun``: built and cached by the core's ``prepare``); the input task calls
``f`` in the engine with the parsed arguments (passed as value envelopes) and compares
the return value type-strictly with the tail's expected literal.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from execlens.bench import script_failure, script_job, script_result
from execlens.engine import Limits
from execlens.judge import SampleScore, ScorePlan, Verdict, VerdictStatus
from execlens.tasks import NoTruth, Task, TruthRun
from execlens.values import AnswerParseError, parse_call, parse_literal

from ._data import HARNESS_MARKER, HOLE

if TYPE_CHECKING:
    from execlens.engine import Outcome

    from ._data import CruxXItem

__all__ = [
    "JUDGE_LIMITS",
    "STRICT_LIMITS",
    "OfficialScorer",
    "official_program",
    "official_verdict",
    "strict_answer",
    "strict_task",
]

#: MultiPL-E's 15 s.
JUDGE_LIMITS = Limits(wall_time=15.0, memory_mb=1024, output_bytes=2048)
#: The strict runs' (the truth's and an input answer's): 15 s, a returned value up to 1 MiB.
STRICT_LIMITS = JUDGE_LIMITS.with_(output_bytes=1024 * 1024)
_NO_OUTPUT_ASSERT = "the tail has no `assert <call> == ????`"
_INPUT_PATTERNS = ("candidate(" + HOLE + ")", "f(" + HOLE + ")")


def official_program(item: CruxXItem, task: str, answer: str) -> str:
    """The program the official judge runs for ``answer``."""
    tail = item.output_reasoning if task == "output" else item.input_reasoning
    program = item.head + tail
    if task == "output":
        return program.replace(HOLE, answer)
    for pattern in _INPUT_PATTERNS:
        if pattern in program:
            return program.replace(pattern, answer)
    return program.replace(HOLE, answer)


def official_verdict(outcome: Outcome) -> Verdict:
    """MultiPL-E's status: ``OK`` (exit status 0) passes; ``Timeout``; ``SyntaxError``
    (in stderr) and ``Exception`` (any other status) fail, named by the traceback's last
    line where there is one."""
    run = script_result(outcome)
    failed = script_failure(run, "the program ran past 15 s")
    if failed is not None:
        return failed
    if run.exit_code == 0:
        return Verdict.passing()
    last = run.last_error_line()
    kind = last.split(":", 1)[0].strip() if last else ""
    reason = kind if kind.isidentifier() else f"exit_status_{run.exit_code}"
    return Verdict.failing(VerdictStatus.EXCEPTION, reason, last[:300])


class OfficialScorer:
    """Fill the hole, run the program as a script, pass iff it exits with status 0."""

    name = "official"

    def __init__(self, task: str, *, limits: Limits = JUDGE_LIMITS) -> None:
        self.task = task
        self.limits = limits

    def plan(self, item: CruxXItem, generations: Sequence[str]) -> ScorePlan:
        """One engine job per answer."""
        jobs = [
            script_job(
                official_program(item, self.task, g),
                timeout=self.limits.wall_time or 15.0,
                memory_mb=self.limits.memory_mb or 1024,
            )
            for g in generations
        ]

        def finish(outcomes: Sequence[Outcome]) -> SampleScore:
            if len(outcomes) != len(jobs):
                raise ValueError(f"expected {len(jobs)} outcomes, got {len(outcomes)}")
            verdicts = [official_verdict(o) for o in outcomes]
            return SampleScore(item.sample_id, self.name, verdicts, [v.passed for v in verdicts])

        return ScorePlan(jobs, finish)


def _assert_parts(tail: str) -> tuple[str, str] | None:
    """``(call source, expected source)`` of the tail's ``assert <call> == <expected>``
    (``????`` read as a name so the tail parses)."""
    source = HARNESS_MARKER + "\n" + tail.split(HARNESS_MARKER, 1)[-1]
    source = source.replace(HOLE, "__execlens_hole__")
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Assert)
            and isinstance(node.test, ast.Compare)
            and len(node.test.ops) == 1
            and isinstance(node.test.ops[0], ast.Eq)
        ):
            left = ast.get_source_segment(source, node.test.left)
            right = ast.get_source_segment(source, node.test.comparators[0])
            if left is not None and right is not None:
                return left, right
    return None


def strict_task(item: CruxXItem, task: str) -> Task:
    """The question ``item`` asks in strict mode: output -- the tail's call, run in the
    engine for its value (``candidate`` bound to ``f``, hash seed 0); input -- a call of
    ``f`` compared with the tail's expected literal.  A tail with no such ``assert`` (or
    an expected value that is no literal) has no truth."""
    parts = _assert_parts(item.output_reasoning if task == "output" else item.input_reasoning)
    if task == "output":
        if parts is None or "__execlens_hole__" in parts[0]:
            return Task("output", item.head, NoTruth(_NO_OUTPUT_ASSERT), id=item.sample_id)
        return Task(
            "output",
            item.head + "\ncandidate = f\n",
            TruthRun(seeds=(0,), limits=STRICT_LIMITS, subject="the call"),
            call=parts[0],
            id=item.sample_id,
        )
    reference: Any
    if parts is None:
        reference = NoTruth("the tail has no `assert <call> == <expected>`")
    else:
        try:
            parse_literal(parts[1], allow_json=False)
            reference = parts[1]
        except AnswerParseError as exc:
            reference = NoTruth(f"the expected value is not a literal ({exc.kind})")
    return Task("input", item.head, reference, function="f", id=item.sample_id)


def _strip_fence(text: str) -> str:
    text = text.strip()
    if text.startswith("```") and text.endswith("```") and len(text) >= 6:
        first, newline, rest = text[3:-3].partition("\n")
        return (rest if newline and first.strip().isidentifier() else text[3:-3]).strip()
    return text


def strict_answer(answer: str, task: str) -> str | Verdict:
    """A strict answer: one fence off, then one literal (output) or one call of ``f`` or
    ``candidate`` with literal arguments (input, read as a call of ``f``); else its
    ``unparseable`` verdict."""
    text = _strip_fence(answer)
    try:
        if task == "output":
            parse_literal(text, allow_json=False)
            return text
        call = parse_call(text)
    except AnswerParseError as exc:
        return Verdict.failing(VerdictStatus.UNPARSEABLE, exc.kind, exc.message)
    if call.name == "f":
        return text
    if call.name != "candidate":
        return Verdict.failing(
            VerdictStatus.UNPARSEABLE, "name", f"expected a call of f, got {call.name!r}"
        )
    tree = ast.parse(text, mode="eval")
    assert isinstance(tree.body, ast.Call) and isinstance(tree.body.func, ast.Name)
    tree.body.func.id = "f"  # the same arguments, as parse_call read them
    return ast.unparse(tree)
