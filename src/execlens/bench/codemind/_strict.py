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

SR is the question kind ``codemind_sr`` (``_sr_kind``), judged by the core.
"""

from __future__ import annotations

from execlens.engine import Limits
from execlens.judge import Verdict, VerdictStatus
from execlens.values import AnswerParseError, parse_literal

__all__ = [
    "TRUTH_LIMITS",
    "TRUTH_SEEDS",
    "read_ier_answer",
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
