"""CodeMind's official scoring, quirks included.

**IER** (``scripts/parse_result.py`` ``get_result``, lines 233-267): the prediction (as
:func:`~._extract.extract_ier` reads it) and ``output.txt`` both lose every newline and
every space and have ``"`` replaced by ``'``; then one leading and one trailing ``'`` or
`````` ` `````` is stripped from each, ``[END-OF-RESPONSE]`` is removed from the
prediction, and the strings must be equal.  No code runs: ``'a b'`` equals ``'ab'``,
``True`` differs from ``true`` and ``1.0`` from ``1``.  (Upstream writes the prediction
to ``predict.txt`` and reads both files back in text mode, so ``\\r`` and ``\\r\\n``
become ``\\n`` before the newlines go; tabs stay.)  **ClassEval cannot be scored by it**:
``get_result`` skips every result folder whose name holds a ``.`` -- every ClassEval id
does (``ClassEval_0@AccessGatewayFilter.filter``) -- and then divides by the zero
folders left (ZeroDivisionError).  Official mode keeps that: such an answer's verdict is
``skipped:dotted_id`` (the string rule's result in its detail), left out of the
accuracy as upstream leaves it out, so official ClassEval accuracy has no value.

**SR** (``scripts/test_synthesis.py``): ``from typing import *`` + the program + HumanEval's
``check`` + ``check(<entry point>)`` written to ``main_underTest.py`` and run with
``python``; the sample passes iff *nothing was written to stderr* (the exit status is
not read), within 100 s (a timeout fails: upstream's bare ``except``).  Here the same
file runs the same way -- as a script in a process of its own, inside the sandbox
(:func:`execlens.bench.script_job`) -- and the same test decides, so upstream's holes
pass here too: ``sys.exit(0)``, ``sys.exit(1)``, ``os._exit(0)`` or ``os._exit(1)`` before
the tests run, and stderr sent to ``/dev/null`` (``sys.stderr = open(os.devnull, "w")`` or
``os.dup2``) before failing ones; ``sys.exit("0")`` prints ``0`` to stderr and fails.
(The strict scorer closes every one of them.)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from execlens.bench import script_failure, script_job, script_result
from execlens.engine import Limits
from execlens.judge import SampleScore, ScorePlan, Verdict, VerdictStatus

from ._extract import END_MARK

if TYPE_CHECKING:
    from execlens.engine import Outcome

__all__ = [
    "DOTTED",
    "SR_LIMITS",
    "IEROfficialScorer",
    "SROfficialScorer",
    "ier_normalise",
    "sr_official_source",
    "sr_official_verdict",
]

#: The reason of an answer upstream's ``get_result`` never reads (its id holds a dot).
DOTTED = "dotted_id"

#: test_synthesis.py's timeout (100 s); the rest as the judges' limits.
SR_LIMITS = Limits(wall_time=100.0, memory_mb=1024, output_bytes=4 * 1024 * 1024)


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
        """One verdict per generation, decided by string comparison alone (none for an
        id holding a dot, which ``get_result`` skips)."""
        truth = ier_normalise(item.output, prediction=False)
        equal = [ier_normalise(g, prediction=True) == truth for g in generations]
        if "." in item.sample_id:
            verdicts = [
                Verdict.failing(
                    VerdictStatus.SKIPPED,
                    DOTTED,
                    "get_result skips every id holding a dot (then divides by zero); its "
                    f"string rule would say {'equal' if same else 'different'}",
                )
                for same in equal
            ]
        else:
            verdicts = [
                Verdict.passing()
                if same
                else Verdict.failing(VerdictStatus.WRONG, "string", "the normalised strings differ")
                for same in equal
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


class SROfficialScorer:
    """test_synthesis.py: run the program with HumanEval's tests; pass iff stderr is empty."""

    name = "official"

    def __init__(self, *, limits: Limits = SR_LIMITS) -> None:
        self.limits = limits

    def plan(self, item: Any, generations: Sequence[str]) -> ScorePlan:
        """One job per generation: the whole file upstream runs, as a script."""
        gens = list(generations)
        jobs = [
            script_job(
                sr_official_source(g, item.tests, item.entry_point),
                timeout=self.limits.wall_time,
                memory_mb=self.limits.memory_mb,
            )
            for g in gens
        ]

        def finish(outcomes: Sequence[Outcome]) -> SampleScore:
            if len(outcomes) != len(jobs):
                raise ValueError(f"expected {len(jobs)} outcomes, got {len(outcomes)}")
            verdicts = [sr_official_verdict(outcome) for outcome in outcomes]
            return SampleScore(item.sample_id, self.name, verdicts, [v.passed for v in verdicts])

        return ScorePlan(jobs, finish)


def sr_official_verdict(outcome: Outcome) -> Verdict:
    """``test_python``: passed iff the script wrote nothing to stderr in time."""
    run = script_result(outcome)
    failed = script_failure(run, "the script ran past the limit")
    if failed is not None:
        return failed
    if run.stderr_bytes == 0:
        if run.exit_code == 0:
            return Verdict.passing()
        return Verdict.passing(
            detail=f"exited with status {run.exit_code} and an empty stderr; "
            "upstream reads only stderr"
        )
    last = run.last_error_line()
    detail = f"wrote to stderr: {last[:200]!r}"
    if run.exit_code == 0:
        return Verdict.failing(VerdictStatus.WRONG, "stderr", detail)
    kind = last.split(":", 1)[0].strip()
    reason = kind if kind.isidentifier() else f"exit_status_{run.exit_code}"
    return Verdict.failing(VerdictStatus.EXCEPTION, reason, detail)
