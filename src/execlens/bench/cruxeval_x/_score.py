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

**Strict.** The answer must be a Python literal (output) or one call of ``f`` /
``candidate`` with literal arguments (input), parsed in the host
(:mod:`execlens.values`); the output task compares it type-strictly with the value the
engine computes for the tail's call (``prepare``); the input task calls ``f`` in the
engine with the parsed arguments (passed as value envelopes) and compares the return
value type-strictly with the tail's expected literal.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from execlens.bench import script_failure, script_job, script_result
from execlens.engine import Job, Limits
from execlens.judge import SampleScore, ScorePlan, Verdict, VerdictStatus, failure_verdict
from execlens.values import AnswerParseError, decode, parse_call, parse_literal, strict_equal

from ._data import HARNESS_MARKER, HOLE

if TYPE_CHECKING:
    from execlens.engine import Engine, Outcome

    from ._data import CruxXItem

__all__ = [
    "JUDGE_LIMITS",
    "OfficialScorer",
    "StrictScorer",
    "Truth",
    "call_truths",
    "official_program",
    "official_verdict",
]

#: MultiPL-E's 15 s.
JUDGE_LIMITS = Limits(wall_time=15.0, memory_mb=1024, output_bytes=2048)
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


@dataclass(frozen=True)
class Truth:
    """The output task's true value (an envelope), or why there is none."""

    value: Mapping[str, Any] | None
    problem: str | None = None


def _truth_job(item: CruxXItem) -> Job | str:
    """The job computing an output tail's true value, or why there is none."""
    parts = _assert_parts(item.output_reasoning)
    if parts is None or "__execlens_hole__" in parts[0]:
        return "the tail has no `assert <call> == ????`"
    return Job(
        program=item.head + "\ncandidate = f\n",
        call=parts[0],
        limits=Limits(wall_time=15.0, memory_mb=1024, output_bytes=1024 * 1024),
        hash_seed=0,
    )


def _truth(outcome: Outcome) -> Truth:
    if outcome.ok:
        return Truth(outcome.value)
    return Truth(None, f"the call fails here: {failure_verdict(outcome).detail}")


def call_truths(
    items: Sequence[CruxXItem], engine: Engine, *, limits: Limits = JUDGE_LIMITS
) -> dict[str, Truth]:
    """Run each output tail's call (``candidate`` bound to ``f``); ``{sample_id: truth}``."""
    truths: dict[str, Truth] = {}
    jobs, owners = [], []
    for item in items:
        job = _truth_job(item)
        if isinstance(job, str):
            truths[item.sample_id] = Truth(None, job)
            continue
        jobs.append(job)
        owners.append(item.sample_id)
    for sample_id, outcome in zip(owners, engine.map(jobs)):
        truths[sample_id] = _truth(outcome)
    return truths


def _strip_fence(text: str) -> str:
    text = text.strip()
    if text.startswith("```") and text.endswith("```") and len(text) >= 6:
        first, newline, rest = text[3:-3].partition("\n")
        return (rest if newline and first.strip().isidentifier() else text[3:-3]).strip()
    return text


class StrictScorer:
    """Literal answers, type-strict comparison with values computed by running.

    Kept in the folder: the truth is the value of the reasoning tail's call, computed
    in the engine (with a 1 MiB output limit) when ``prepare`` did not; an input answer
    may call ``f`` or ``candidate`` and is compared with the tail's ``assert``
    literal, which can be missing (``reference_error``) -- the core's input judge
    (``judge.plan_input``) knows one entry point and a reference in hand.
    """

    name = "strict"

    def __init__(
        self, task: str, truths: Mapping[str, Truth] | None = None, *, limits: Limits = JUDGE_LIMITS
    ) -> None:
        self.task = task
        self.truths = truths or {}
        self.limits = Limits(
            wall_time=limits.wall_time, memory_mb=limits.memory_mb, output_bytes=1024 * 1024
        )

    def plan(self, item: CruxXItem, generations: Sequence[str]) -> ScorePlan:
        """Output: host-only verdicts against the truth ``prepare`` computed -- or, when
        none was (``execlens score`` prepares nothing), one engine job computing it
        first; input: one engine call per parseable answer."""
        if self.task == "output":
            known = self.truths.get(item.sample_id)
            job = _truth_job(item) if known is None else None
            if isinstance(job, str):
                known = Truth(None, job)

            def judge(outcomes: Sequence[Outcome]) -> SampleScore:
                truth = known if known is not None else _truth(outcomes[0])
                verdicts = [self._output(g, truth) for g in generations]
                return SampleScore(
                    item.sample_id, self.name, verdicts, [v.passed for v in verdicts]
                )

            return ScorePlan([job] if isinstance(job, Job) else [], judge)
        parts = _assert_parts(item.input_reasoning)
        expected: Any = None
        problem = None
        if parts is None:
            problem = "the tail has no `assert <call> == <expected>`"
        else:
            try:
                expected = parse_literal(parts[1], allow_json=False)
            except AnswerParseError as exc:
                problem = f"the expected value is not a literal ({exc.kind})"
        firsts: list[Verdict | None] = []
        jobs: list[Job] = []
        for raw in generations:
            if problem is not None:
                firsts.append(Verdict.failing(VerdictStatus.REFERENCE_ERROR, "no_truth", problem))
                continue
            try:
                call = parse_call(_strip_fence(raw))
            except AnswerParseError as exc:
                firsts.append(Verdict.failing(VerdictStatus.UNPARSEABLE, exc.kind, exc.message))
                continue
            if call.name not in ("f", "candidate"):
                firsts.append(
                    Verdict.failing(
                        VerdictStatus.UNPARSEABLE,
                        "name",
                        f"expected a call of f, got {call.name!r}",
                    )
                )
                continue
            firsts.append(None)
            jobs.append(
                Job(
                    program=item.head,
                    entry_point="f",
                    args=call.args,
                    kwargs=call.kwargs,
                    limits=self.limits,
                    hash_seed=0,
                )
            )

        def finish(outcomes: Sequence[Outcome]) -> SampleScore:
            if len(outcomes) != len(jobs):
                raise ValueError(f"expected {len(jobs)} outcomes, got {len(outcomes)}")
            pending = iter(outcomes)
            verdicts = [
                v if v is not None else self._returned(next(pending), expected) for v in firsts
            ]
            return SampleScore(item.sample_id, self.name, verdicts, [v.passed for v in verdicts])

        return ScorePlan(jobs, finish)

    @staticmethod
    def _output(answer: str, truth: Truth) -> Verdict:
        if truth.value is None:
            return Verdict.failing(VerdictStatus.REFERENCE_ERROR, "no_truth", str(truth.problem))
        try:
            predicted = parse_literal(_strip_fence(answer), allow_json=False)
        except AnswerParseError as exc:
            return Verdict.failing(VerdictStatus.UNPARSEABLE, exc.kind, exc.message)
        if strict_equal(predicted, decode(dict(truth.value))):
            return Verdict.passing()
        return Verdict.failing(VerdictStatus.WRONG, "value", "a different value")

    @staticmethod
    def _returned(outcome: Outcome, expected: Any) -> Verdict:
        if not outcome.ok:
            return failure_verdict(outcome)
        try:
            value = outcome.decoded()
        except Exception as exc:  # noqa: BLE001 - a malformed envelope is the engine's fault
            return Verdict.failing(VerdictStatus.SANDBOX_ERROR, "decode", str(exc)[:300])
        if strict_equal(value, expected):
            return Verdict.passing()
        return Verdict.failing(
            VerdictStatus.WRONG, "value", "f returns a different value on this input"
        )
