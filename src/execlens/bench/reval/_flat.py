"""REval's metrics as the reports show them: one flat ``{name: percent}`` per mode."""

from __future__ import annotations

from typing import Any

__all__ = ["REVAL_EVAL_TASKS", "reval_metrics_for_report"]

REVAL_EVAL_TASKS = ("coverage", "path", "state", "output")


def reval_metrics_for_report(metrics: dict[str, Any], task: str | None) -> dict[str, float]:
    """Flatten one mode's REval metrics to ``{name: percent}`` for tables and plots."""
    flat: dict[str, float] = {}
    tasks = REVAL_EVAL_TASKS if task is None else (task,)
    for name in tasks:
        value = metrics.get(name)
        if isinstance(value, dict):
            for key in ("accuracy", "precision", "recall", "f1"):
                if isinstance(value.get(key), (int, float)):
                    flat[f"{name} {key}" if key != "accuracy" else name] = float(value[key])
        elif isinstance(value, (int, float)):
            flat[name] = float(value)
    if task is None and isinstance(metrics.get("ic"), (int, float)):
        flat["IC"] = float(metrics["ic"])
    return flat
