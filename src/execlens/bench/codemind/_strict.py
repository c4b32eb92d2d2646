"""Strict scoring of CodeMind: answers parsed as data, truths computed by the engine.

**IER** is the core's strict mode (``CodeMind.strict_task``, ``judge.TaskScorer``).  The
true output is what the engine computes (a ``tasks.TruthRun``, built and cached by the
core in ``prepare``), not ``output.txt``'s text: upstream wrote ClassEval's outputs with
``str`` (``DELETE FROM ...`` without quotes), HumanEval_71's as ``6.00``, and a few
from other environments (database ids, dates).  Each program runs twice, under hash
seeds 0 and 1; an item whose runs fail or disagree has *no truth* and every answer to
it fails with ``reference_error`` (counted, never dropped: the denominator is fixed).
The answer -- the same text the official mode reads -- must be one Python literal
(``execlens.values.parse_literal``, no JSON spellings); one enclosing pair of backticks
or one Markdown code fence is taken off first.  It is compared type-strictly with the
truth in the host (``1.0`` is not ``1``, ``True`` is not ``1``; a numpy scalar counts as
the Python value it holds, since no literal can spell ``np.int64``).  An always-equal
object or an expression that runs code cannot be a literal, so it never passes.

**SR.** The program passes when, run in the engine with HumanEval's ``check``:

* the run ends normally -- no exception, ``SystemExit`` included (exiting early skips the
  tests, whatever the exit code), no timeout;
* nothing is written to stderr (the official rule, kept);
* ``check`` really called the entry point: the candidate is wrapped so every value it
  returns is recorded and sent back as an envelope; at least one call must have
  returned, and every returned value must be plain data (numbers, strings, bytes, None
  and containers of them).  An object whose ``__eq__`` always says yes -- which makes
  ``assert candidate(x) == y`` pass -- comes back as an object record and fails here, in
  the host, where its ``__eq__`` cannot vote.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from execlens.engine import Job, Limits
from execlens.judge import SampleScore, ScorePlan, Verdict, VerdictStatus, failure_verdict
from execlens.values import (
    AnswerParseError,
    ObjectRecord,
    OpaqueRecord,
    Truncated,
    parse_literal,
)

from ._official import SR_LIMITS

if TYPE_CHECKING:
    from execlens.engine import Outcome

__all__ = [
    "TRUTH_LIMITS",
    "TRUTH_SEEDS",
    "SRStrictScorer",
    "read_ier_answer",
    "sr_strict_source",
    "strip_fence",
]

#: Limits of a truth run: ClassEval's slowest (EightPuzzle.solve) takes seconds.
TRUTH_LIMITS = Limits(wall_time=20.0, memory_mb=1024, output_bytes=4 * 1024 * 1024)
#: The hash seeds of the two truth runs (an item whose runs disagree has no truth).
TRUTH_SEEDS = (0, 1)


def strip_fence(text: str) -> str:
    """The answer without surrounding whitespace and one enclosing code fence or
    backtick pair (```` ```python\\n[1]\\n``` ```` and `` `[1]` `` give ``[1]``)."""
    text = text.strip()
    if text.startswith("```") and text.endswith("```") and len(text) >= 6:
        body = text[3:-3]
        first, newline, rest = body.partition("\n")
        # the info string ("python") is a word on the fence's own line
        return (rest if newline and first.strip().isidentifier() else body).strip()
    if len(text) >= 2 and text[0] == "`" and text[-1] == "`":
        return text[1:-1].strip()
    return text


def read_ier_answer(answer: str) -> str | Verdict:
    """A strict IER answer: one Python literal (no JSON spellings) once one fence or
    backtick pair is off (:func:`strip_fence`), else its ``unparseable`` verdict."""
    text = strip_fence(answer)
    try:
        parse_literal(text, allow_json=False)
    except AnswerParseError as error:
        return Verdict.failing(VerdictStatus.UNPARSEABLE, error.kind, error.message)
    return text


#: Defined after the candidate and the tests, so neither can replace it; it records what
#: the candidate returns to ``check`` and hands it back (as an envelope) to the host.
_RECORDER = """

