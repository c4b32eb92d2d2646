"""``execlens eval``'s run: the units are each planned item of each task; one shard done
is its items asked, their answers read, then scored in every mode (see ``bench._eval``
for the steps and how a run resumes)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._asking import (
    Asking,
    budget_of,
    generate,
    refusal_message,
    sampling_of,
    served_context,
    stops_for,
)
from ._base import Benchmark
from ._eval import (
    EvalConfig,
    EvalError,
    EvalInterrupted,
    EvalResult,
    ModelRequestsFailed,
    check_config,
)
from ._pin import check_revision_used, data_fingerprint, data_revision, unpinned_warning
from ._reading import responses_summary
from ._references import attach_reference
from ._run import Run
from ._runs import (
    Unit,
    pending,
    prepare_context,
    record_isolation,
    run_records,
    score_shard,
    scoring_engine_for,
    summarise,
    unit_steps,
    write_samples,
)

if TYPE_CHECKING:
    from execlens.engine import Engine
    from execlens.store import RunDir, ShardExecutor, Step

__all__ = ["EvalRun"]


class _ServerGaveNothing(Exception):
    """Not one request of a shard was answered: stop asking (the failures are counted)."""


def _units(plan: Sequence[tuple[str, list[Any]]]) -> list[Unit]:
    composite = len(plan) > 1
    return [
        Unit(
            key=f"{task}:{item.sample_id}" if composite else str(item.sample_id),
            task=task,
            position=index,
            item=item,
            answers=[],
        )
        for task, items in plan
        for index, item in enumerate(items)
    ]


def _check_model(config: EvalConfig) -> None:
    """The model settings, and a served model's server, checked before anything is written."""
    from execlens.models import ModelConfigError, check_server, is_local, resolve_client_config

    try:
        if is_local(config.model):
            if config.base_url:
                raise ModelConfigError("--model local runs its own server: drop --base-url")
        else:  # a dead server, refused key or unknown model: named before the run
            check_server(resolve_client_config(config.model, config.base_url))
    except ModelConfigError as exc:
        raise EvalError(str(exc)) from exc


def _open_client(config: EvalConfig) -> Any:
    from execlens.models import open_client

    settings: dict[str, Any] = {}
    if config.max_concurrency:
        settings["max_concurrency"] = config.max_concurrency
    if config.retries is not None:
        from execlens.models import RetryPolicy

        settings["retry"] = RetryPolicy(max_retries=config.retries)
    return open_client(config.model, config.base_url, no_cache=config.no_cache, **settings)


def _perturb(
    bench: Benchmark, plan: Any, config: EvalConfig, engine: Engine | None
) -> dict[str, Any]:
    """``--perturb``: the plan with perturbed programs (under ``"plan"``) and the counts.

    Verification runs on ``engine`` or a small one of its own, closed here (scoring
    starts its own later, sized for the benchmark).
    """
    from ._perturb import parse_perturb_kinds, perturb_plan
    from ._perturb_kinds import PerturbUnsupported

    kinds = parse_perturb_kinds(config.perturb)
    try:
        if engine is not None:
            plan, summary = perturb_plan(bench, plan, kinds, config.perturb_seed, engine)
        else:
            from execlens.judge import scoring_engine

            with scoring_engine(min(config.workers or 4, 4), preload=bench.preload) as own:
                plan, summary = perturb_plan(bench, plan, kinds, config.perturb_seed, own)
    except PerturbUnsupported as exc:
        raise EvalError(str(exc)) from exc
    return {**summary, "plan": plan}


