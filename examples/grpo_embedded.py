"""GRPO on the embedded model (SmolLM2-135M, CPU) with execution-verified rewards.

Easy output-prediction tasks (one-line functions of a small int: ``x``, ``x + 1``,
``x * 2``, ``x - 1``, a constant) asked as *direct* prompts -- a solved example,
then the task's ``assert f(3) == `` left open, as CRUXEval's direct prompts are -- so
the tiny model's first line is its answer.  The answer is judged strictly (a Python
literal, compared type-strictly by ``execlens.rewards``), plus a small format reward for
a first line that parses as a literal.  A chat prompt asking for ``[ANSWER]`` tags gives
this model no signal at all: it never writes the tags, every completion is unparseable,
every reward is equal and GRPO's advantages are zero.

    .venv/bin/python examples/grpo_embedded.py --steps 32 --out runs/grpo_embedded

Writes ``reward_curve.csv`` / ``reward_curve.png`` (mean reward per GRPO step) and
``summary.json``: the mean reward of the first and last five steps, and the greedy pass
rate on 40 held-out tasks before and after training (the steadier measure: a step's
mean is over only a few prompts).  Measured runs, read honestly: ``examples/results/``.
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import time
from pathlib import Path
from typing import Any

from execlens.rewards import Task, render_direct_prompt, score_batch

# One-line functions of a small int whose outputs a 135M model can learn to predict.
_BODIES = [
    ("return x", lambda v: v),
    ("return x + 1", lambda v: v + 1),
    ("return x * 2", lambda v: v * 2),
    ("return x - 1", lambda v: v - 1),
    ("return 7", lambda v: 7),
]


def easy_task(rng: random.Random, index: int, source: str) -> Task:
    """One easy output-prediction task (function body and argument drawn by ``rng``)."""
    body, fn = _BODIES[rng.randrange(len(_BODIES))]
    value = rng.randint(0, 9)
    return Task(
        "output",
        f"def f(x):\n    {body}\n",
        repr(fn(value)),
        call=f"f({value})",
        id=f"{source}/{index}",
        source=source,
    )


def direct_rows(count: int, seed: int, source: str, shots: int = 1) -> list[dict[str, Any]]:
    """``count`` rows ``{prompt, ground_truth}``: each prompt has ``shots`` solved
    examples before the task."""
    rng = random.Random(seed)
    rows = []
    for index in range(count):
        task = easy_task(rng, index, source)
        solved = [easy_task(rng, -1, "shot") for _ in range(shots)]
        rows.append({"prompt": render_direct_prompt(task, solved), "ground_truth": task.to_json()})
    return rows


def greedy_pass_rate(model_dir: str, rows: list[dict[str, Any]], max_new_tokens: int) -> float:
    """Pass rate of greedy first-line answers of the model at ``model_dir`` on ``rows``."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    tokenizer.padding_side = "left"
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    model = AutoModelForCausalLM.from_pretrained(model_dir).eval()
    answers: list[str] = []
    with torch.no_grad():
        for start in range(0, len(rows), 20):
            batch = [r["prompt"] for r in rows[start : start + 20]]
            encoded = tokenizer(batch, return_tensors="pt", padding=True)
            out = model.generate(
                **encoded,
                max_new_tokens=max_new_tokens,
                do_sample=False,
                pad_token_id=tokenizer.pad_token_id,
            )
            answers += tokenizer.batch_decode(
                out[:, encoded["input_ids"].shape[1] :], skip_special_tokens=True
            )
    from execlens.rewards import first_line

    verdicts = score_batch([r["ground_truth"] for r in rows], [first_line(a) for a in answers])
    return sum(v.passed for v in verdicts) / len(rows)


class RewardCurve:
    """A TrainerCallback body collecting the logged mean rewards per step."""

    def __init__(self) -> None:
        self.rows: list[dict[str, Any]] = []

    def on_log(
        self, args: Any, state: Any, control: Any, logs: dict[str, Any] | None = None, **kwargs: Any
    ) -> None:
        """TRL logs once per step (logging_steps=1): keep the reward columns."""
        if logs and "reward" in logs:
            self.rows.append(
                {
                    "step": state.global_step,
                    "reward": logs["reward"],
                    "correct": logs.get("rewards/execlens_reward/mean"),
                    "format": logs.get("rewards/execlens_format_reward/mean"),
                }
            )