def __execlens_sr_check__(function):
    returned = []

    def candidate(*args, **kwargs):
        value = function(*args, **kwargs)
        returned.append(value)
        return value

    check(candidate)
    return returned
"""

_PLAIN = (type(None), bool, int, float, complex, str, bytes)
_CONTAINERS = (list, tuple, set, frozenset)
_PLAIN_NAMES = {
    "NoneType",
    "bool",
    "int",
    "float",
    "complex",
    "str",
    "bytes",
    "list",
    "tuple",
    "set",
    "frozenset",
    "dict",
}


def sr_strict_source(program: str, tests: str) -> str:
    """The module a strict SR job runs (the call is ``__execlens_sr_check__(<entry>)``)."""
    return "from typing import *" + "\n" + program + "\n" + tests + "\n" + _RECORDER


def _plain(value: Any, depth: int = 0) -> bool:
    """Whether a decoded value is plain data all the way down."""
    if depth > 64:
        return False
    if isinstance(value, Truncated):  # a cap hit: plain if its type is
        return value.type_name in _PLAIN_NAMES
    if isinstance(value, (ObjectRecord, OpaqueRecord)):
        return False
    if type(value) in _PLAIN:
        return True
    if type(value) in _CONTAINERS:
        return all(_plain(v, depth + 1) for v in value)
    if type(value) is dict:
        return all(_plain(k, depth + 1) and _plain(v, depth + 1) for k, v in value.items())
    return False


class SRStrictScorer:
    """The tests pass, nothing exits early or writes to stderr, the returns are data.

    Kept in the folder (not the core's ``judge.TaskScorer``): SR asks no value, so no
    ``tasks.Task`` kind fits it; the verdict is decided on the *process* (exit, stderr,
    the recorded returns of the wrapped candidate), which only this module's recorder
    observes.
    """

    name = "strict"

    def __init__(self, *, limits: Limits = SR_LIMITS) -> None:
        self.limits = limits

    def plan(self, item: Any, generations: Sequence[str]) -> ScorePlan:
        """One job per generation; the verdict is decided in the host from its outcome."""
        jobs = [
            Job(
                program=sr_strict_source(g, item.tests),
                call=f"__execlens_sr_check__({item.entry_point})",
                limits=self.limits,
            )
            for g in generations
        ]

        def finish(outcomes: Sequence[Outcome]) -> SampleScore:
            if len(outcomes) != len(jobs):
                raise ValueError(f"expected {len(jobs)} outcomes, got {len(outcomes)}")
            verdicts = [self.judge(outcome) for outcome in outcomes]
            return SampleScore(item.sample_id, self.name, verdicts, [v.passed for v in verdicts])

        return ScorePlan(jobs, finish)

    @staticmethod
    def judge(outcome: Outcome) -> Verdict:
        """The strict verdict of one run."""
        if not outcome.ok:
            return failure_verdict(outcome)
        if outcome.stderr or outcome.stderr_truncated:
            return Verdict.failing(
                VerdictStatus.WRONG, "stderr", f"wrote to stderr: {outcome.stderr[:200]!r}"
            )
        try:
            returned = outcome.decoded()
        except Exception as exc:  # noqa: BLE001 - a malformed envelope is the engine's fault
            return Verdict.failing(VerdictStatus.SANDBOX_ERROR, "decode", str(exc)[:300])
        if not isinstance(returned, list):
            return Verdict.failing(
                VerdictStatus.WRONG, "recorder", "the tests' recorder did not come back as a list"
            )
        if not returned:
            return Verdict.failing(
                VerdictStatus.WRONG,
                "not_called",
                "check() never got a value back from the function",
            )
        if not all(_plain(value) for value in returned):
            return Verdict.failing(
                VerdictStatus.WRONG,
                "non_plain_return",
                "the function returned something other than plain data "
                "(an object whose comparisons it controls)",
            )
        return Verdict.passing()
