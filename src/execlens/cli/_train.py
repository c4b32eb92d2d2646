"""``execlens train chains|sft|grpo CONFIG``: teacher chains, TRL recipes with
execution-verified rewards.

Configs are YAML / TOML / JSON (see ``examples/train/``); ``model: embedded`` trains the
embedded model on CPU, any other value names a model folder or hub id.  A bad config or
a missing training dependency ends with one ``error:`` line and exit code 2.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from execlens.cli._run import usage_error

train_app = typer.Typer(
    help="Train with TRL: collect teacher chains, SFT on them, GRPO on execution-verified rewards.",
    no_args_is_help=True,
)


def _load(config: Path, kind: str) -> Any:
    from execlens.train import ConfigError, load_config

    try:
        return load_config(config, kind)
    except ConfigError as exc:
        usage_error(str(exc))


def _chains(config_path: Path) -> None:
    from execlens.models import LocalModelError, LocalServerError, ModelConfigError
    from execlens.train import ConfigError, run_chains

    config = _load(config_path, "chains")
    try:
        stats = run_chains(config, progress=True)
    except (ConfigError, ModelConfigError, LocalModelError) as exc:
        usage_error(str(exc))
    except LocalServerError as exc:
        usage_error(f"the embedded model's server did not start: {exc}")
    accepted = sum(stats.accepted.values())
    sampled = sum(stats.sampled.values())
    if sampled and stats.failed_requests == sampled:
        # Not one answer: the teacher is down or refuses every request (nothing is cached).
        typer.echo(
            f"error: all {sampled} requests to the teacher {config.model} failed; "
            f"check that its server is running and rerun",
            err=True,
        )
        raise typer.Exit(1)
    cut = stats.rejected.get("truncated_in_reasoning", 0)
    room = (
        f"raise thinking_max_tokens (now {config.thinking_max_tokens}) or serve the teacher "
        "with a longer context"
        if config.thinking_max_tokens
        else "set thinking_max_tokens (e.g. 32768) so a cut chain is asked again with room"
    )
    # The counts per kind come first, so a run that kept nothing still shows them.
    for kind, rate in sorted(stats.acceptance().items()):
        typer.echo(f"  {kind}: {stats.accepted.get(kind, 0)}/{stats.sampled[kind]} ({rate:.1%})")
    if sampled and not accepted:
        reasons = ", ".join(
            f"{n} {r}" for r, n in sorted(stats.rejected.items(), key=lambda x: -x[1])
        )
        usage_error(
            f"0 of {sampled} chains accepted ({reasons or 'none judged'}); "
            + (
                f"the teacher was still thinking when its budget ran out: {room}"
                if cut
                else f"see {Path(config.output_dir) / 'chains.stats.json'}"
            )
        )
    typer.echo(
        f"chains: {accepted} of {sum(stats.sampled.values())} accepted; written to "
        f"{Path(config.output_dir) / 'chains.jsonl'}"
    )
    if cut:
        typer.echo(
            f"warning: {cut} of {sampled} chains were cut off inside their reasoning "
            f"(truncated_in_reasoning): {room}",
            err=True,
        )
    if stats.failed_requests:
        typer.echo(
            f"  {stats.failed_requests} samples failed (request errors); a rerun "
            f"retries them, the answered ones come from the cache"
        )


def _run(kind: str, config_path: Path) -> None:
    from execlens.train import ConfigError, TrainDependencyError, run_grpo, run_sft

    config = _load(config_path, kind)
    try:
        result = (run_sft if kind == "sft" else run_grpo)(config)
    except (ConfigError, TrainDependencyError) as exc:
        usage_error(str(exc))
    rewards = [h["reward"] for h in result.log_history if "reward" in h]
    typer.echo(f"{kind}: {result.steps} steps; model saved to {result.output_dir}")
    if rewards:
        typer.echo(f"mean reward: first step {rewards[0]:.3f}, last step {rewards[-1]:.3f}")


@train_app.command("chains")
def chains(
    config: Annotated[Path, typer.Argument(help="a chains config (.yaml/.toml/.json)")],
) -> None:
    """Collect teacher reasoning chains the judge accepts (SFT data; acceptance per kind)."""
    _chains(config)


@train_app.command("sft")
def sft(config: Annotated[Path, typer.Argument(help="an SFT config (.yaml/.toml/.json)")]) -> None:
    """Supervised fine-tuning (TRL SFTTrainer) on chat messages or teacher chains."""
    _run("sft", config)


@train_app.command("grpo")
def grpo(config: Annotated[Path, typer.Argument(help="a GRPO config (.yaml/.toml/.json)")]) -> None:
    """GRPO (TRL GRPOTrainer) with execlens' execution-verified rewards."""
    _run("grpo", config)


def register(app: typer.Typer) -> None:
    """Add the ``train`` verb group."""
    app.add_typer(train_app, name="train")