def _plot(rows: list[dict[str, Any]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    steps = [r["step"] for r in rows]
    fig, ax = plt.subplots(figsize=(6, 3.5))
    correct = [r["correct"] for r in rows]
    # A step's mean is over a few prompts only: a trailing 10-step mean shows the trend.
    smooth = [
        sum(correct[max(0, i - 9) : i + 1]) / len(correct[max(0, i - 9) : i + 1])
        for i in range(len(correct))
    ]
    ax.plot(steps, [r["reward"] for r in rows], label="total reward", alpha=0.4)
    ax.plot(steps, correct, label="correct (execution-verified)", alpha=0.4)
    ax.plot(steps, smooth, label="correct, 10-step mean", linewidth=2)
    ax.plot(
        steps,
        [r["format"] for r in rows],
        label="format (parseable literal, unweighted)",
        alpha=0.6,
    )
    ax.set_xlabel("GRPO step")
    ax.set_ylabel("mean reward")
    ax.set_title("GRPO, embedded SmolLM2-135M, easy output prediction")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main() -> None:
    """Run the example (see the module docstring)."""
    from transformers import TrainerCallback

    from execlens.train import GRPORunConfig, embedded_model_dir, run_grpo

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=32)
    parser.add_argument("--out", default="runs/grpo_embedded")
    # Small on purpose: a step of 4 completions of a 1-shot prompt costs ~10-30 s on a
    # busy 2-core CPU.
    parser.add_argument("--batch", type=int, default=4, help="completions per step")
    parser.add_argument("--generations", type=int, default=4, help="completions per prompt")
    parser.add_argument("--shots", type=int, default=1, help="solved examples per prompt")
    parser.add_argument(
        "--max-new-tokens", type=int, default=4, help="enough for a small int and the newline"
    )
    parser.add_argument("--lr", type=float, default=5e-5)
    parser.add_argument("--held-out", type=int, default=40)
    parser.add_argument("--format-weight", type=float, default=0.2)
    parser.add_argument("--seed", type=int, default=0)
    # On a small shared CPU box one intra-op thread is several times faster than two
    # that wait on each other (measured: a forward+backward of 4x50 tokens took 15 s with
    # one thread, 74 s with two, on a loaded 2-core machine); raise it on a free machine.
    parser.add_argument("--threads", type=int, default=1, help="torch intra-op threads")
    options = parser.parse_args()
    import torch

    torch.set_num_threads(options.threads)

    out = Path(options.out)
    (out / "data").mkdir(parents=True, exist_ok=True)
    train_rows = direct_rows(
        options.steps * options.batch // options.generations + 8,
        options.seed,
        "easy",
        options.shots,
    )
    held_out = direct_rows(options.held_out, options.seed + 1, "held_out", options.shots)
    with (out / "data" / "train.jsonl").open("w") as handle:
        handle.writelines(json.dumps(row) + "\n" for row in train_rows)

    started = time.monotonic()
    before = greedy_pass_rate(str(embedded_model_dir()), held_out, options.max_new_tokens)
    curve = RewardCurve()
    callback = type("Curve", (TrainerCallback,), {"on_log": curve.on_log})()
    config = GRPORunConfig(
        model="embedded",
        data=str(out / "data" / "train.jsonl"),
        output_dir=str(out / "model"),
        max_steps=options.steps,
        per_device_train_batch_size=options.batch,
        num_generations=options.generations,
        max_completion_length=options.max_new_tokens,
        learning_rate=options.lr,
        format_weight=options.format_weight,
        answer_format="first_line",
        temperature=1.0,
        use_vllm=False,
        seed=options.seed,
    )
    run_grpo(config, callbacks=[callback])
    after = greedy_pass_rate(str(out / "model"), held_out, options.max_new_tokens)

    with (out / "reward_curve.csv").open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=["step", "reward", "correct", "format"])
        writer.writeheader()
        writer.writerows(curve.rows)
    _plot(curve.rows, out / "reward_curve.png")

    def mean(rows: list[dict[str, Any]], key: str) -> float:
        return sum(r[key] for r in rows) / max(1, len(rows))

    summary = {
        "steps": len(curve.rows),
        "seconds": round(time.monotonic() - started, 1),
        "reward_first5": mean(curve.rows[:5], "reward"),
        "reward_last5": mean(curve.rows[-5:], "reward"),
        "correct_first5": mean(curve.rows[:5], "correct"),
        "correct_last5": mean(curve.rows[-5:], "correct"),
        "held_out_greedy_pass_rate_before": before,
        "held_out_greedy_pass_rate_after": after,
        "options": vars(options),
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
