"""Strict scoring of CodeMind: answers parsed as data, truths computed by the engine.

**IER.** The true output is what the engine computes (:func:`ier_truths`, run once per
item by ``prepare``), not ``output.txt``'s text: upstream wrote ClassEval's outputs with
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

SR is the question kind ``codemind_sr`` (``_sr_kind``), judged by the core.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from execlens.engine import Job, Limits
from execlens.judge import SampleScore, ScorePlan, Verdict, VerdictStatus, failure_verdict
from execlens.values import (
    AnswerParseError,
    decode,
    literal_text,
    parse_literal,
    strict_equal,
    values_equal,
)

if TYPE_CHECKING:
    from execlens.engine import Engine, Outcome

__all__ = [
    "TRUTH_LIMITS",
    "IERStrictScorer",
    "IERTruth",
    "ier_truths",
    "strip_fence",
]

#: Limits of a truth run: ClassEval's slowest (EightPuzzle.solve) takes seconds.
TRUTH_LIMITS = Limits(wall_time=20.0, memory_mb=1024, output_bytes=4 * 1024 * 1024)
_SEEDS = (0, 1)


@dataclass(frozen=True)
class IERTruth:
    """An item's true output: its envelope, or why there is none (``problem``)."""

    value: Mapping[str, Any] | None
    problem: str | None = None

    def text(self) -> str | None:
        """The true value as a literal, where one spells it."""
        if self.value is None:
            return None
        try:
            return literal_text(decode(dict(self.value)))
        except Exception:  # noqa: BLE001 - an odd envelope just has no literal text
            return None


def _truth_jobs(item: Any, limits: Limits) -> list[Job]:
    return [
        Job(program=item.program, call=item.call, hash_seed=seed, limits=limits) for seed in _SEEDS
    ]


def _truth(first: Outcome, second: Outcome) -> IERTruth:
    """The truth two runs (hash seeds 0 and 1) give, or why there is none."""
    if not first.ok:
        return IERTruth(None, f"the program fails here: {failure_verdict(first).detail}")
    if not second.ok or json.dumps(first.value, sort_keys=True) != json.dumps(
        second.value, sort_keys=True
    ):
        return IERTruth(None, "nondeterministic: two runs (hash seeds 0 and 1) disagree")
    return IERTruth(first.value)


def ier_truths(
    items: Sequence[Any], engine: Engine, *, limits: Limits = TRUTH_LIMITS
) -> dict[str, IERTruth]:
    """Run every item's program twice (hash seeds 0 and 1); ``{sample_id: truth}``."""
    jobs = [job for item in items for job in _truth_jobs(item, limits)]
    outcomes = list(engine.map(jobs))
    return {
        item.sample_id: _truth(outcomes[2 * index], outcomes[2 * index + 1])
        for index, item in enumerate(items)
    }


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


class IERStrictScorer:
    """Literal answers compared type-strictly with the engine's truth; no code runs.

    Kept in the folder for now: an item whose two runs (hash seeds 0 and 1) disagree or
    fail has no truth and scores ``reference_error`` (counted, never dropped), and one
    code fence or backtick pair is taken off the answer; an output ``tasks.Task`` has no
    place for a missing truth, so ``judge.TaskScorer`` would change those verdicts.
    """

    name = "strict"

    def __init__(self, truths: Mapping[str, IERTruth], *, limits: Limits = TRUTH_LIMITS) -> None:
        self.truths = truths
        self.limits = limits

    def plan(self, item: Any, generations: Sequence[str]) -> ScorePlan:
        """One verdict per generation, against the truth ``prepare`` computed -- or, when
        none was (``execlens score`` prepares nothing), the two runs computing it first."""
        known = self.truths.get(item.sample_id)

        def judge(outcomes: Sequence[Outcome]) -> SampleScore:
            truth = known if known is not None else _truth(outcomes[0], outcomes[1])
            if truth.value is None:
                bad = Verdict.failing(VerdictStatus.REFERENCE_ERROR, "no_truth", str(truth.problem))
                verdicts = [bad] * len(generations)
            else:
                reference = decode(dict(truth.value))
                verdicts = [self.judge(g, reference) for g in generations]
            return SampleScore(item.sample_id, self.name, verdicts, [v.passed for v in verdicts])

        return ScorePlan([] if known is not None else _truth_jobs(item, self.limits), judge)

    @staticmethod
    def judge(answer: str, reference: Any) -> Verdict:
        """Parse one answer and compare it with the true value."""
        try:
            predicted = parse_literal(strip_fence(answer), allow_json=False)
        except AnswerParseError as error:
            return Verdict.failing(VerdictStatus.UNPARSEABLE, error.kind, error.message)
        if strict_equal(predicted, reference):
            return Verdict.passing()
        if values_equal(predicted, reference, "python"):
            return Verdict.failing(
                VerdictStatus.WRONG,
                "type_mismatch",
                "equal under Python ==, but not of the same types",
            )
        return Verdict.failing(VerdictStatus.WRONG, "value", "a different value")
