"""CodeMind's official scoring, quirks included.

**IER** (``scripts/parse_result.py`` ``get_result``, lines 233-267): the prediction (as
:func:`~._extract.extract_ier` reads it) and ``output.txt`` both lose every newline and
every space and have ``"`` replaced by ``'``; then one leading and one trailing ``'`` or
`````` ` `````` is stripped from each, ``[END-OF-RESPONSE]`` is removed from the
prediction, and the strings must be equal.  No code runs: ``'a b'`` equals ``'ab'``,
``True`` differs from ``true`` and ``1.0`` from ``1``.  (Upstream writes the prediction
to ``predict.txt`` and reads both files back in text mode, so ``\\r`` and ``\\r\\n``
become ``\\n`` before the newlines go; tabs stay.)

**SR** (``scripts/test_synthesis.py``): ``from typing import *`` + the program + HumanEval's
``check`` + ``check(<entry point>)`` run with ``python``; the sample passes iff *nothing
was written to stderr* (the exit status is not read), within 100 s.  Here the same
source runs as one engine job (never a bare subprocess) and "stderr" is rebuilt from
the outcome as CPython would have written it: the program's own stderr, plus the
traceback of an uncaught exception -- except ``SystemExit`` with no code or an integer
code, which CPython exits on silently.  So ``sys.exit(0)`` (or ``sys.exit(1)``!) before
the tests passes, as it does upstream; a timeout, crash or memory error fails (upstream's
bare ``except``).  One blind spot: ``sys.exit("0")`` prints ``0`` upstream but reads
like ``sys.exit(0)`` here (the engine reports the exception's text, not its argument).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from execlens.engine import Job, Limits
from execlens.judge import SampleScore, ScorePlan, Verdict, VerdictStatus, failure_verdict

from ._extract import END_MARK

if TYPE_CHECKING:
    from execlens.engine import Outcome

__all__ = [
    "SR_LIMITS",
    "IEROfficialScorer",
    "SROfficialScorer",
    "ier_normalise",
    "sr_official_source",
    "stderr_would_be_written",
]

#: test_synthesis.py's timeout (100 s); the rest as the judges' limits.
SR_LIMITS = Limits(wall_time=100.0, memory_mb=1024, output_bytes=4 * 1024 * 1024)

_INT = re.compile(r"-?\d+")


def _read_back(text: str) -> str:
    """A text written to a file and read back in text mode (universal newlines)."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def ier_normalise(text: str, *, prediction: bool) -> str:
    """One side of ``get_result``'s comparison, step for step."""
    text = _read_back(text).replace("\n", "").replace(" ", "").replace('"', "'")
    if text.startswith(("'", "`")):
        text = text[1:]
    if text.endswith(("'", "`")):
        text = text[:-1]
    if prediction:  # upstream removes the marker from the prediction only, after stripping
        text = text.replace(END_MARK, "")
    return text


class IEROfficialScorer:
    """``get_result``: normalised strings equal.  Needs no engine job."""

    name = "official"

    def plan(self, item: Any, generations: Sequence[str]) -> ScorePlan:
        """One verdict per generation, decided by string comparison alone."""
        truth = ier_normalise(item.output, prediction=False)
        verdicts = [
            Verdict.passing()
            if ier_normalise(g, prediction=True) == truth
            else Verdict.failing(VerdictStatus.WRONG, "string", "the normalised strings differ")
            for g in generations
        ]
        return ScorePlan(
            [],
            lambda outcomes: SampleScore(
                item.sample_id, self.name, verdicts, [v.passed for v in verdicts]
            ),
        )


def sr_official_source(program: str, tests: str, entry_point: str) -> str:
    """``main_underTest.py`` as test_synthesis.py writes it."""
    return "from typing import *" + "\n" + program + "\n" + tests + "\n" + f"check({entry_point})"


def stderr_would_be_written(outcome: Outcome) -> bool:
    """Whether ``python main_underTest.py`` would have written anything to stderr."""
    if outcome.stderr or outcome.stderr_truncated:
        return True
    if outcome.ok:
        return False
    exc = outcome.exception
    if exc is not None and exc.type == "SystemExit":
        # sys.exit() / sys.exit(None) / sys.exit(<int>) print nothing; any other code is
        # printed (its str, then a newline).
        return not (exc.message == "" or exc.message == "None" or _INT.fullmatch(exc.message))
    return True  # a traceback, or upstream's bare except (timeout, crash)


class SROfficialScorer:
    """test_synthesis.py: run the program with HumanEval's tests; pass iff stderr is empty."""

    name = "official"

    def __init__(self, *, limits: Limits = SR_LIMITS) -> None:
        self.limits = limits

    def plan(self, item: Any, generations: Sequence[str]) -> ScorePlan:
        """One job per generation: the whole file upstream runs."""
        gens = list(generations)
        jobs = [
            Job(program=sr_official_source(g, item.tests, item.entry_point), limits=self.limits)
            for g in gens
        ]

        def finish(outcomes: Sequence[Outcome]) -> SampleScore:
            if len(outcomes) != len(jobs):
                raise ValueError(f"expected {len(jobs)} outcomes, got {len(outcomes)}")
            verdicts = [self._verdict(outcome) for outcome in outcomes]
            return SampleScore(item.sample_id, self.name, verdicts, [v.passed for v in verdicts])

        return ScorePlan(jobs, finish)

    @staticmethod
    def _verdict(outcome: Outcome) -> Verdict:
        if not stderr_would_be_written(outcome):
            if outcome.ok:
                return Verdict.passing()
            # SystemExit: upstream sees an empty stderr and counts a pass
            return Verdict.passing(
                detail="exited silently (SystemExit) before the tests "
                "finished; upstream counts an empty stderr"
            )
        if outcome.ok:
            return Verdict.failing(
                VerdictStatus.WRONG, "stderr", f"wrote to stderr: {outcome.stderr[:200]!r}"
            )
        return failure_verdict(outcome)
