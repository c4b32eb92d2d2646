"""A task's truth when it is not in hand: missing (with why), or to be built by the core.

Most tasks carry their reference.  A benchmark whose truth is *computed* (CoCoNUT's traced
lines, CodeMind's and CRUXEval-X's outputs, which the data's own text may misstate) says
instead how the core builds it -- :class:`TruthRun`: run the task's own ``program`` and
``call`` under these hash seeds -- and a benchmark whose item cannot have one (an
unrunnable program, an expected value that is no literal) says why -- :class:`NoTruth`.
The judge scores every answer to a task with no truth ``reference_error:no_truth``
(counted, never dropped); ``execlens.bench`` builds and caches the runs.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from execlens.engine import Limits

__all__ = ["NoTruth", "TruthRun", "pending_truth"]


@dataclass(frozen=True)
class NoTruth:
    """A task with no truth, and why (every answer to it: ``reference_error:no_truth``)."""

    reason: str


@dataclass(frozen=True)
class TruthRun:
    """The truth is what the task's ``program`` / ``call`` give when run: the value it
    returns (output kinds) or the lines it executes (``trace``), under each hash seed of
    ``seeds`` -- runs that fail or disagree leave the task with no truth."""

    seeds: tuple[int, ...] = (0,)
    limits: Limits | None = None
    subject: str = "the program"
    """What runs, as a missing truth's reason names it (``the program fails here: ...``)."""
    coverage: bool = False
    """``trace`` only: the truth is the sorted *set* of lines that ran (a coverage capture:
    no step cap, and a run that raised keeps the lines that ran before it), not the
    ordered steps -- what a benchmark grading line coverage (CoverageEval) reads."""

    def content(self) -> dict[str, Any]:
        """What a cache keys the run's truth by, beside the program and call."""
        content: dict[str, Any] = {
            "seeds": list(self.seeds),
            "limits": asdict(self.limits) if self.limits is not None else None,
        }
        if self.coverage:  # only when set: the keys of step truths stay as they were
            content["coverage"] = True
        return content


def pending_truth(reference: Any) -> bool:
    """Whether ``reference`` is no truth in hand (a :class:`NoTruth` or a :class:`TruthRun`):
    a kind's validation of the reference waits for the truth itself."""
    return isinstance(reference, (NoTruth, TruthRun))
