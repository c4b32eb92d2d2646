"""Turning a verdict into a reward: documented, configurable shaping.

Three outcomes matter to a policy: right, wrong but well-formed, and no usable answer.
The default is the plain 1 / 0 / 0 (pass or not); :meth:`Shaping.absolute_zero` is the
+1 / -0.5 / -1 of Absolute Zero (arXiv 2505.03335), which also punishes answers that do
not parse.  Verdicts that are nobody's answer's fault -- the sandbox failed, the judge
failed, the task's own reference is broken -- get ``not_applicable`` (``None`` by
default: TRL leaves such a completion out of the reward mean; verl gets 0.0).

Full-trace answers (kind ``trace``) may earn **partial credit** with ``step_credit=True``
(the ``steps`` preset): a wrong but well-formed trace gets
``wrong + (correct - wrong) * step_credit``, where the judge's ``step_credit`` is the
common prefix of answer and truth over the longer of the two lengths
(``execlens.judge.step_credit``): a step counts only after every earlier step was right,
and a longer guess never earns more.  Other kinds, and unparseable answers, are
unaffected.

A completion that gave *no* answer or several -- cut off while thinking
(``truncated_in_reasoning``), ending inside its thought (``reasoning_only``), different
answers in its final part (``hedged``) -- gets the shaping's :attr:`~Shaping.minimum`
whatever ``malformed`` is set to: a run of cut-off thoughts must never earn more than a
wrong answer, and hedging must never pay.
"""

from __future__ import annotations

from dataclasses import dataclass

from execlens.judge import Verdict, VerdictStatus
from execlens.rewards._extract import NO_ANSWER_PROBLEMS

__all__ = ["MALFORMED_STATUSES", "NOT_APPLICABLE_STATUSES", "Shaping"]

MALFORMED_STATUSES = frozenset({VerdictStatus.UNPARSEABLE})
NOT_APPLICABLE_STATUSES = frozenset(
    {VerdictStatus.SANDBOX_ERROR, VerdictStatus.SCORING_ERROR, VerdictStatus.REFERENCE_ERROR}
)


@dataclass(frozen=True, slots=True)
class Shaping:
    """Reward values per outcome (see the module docstring).

    ``correct``: the verdict passed.  ``wrong``: a well-formed answer judged wrong
    (including an answered input on which the program raised or hung).  ``malformed``:
    no answer could be parsed (``unparseable``: every exploit lands here); no answer at
    all, or a hedged one, gets :attr:`minimum`.
    ``not_applicable``: the judge could not judge (``None`` = no reward).
    ``step_credit``: partial credit for wrong full-trace answers (see the module docstring).
    """

    correct: float = 1.0
    wrong: float = 0.0
    malformed: float = 0.0
    not_applicable: float | None = None
    step_credit: bool = False

    @classmethod
    def absolute_zero(cls) -> Shaping:
        """+1 correct, -0.5 wrong, -1 malformed (Absolute Zero's shaping)."""
        return cls(correct=1.0, wrong=-0.5, malformed=-1.0)

    @classmethod
    def named(cls, name: str) -> Shaping:
        """A preset by name: ``binary`` (1/0/0), ``absolute_zero`` (+1/-0.5/-1) or
        ``steps`` (1/0/0, wrong full traces earning their step credit)."""
        presets = {
            "binary": cls(),
            "absolute_zero": cls.absolute_zero(),
            "steps": cls(step_credit=True),
        }
        if name not in presets:
            raise ValueError(f"unknown shaping {name!r}; one of {sorted(presets)}")
        return presets[name]

    @property
    def minimum(self) -> float:
        """The lowest reward an answer can get."""
        return min(self.correct, self.wrong, self.malformed)

    def reward(self, verdict: Verdict) -> float | None:
        """The reward for ``verdict``."""
        if verdict.passed:
            return self.correct
        if verdict.status is VerdictStatus.UNPARSEABLE and verdict.reason in NO_ANSWER_PROBLEMS:
            return self.minimum
        if verdict.status in MALFORMED_STATUSES:
            return self.malformed
        if verdict.status in NOT_APPLICABLE_STATUSES:
            return self.not_applicable
        credit = verdict.data.get("step_credit") if self.step_credit else None
        if verdict.status is VerdictStatus.WRONG and isinstance(credit, (int, float)):
            # Below 1.0 by the judge's definition (1.0 only for the exact trace, which
            # passed); clamped so that a malformed verdict can never out-earn a right one.
            return self.wrong + (self.correct - self.wrong) * min(max(float(credit), 0.0), 1.0)
        return self.wrong