class EvalRun(Run[EvalResult]):
    """One evaluation (the units: each planned item of each task; one shard done: its
    items asked, their answers read, then scored in every mode)."""

    verb = "eval"
    error = EvalError

    def __init__(
        self,
        config: EvalConfig,
        out: Path,
        *,
        overwrite: bool = False,
        show_progress: bool = True,
        engine: Engine | None = None,
        warn: Callable[[str], None] | None = None,
    ) -> None:
        super().__init__(out, overwrite=overwrite, engine=engine, show_progress=show_progress)
        self.config, self.warn = config, warn
        self.bench = check_config(config)
        self.plan, self.fingerprint = self._load()
        self.perturbation = (
            _perturb(self.bench, self.plan, config, engine) if config.perturb else None
        )
        if self.perturbation is not None:
            self.plan = self.perturbation.pop("plan")
        self.units = _units(self.plan)
        if not self.units:
            raise EvalError("no samples selected (check --data, --limit and --offset)")
        first = self.units[0]
        self.first_prompt = self.bench.render(first.item, first.task, config.prompt)
        self.n = int(sampling_of(config, self.first_prompt)["n"])
        _check_model(config)
        self.contexts: dict[str, Any] = {}
        self.failed: Counter[str] = Counter()
        self.failed_messages: dict[str, str] = {}
        self.asked = self.scored = self.resumed = self.left = 0
        self.usage = {"requests": 0, "cache_hits": 0, "completion_tokens": 0}
        self.client: Any = None
        self.server_context: int | None = None
        self._again: Callable[[int], None] | None = None
        self._scoring: Callable[[int], None] = lambda count: None
        self.asking: Asking  # set by begin, once the server's context is known

    def _load(self) -> tuple[list[tuple[str, list[Any]]], dict[str, str]]:
        """The plan (``[(task, items)]``) and the data's fingerprint; the unpinned warning."""
        from execlens.bench import DatasetError

        config, bench = self.config, self.bench
        try:
            with data_revision(config.data_revision) as hub_loads:
                records = bench.load(config.data)
            check_revision_used(hub_loads, bench.name)
            plan = bench.plan(records, config.task, limit=config.limit, offset=config.offset)
        except (DatasetError, ValueError) as exc:
            raise EvalError(f"{exc}") from exc
        fingerprint = data_fingerprint(records, hub_loads)
        unpinned = unpinned_warning(hub_loads, fingerprint)
        if unpinned is not None and self.warn is not None:
            self.warn(unpinned)
        return plan, fingerprint

    def identity(self) -> dict[str, Any]:
        """The config's identity and the data's fingerprint."""
        return {**self.config.identity(), "data_fingerprint": self.fingerprint}

    def steps(self) -> list[Step]:
        """One keyed step per task of the plan."""
        return unit_steps(self.units)

    def start_engine(self) -> AbstractContextManager[Engine]:
        """A scoring engine sized and preloaded as the benchmark asks."""
        return scoring_engine_for(self.bench, self.config.workers)

    def begin(self, executor: ShardExecutor, stack: ExitStack) -> None:
        """Count what resumes; start the model (for ``local``, its server) only when
        something is left; the progress stages and the token budget."""
        assert self.display is not None
        config, total = self.config, len(self.units)
        self.left = len(pending(executor))
        self.resumed = total - self.left
        self.client = stack.enter_context(_open_client(config)) if self.left else None
        self.server_context = served_context(config, self.client)
        generating = self.display.stage("generating", total, self.resumed)
        self._scoring = self.display.stage("scoring", total, self.resumed)

        def advance() -> None:
            self.asked += 1
            generating(self.resumed + self.asked)

        budget = budget_of(config, self.first_prompt, self.server_context)
        self.asking = Asking(budget, advance, self._asking_again, self.warn)

    def _asking_again(self, done: int, total: int) -> None:
        # Replies cut by the token limit, asked again with room to think; another
        # shard's replies (done == 0 again) get a fresh count.
        assert self.display is not None
        if self._again is None or done == 0:
            self._again = self.display.stage("asking again with room to think", total)
        self._again(done)

    def work(self, step: str, chunk: list[Unit]) -> list[dict[str, Any]]:
        """One shard's pending units: asked, extracted, scored (failures left out)."""
        bench, task = self.bench, chunk[0].task
        generated = generate(self.client, bench, chunk, self.config, self.asking)
        self.failed.update(generated.failed)
        for kind, message in generated.messages.items():
            self.failed_messages.setdefault(kind, message)
        if not generated.ok:
            if generated.failed:  # not one answer in a whole shard: stop asking
                raise _ServerGaveNothing  # a dead server (the run reports it)
            return []
        context = self._context(task)
        for unit in generated.ok:  # what the report shows beside each answer
            question = bench.explain(unit.item, task, context)
            if question:
                unit.extra["question"] = question
        scorers = bench.scorers(task, self.config.prompt, context)
        return score_shard(
            generated.ok, scorers, n=self.n, engine=self.engine, progress=self._advance
        )

    def _context(self, task: str) -> Any:
        if task not in self.contexts:
            items = [i for t, items in self.plan if t == task for i in items]
            self.contexts[task] = prepare_context(self.bench, items, task, self.engine)
        return self.contexts[task]

    def _advance(self) -> None:
        self.scored += 1
        self._scoring(self.resumed + self.scored)

    def run_shards(self, executor: ShardExecutor) -> None:
        """Every shard left; a dead server stops the asking (its failures are reported
        by :meth:`finish`), Ctrl-C keeps what finished."""
        try:
            executor.run()
        except _ServerGaveNothing:
            pass  # the failures are counted: reported by finish, the rest is kept
        except KeyboardInterrupt:
            kept = len(self.units) - len(pending(executor))
            raise EvalInterrupted(
                f"interrupted: {kept} of {len(self.units)} samples are kept in {self.out} "
                "(the model's replies so far are cached); rerun the same command to resume"
            ) from None

    def finish(self, run: RunDir, executor: ShardExecutor) -> EvalResult:
        """Refuse a run with failed requests; else ``samples.jsonl``, ``results.json``
        and ``report.html``."""
        if self.client is not None:
            stats = self.client.stats
            self.usage = {
                "requests": stats.requests,
                "cache_hits": stats.cache_hits,
                "completion_tokens": stats.completion_tokens,
            }
        if self.failed:
            raise self._failure()
        final = run_records(executor)
        results = self._results(final)
        record_isolation(run, results, self.engine_used)
        write_samples(run, final)
        run.write_json("results.json", results)
        from ._report import write_report

        report = write_report([self.out], run.file("report.html"))
        return EvalResult(
            self.out,
            results,
            report,
            self.usage["requests"],
            self.usage["cache_hits"],
            self.seconds(),
            self.scored,
            self.resumed,
            extra={"completion_tokens": self.usage["completion_tokens"]},
        )

    def _failure(self) -> EvalError:
        """The error of a run some of whose requests failed: refused (a rerun would
        repeat it) or failed (a rerun retries them)."""
        from execlens.models import request_failure_hint

        config, total, failed = self.config, len(self.units), self.failed
        kinds = ", ".join(f"{count} {kind}" for kind, count in failed.most_common())
        missing = self.left - self.scored
        hints = [request_failure_hint(kind) for kind in failed]
        if all(hints):  # the server refused the requests: a rerun would repeat it
            budget = self.asking.budget
            return EvalError(
                f"{missing} of {total} samples were refused by "
                f"{config.base_url or config.model} ({kinds}; asked with max_tokens "
                f"{budget.base}"
                + (f", then {budget.thinking}" if budget.grows else "")
                + f"): {'; '.join(dict.fromkeys(h for h in hints if h))}"
                + refusal_message(self.failed_messages)
            )
        return ModelRequestsFailed(
            f"{missing} of {total} samples got no answer from {config.model} "
            f"({kinds}); they were not recorded -- rerun the same command to retry "
            f"them ({total - missing} kept in {self.out})"
        )

    def _results(self, final: list[dict[str, Any]]) -> dict[str, Any]:
        """``results.json``: scores, how replies were read, perturbation, references."""
        config, bench, prompt = self.config, self.bench, self.first_prompt
        sampling = {k: v for k, v in sampling_of(config, prompt).items() if k != "stop"}
        budget = budget_of(config, prompt, self.server_context)
        stops = stops_for(config, prompt)
        responses, warnings = responses_summary(
            final,
            reasoning=config.reasoning,
            stops_sent=stops if config.reasoning == "off" else (),
            stops_applied=stops,
            budget={
                "first": budget.base,
                "thinking": budget.thinking if budget.grows else budget.base,
                "server_context": self.server_context,
            },
        )
        task = self.plan[0][0] if len(self.plan) == 1 else config.task
        results: dict[str, Any] = {
            "benchmark": bench.name,
            "task": config.task,
            "prompt": config.prompt,
            "model": config.model,
            "endpoint": config.endpoint,
            "sampling": sampling,
            **summarise(bench, final, task, bench.modes),
        }
        results["responses"] = responses
        if self.perturbation is not None:
            results["perturbation"] = self.perturbation
        if warnings:
            results["flags"] = [*warnings, *results.get("flags", [])]
        skipped = bench.skipped
        if skipped:  # items the benchmark will not ask, with the reason (REval: gensim)
            results["skipped"] = dict(skipped)
        attach_reference(
            results,
            benchmark=bench.name,
            task=config.task,
            model=config.model,
            temperature=sampling.get("temperature"),
            full_benchmark=config.limit is None and not config.offset,
        )
        return results

    def execute(self) -> EvalResult:
        """Run it; a model that cannot be opened is an :class:`EvalError`."""
        from execlens.models import LocalModelError, LocalServerError, ModelConfigError

        try:
            return super().execute()
        except ModelConfigError as exc:
            raise EvalError(str(exc)) from exc
        except (LocalModelError, LocalServerError) as exc:
            raise EvalError(f"the embedded model could not start: {exc}") from exc
