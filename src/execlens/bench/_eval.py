"""``execlens eval``: inference + scoring of one benchmark task, resumable, with a report.

A run is a pipeline of small steps over plain records, each one a method of the
benchmark's declaration (``Benchmark``, found in the registry):

1. **load** the benchmark's records (hub, at ``--data-revision`` when given, or
   ``--data``) and **plan** the items to ask; the data's fingerprint (the revision, else
   a digest of the records) is part of the run's identity;
2. **render** each item's official prompt (chat messages or a plain completion);
3. **generate** ``n`` samples per prompt through the OpenAI-compatible client (every
   request goes through the content-addressed cache, so a rerun costs nothing);
4. **read** each response once (``tasks.prompts.read_response``): a reasoning model's
   thought (a ``reasoning_content`` field, ``<think>`` tags, harmony channels) is set
   apart, and each answer is **extracted** from the final part only, exactly as the
   official post-processing does;
5. **score** in every mode into shards of the run directory (``execlens.store``);
6. **summarise** into ``samples.jsonl`` and ``results.json``, render ``report.html``.

Reasoning models: each reply is read on its own (``bench._reading``, shared with
``execlens score``), so a model that thinks on some prompts and not on others is read
right on each.  Under ``reasoning="auto"`` (the default) and ``"on"`` the benchmark's
stop strings are never sent -- a server applies them inside a thought and ends it at a
draft -- but cut each final part after the fact, so the official extraction sees exactly
the text it would have seen.  The token budget follows the one rule every path that asks
a model shares (``models.TokenBudget``): ``auto`` asks with the official budget and gives
a reply the limit cut a second ask with the benchmark's ``reasoning_max_tokens``, kept
within the server's context; ``on`` asks with the thinking budget at once; a
``max_tokens`` the user gave is never raised.  A completion cut off inside its thought
has no answer (``truncated_in_reasoning``); ``results.json`` says per run how answers
were read and flags a run where many were cut or a draft could have been scored.

A sample whose model request failed is not recorded: the run ends with an error naming
how many, and a rerun asks exactly those again.  Kill it anywhere and run it again:
finished shards are kept, generated text comes back from the cache, and the final files
are byte for byte the same.  ``--limit`` may grow or shrink between runs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from execlens.tasks.prompts import DEFAULT_THINK_TAGS

from ._base import Benchmark
from ._pin import DataOptionError, check_data_options
from ._protocol import BenchmarkError
from ._registry import get_benchmark
from ._run import RunError

if TYPE_CHECKING:
    from execlens.engine import Engine

__all__ = [
    "EvalConfig",
    "EvalError",
    "EvalInterrupted",
    "EvalResult",
    "ModelRequestsFailed",
    "run_eval",
]


class EvalError(RunError):
    """An evaluation that cannot run as asked (bad benchmark/task/prompt, mixed runs)."""


class ModelRequestsFailed(EvalError):
    """Some model requests failed: their samples were not recorded (rerun to retry)."""


class EvalInterrupted(EvalError):
    """The run was interrupted (Ctrl-C): what finished is kept, a rerun resumes it."""


@dataclass
class EvalConfig:
    """Everything that defines one evaluation run.

    Sampling fields left as ``None`` take the benchmark's official defaults (the prompt
    records them); ``endpoint="chat"`` sends chat messages (instruct models),
    ``"completion"`` the plain prompt with no chat template (base models, REval's
    reference runner).
    """

    benchmark: str
    task: str
    prompt: str = "direct"
    model: str = "local"
    base_url: str | None = None
    n: int | None = None
    temperature: float | None = None
    top_p: float | None = None
    max_tokens: int | None = None
    seed: int | None = 0
    endpoint: str = "chat"
    limit: int | None = None
    offset: int = 0
    data: str | None = None
    workers: int | None = None
    no_cache: bool = False
    max_concurrency: int | None = None
    retries: int | None = None
    """Retries of a failed request (default: the client's policy)."""
    extra_body: dict[str, Any] = field(default_factory=dict)
    """Server-specific request fields (vLLM's ``top_k``, ``chat_template_kwargs``, ...)."""
    reasoning: str = "auto"
    """``auto`` (set apart any thought each reply holds; a reply the official budget cut
    is asked again with room), ``on`` (a reasoning model: the thinking budget at once),
    ``off`` (the content is the answer, whole; stop strings sent)."""
    stop: tuple[str, ...] | None = None
    """Stop strings instead of the benchmark's (``()``: none); sent only under ``off``,
    otherwise applied to each final part afterwards."""
    think_tags: tuple[str, str] = DEFAULT_THINK_TAGS
    """The tags around an inline thought."""
    perturb: tuple[str, ...] = ()
    """Perturbation kinds applied in order to every program (``bench.PERTURB_KINDS``)."""
    perturb_seed: int = 0
    data_revision: str | None = None
    """The hub revision (commit, tag) the data is loaded at (``--data-revision``); None:
    the hub's current version, or ``data`` when given."""

    def identity(self) -> dict[str, Any]:
        """What must match for a rerun to resume this run (not --limit: it may grow;
        ``run_eval`` adds the data's fingerprint, which holds ``data_revision``)."""
        keys = (
            "benchmark",
            "task",
            "prompt",
            "model",
            "base_url",
            "n",
            "temperature",
            "top_p",
            "max_tokens",
            "seed",
            "endpoint",
            "data",
        )
        identity = {key: getattr(self, key) for key in keys}
        if self.reasoning != "off":
            # Replies are read one by one, asked without stop strings and asked again
            # with room when cut: a run begun the old way (stops sent, a thinker
            # detected once from reply 1) is another run, not one to resume.
            identity["asking"] = "per-reply"
        # Each absent at its default: runs from before the option still resume.
        if self.extra_body:
            identity["extra_body"] = self.extra_body
        if self.reasoning != "auto":
            identity["reasoning"] = self.reasoning
        if self.stop is not None:
            identity["stop"] = list(self.stop)
        if self.think_tags != DEFAULT_THINK_TAGS:
            identity["think_tags"] = list(self.think_tags)
        if self.perturb:
            identity["perturb"] = {"kinds": list(self.perturb), "seed": self.perturb_seed}
        return identity


@dataclass
class EvalResult:
    """A finished run: where it is, its results, what this invocation cost."""

    out_dir: Path
    results: dict[str, Any]
    report: Path | None
    requests: int
    cache_hits: int
    seconds: float
    samples_scored_now: int
    samples_resumed: int = 0
    extra: dict[str, Any] = field(default_factory=dict)


def check_config(config: EvalConfig) -> Benchmark:
    """The benchmark of ``config``, after checking its task, prompt and numbers."""
    try:
        bench = get_benchmark(config.benchmark)
    except BenchmarkError as exc:
        raise EvalError(str(exc)) from exc
    spec = bench.tasks.get(config.task)
    if spec is None:
        raise EvalError(
            f"{bench.name} has no task {config.task!r} "
            f"(expected one of {', '.join(sorted(bench.tasks))})"
        )
    if config.prompt not in spec.styles:
        raise EvalError(
            f"{bench.name}/{config.task} has no prompt {config.prompt!r} "
            f"(expected one of {', '.join(spec.styles)})"
        )
    if config.endpoint not in ("chat", "completion"):
        raise EvalError("--endpoint must be 'chat' or 'completion'")
    for name, value, low in (
        ("--n", config.n, 1),
        ("--max-tokens", config.max_tokens, 1),
        ("--limit", config.limit, 0),
        ("--offset", config.offset, 0),
        ("--workers", config.workers, 1),
        ("--concurrency", config.max_concurrency, 1),
        ("--retries", config.retries, 0),
    ):
        if value is not None and value < low:
            raise EvalError(f"{name} must be at least {low}, got {value}")
    if config.temperature is not None and not 0.0 <= config.temperature <= 2.0:
        raise EvalError(f"--temperature must be between 0 and 2, got {config.temperature}")
    if config.top_p is not None and not 0.0 < config.top_p <= 1.0:
        raise EvalError(f"--top-p must be in (0, 1], got {config.top_p}")
    if config.reasoning not in ("auto", "on", "off"):
        raise EvalError(f"--reasoning must be auto, on or off, got {config.reasoning!r}")
    start, end = config.think_tags
    if not start.strip() or not end.strip() or start == end:
        raise EvalError(
            "--think-tags needs two different, non-empty tags, e.g. '<think>' '</think>'"
        )
    if config.stop is not None and any(not stop for stop in config.stop):
        raise EvalError("--stop strings must not be empty (use --no-stop to send none)")
    try:
        check_data_options(config.data, config.data_revision)
    except DataOptionError as exc:
        raise EvalError(str(exc)) from exc
    if config.perturb:
        from ._perturb import parse_perturb_kinds
        from ._perturb_kinds import PerturbUnsupported

        try:
            parse_perturb_kinds(config.perturb)
        except PerturbUnsupported as exc:
            raise EvalError(str(exc)) from exc
        if bench.perturb_note is not None:
            raise EvalError(f"{bench.name} does not support --perturb ({bench.perturb_note})")
    return bench


def run_eval(
    config: EvalConfig,
    out: Path,
    *,
    overwrite: bool = False,
    show_progress: bool = True,
    engine: Engine | None = None,
    warn: Callable[[str], None] | None = None,
) -> EvalResult:
    """Run (or resume) one evaluation into ``out`` and return its results.

    ``warn(message)`` hears what the user should know before the run starts (hub data
    loaded at no pinned revision).  Raises :class:`EvalError` for a run that cannot
    start (nothing is written then) and :class:`ModelRequestsFailed` when some requests
    failed (everything else is kept).
    """
    from ._eval_run import EvalRun

    run = EvalRun(
        config, out, overwrite=overwrite, show_progress=show_progress, engine=engine, warn=warn
    )
    return run.execute()
