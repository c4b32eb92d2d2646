"""The shape every REval judgement takes: engine jobs to run (maybe none), then a verdict."""

from __future__ import annotations

from execlens.judge import JudgePlan

__all__ = ["REVAL_MODES", "REVAL_TASKS", "RevalPlan"]

REVAL_TASKS = ("coverage", "state", "path", "output")
REVAL_MODES = ("official", "strict")


#: One answer's jobs and verdict function: the generic judge's plan.
RevalPlan = JudgePlan
