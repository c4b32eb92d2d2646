"""GRPO on the embedded model (SmolLM2-135M, CPU) with execution-verified rewards.

Easy output-prediction tasks (small functions on small inputs, CRUXEval-style prompts
asking for ``[ANSWER]literal[/ANSWER]``), rewarded by ``execlens.rewards`` through TRL's
``GRPOTrainer``.  Writes the per-step reward curve as CSV and PNG.

    .venv/bin/python examples/grpo_embedded.py --steps 30 --out runs/grpo_embedded

It is a learning-signal check, not a recipe for a good model: the 135M model rarely
predicts outputs; what can rise quickly is how often it answers in the asked-for form
(the format reward) and, with luck, the easiest answers.
"""

from __future__ import annotations

import argparse
import csv
import random
from pathlib import Path
from typing import Any

from execlens.rewards import RewardTask, export_tasks

# Functions whose outputs a tiny model can plausibly learn: identity-like, constants,
# lengths, simple arithmetic on small ints.
_TEMPLATES = [
    ("def f(x):\n    return x\n", lambda v: v),
    ("def f(x):\n    return x + 1\n", lambda v: v + 1),
    ("def f(x):\n    return x * 2\n", lambda v: v * 2),
    ("def f(x):\n    return 0\n", lambda v: 0),
    ("def f(x):\n    return x - x\n", lambda v: 0),
]


def easy_tasks(count: int, seed: int = 0) -> list[RewardTask]:
    """``count`` easy output-prediction tasks."""
    rng = random.Random(seed)
    tasks = []
    for index in range(count):
        code, fn = _TEMPLATES[index % len(_TEMPLATES)]
        value = rng.randint(0, 9)
        tasks.append(RewardTask("output", code, repr(fn(value)), call=f"f({value})",
                                id=f"easy/{index}", source="easy"))
    return tasks


class RewardCurve:
    """A TrainerCallback collecting the logged mean rewards per step."""

    def __init__(self) -> None:
        self.rows: list[dict[str, Any]] = []

    def on_log(self, args: Any, state: Any, control: Any, logs: dict[str, Any] | None = None,
               **kwargs: Any) -> None:
        """TRL logs once per step (logging_steps=1): keep the reward columns."""
        if logs and "reward" in logs:
            self.rows.append({"step": state.global_step, "reward": logs["reward"],
                              "correct": logs.get("rewards/execlens_reward/mean"),
                              "format": logs.get("rewards/execlens_format_reward/mean")})


def main() -> None:
    """Run the example (see the module docstring)."""
    from transformers import TrainerCallback

    from execlens.train import GRPORunConfig, run_grpo

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--out", default="runs/grpo_embedded")
    parser.add_argument("--batch", type=int, default=4)
    parser.add_argument("--generations", type=int, default=4)
    parser.add_argument("--max-new-tokens", type=int, default=24)
    parser.add_argument("--lr", type=float, default=2e-5)
    options = parser.parse_args()

    out = Path(options.out)
    export_tasks(easy_tasks(256), out / "data", formats=["trl"])
    curve = RewardCurve()
    callback = type("Curve", (TrainerCallback,), {"on_log": curve.on_log})()
    config = GRPORunConfig(
        model="embedded", data=str(out / "data"), output_dir=str(out / "model"),
        max_steps=options.steps, per_device_train_batch_size=options.batch,
        num_generations=options.generations, max_completion_length=options.max_new_tokens,
        learning_rate=options.lr, format_weight=0.5, temperature=1.0)
    run_grpo(config, callbacks=[callback])

    with (out / "reward_curve.csv").open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=["step", "reward", "correct", "format"])
        writer.writeheader()
        writer.writerows(curve.rows)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    steps = [r["step"] for r in curve.rows]
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.plot(steps, [r["reward"] for r in curve.rows], label="total reward")
    ax.plot(steps, [r["correct"] for r in curve.rows], label="correct (execution-verified)")
    ax.plot(steps, [r["format"] for r in curve.rows], label="format")
    ax.set_xlabel("GRPO step")
    ax.set_ylabel("mean reward")
    ax.legend()
    fig.tight_layout()
    fig.savefig(out / "reward_curve.png", dpi=120)
    half = max(1, len(curve.rows) // 2)
    first = sum(r["reward"] for r in curve.rows[:half]) / half
    last = sum(r["reward"] for r in curve.rows[half:]) / max(1, len(curve.rows) - half)
    print(f"mean reward, first half {first:.3f}, second half {last:.3f}; "
          f"curve in {out / 'reward_curve.csv'}")


if __name__ == "__main__":
    main()
