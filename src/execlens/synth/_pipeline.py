"""Drive a synthesis run: sources → stages → dataset, through ``execlens.store``.

The stages run on the store's streaming :class:`~execlens.store.ShardExecutor`: the
sources are cut into shards of ``shard_size`` records, and shard ``j`` of a stage
becomes shard ``j`` of the next one (its accepted records) the moment it is written, so
collection, model requests and verification overlap and the driver holds only the shards
in flight.  A shard is written whole with its completion marker, so a killed run redoes
only the shards without one; each shard's input is a pure function of finished shards,
which makes the final files a pure function of the config: byte-identical after any
kill and rerun, and the same under the ``local`` and ``ray`` executors.  ``assemble``
then streams the last stage's shards into the datasets (in the sources' order).
"""

from __future__ import annotations

import contextlib
import math
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from execlens.synth import _sources
from execlens.synth._config import ConfigError, SynthConfig
from execlens.synth._stage import Stage, StageContext, is_accepted, load_stages

if TYPE_CHECKING:
    from execlens.models import ClientConfig
    from execlens.store import ShardSet, Step

__all__ = ["run_pipeline", "synth_status"]

Record = dict[str, Any]

# The streaming reader when the sources module has it; the list reader otherwise.
_read_source = getattr(_sources, "iter_source", _sources.load_source)


@contextlib.contextmanager
def _model(config: SynthConfig) -> Iterator[ClientConfig | None]:
    """The client configuration every worker uses; starts the embedded model if asked."""
    if not config.needs_model() or config.model is None:
        yield None
        return
    from execlens.models import LocalModelServer, is_local, resolve_client_config

    model = config.model
    if is_local(model.name):
        with LocalModelServer() as server:
            yield server.client_config(**model.client_settings())
        return
    yield resolve_client_config(
        model.name, model.base_url, model.api_key, **model.client_settings()
    )


def _check_before_run(config: SynthConfig) -> None:
    """What would otherwise fail after the run directory is made, checked first: the
    judge workers' settings (``EXECLENS_JUDGE_*``), a served model's URL and server
    (health check: dead, refused key, unknown model) and Ray."""
    from execlens.judge import check_judge_settings

    check_judge_settings()
    if config.needs_model() and config.model is not None:
        from execlens.models import (
            ModelConfigError,
            check_server,
            is_local,
            resolve_client_config,
        )

        model = config.model
        if not is_local(model.name):
            try:
                check_server(resolve_client_config(model.name, model.base_url, model.api_key))
            except ModelConfigError as exc:
                raise ConfigError(f"model: {exc}") from None
    if config.executor == "ray":
        from execlens.synth._ray import ray_available

        ray_available(config)


def _source_records(config: SynthConfig) -> Iterator[Record]:
    for source in config.sources:
        yield from _read_source(source)


def _count_entries(config: SynthConfig) -> Counter[str | None]:
    """Records entering at each stage (``None``: unreadable), counted in one streaming
    pass, so every stage's shard count is known before anything runs."""
    counts: Counter[str | None] = Counter()
    for number, source in enumerate(config.sources):
        for record in _read_source(source):
            entry = record.get("entry")
            if entry is not None and entry not in config.stages:
                raise ConfigError(
                    f"sources[{number}] holds records that enter at {entry!r}, "
                    f"which is not in stages: add it to stages"
                )
            counts[entry] += 1
    return counts


def _feed(config: SynthConfig, entry: str | None) -> Iterator[list[Record]]:
    """The chunks of records entering at ``entry``, read from the sources as needed."""
    chunk: list[Record] = []
    for record in _source_records(config):
        if record.get("entry") != entry:
            continue
        record = dict(record)
        record.pop("entry", None)
        chunk.append(record)
        if len(chunk) >= config.shard_size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _steps(
    config: SynthConfig, registry: dict[str, type[Stage]], counts: Counter[str | None]
) -> tuple[list[Step], str | None]:
    """The executor's steps (every per-shard stage, plus ``load`` for unreadable
    records) and the main line's last stage."""
    from execlens.store import Step

    size = config.shard_size
    steps: list[Step] = []
    if counts.get(None):
        steps.append(
            Step(
                "load",
                fed=math.ceil(counts[None] / size),
                feed=_feed(config, None),
                passthrough=True,
            )
        )
    last: str | None = None
    for name in config.stages:
        cls = registry[name]
        if cls.global_stage:
            continue
        fed = math.ceil(counts.get(name, 0) / size)
        steps.append(
            Step(
                name,
                fed=fed,
                feed=_feed(config, name) if fed else None,
                upstream=cls.consumes or last,
                select=is_accepted,
                concurrency=cls.concurrency,
            )
        )
        if cls.consumes is None:
            last = name
    return steps, last


class _Outputs:
    """The finished run as ``assemble`` reads it: streams over the shards."""

    def __init__(
        self, shards: dict[str, ShardSet], last: str | None, registry: dict[str, type[Stage]]
    ) -> None:
        self._shards = shards
        self._last = last
        self._registry = registry

    def final(self) -> Iterator[Record]:
        if self._last is None:
            return iter(())
        return (r for r in self._shards[self._last].iter_records() if is_accepted(r))

    def stage_records(self) -> dict[str, Iterator[Record]]:
        return {name: shards.iter_records() for name, shards in self._shards.items()}

    def datasets(self) -> dict[str, Iterator[Record]]:
        return {
            cls.dataset: self._shards[name].iter_records()
            for name, cls in self._registry.items()
            if cls.dataset and name in self._shards
        }


def _local_backend(context: StageContext, registry: dict[str, type[Stage]], threads: int) -> Any:
    from execlens.store import LocalBackend

    def work(
        name: str, records: list[Record], index: int, total: int
    ) -> tuple[list[Record], dict[str, Any]]:
        stage = registry[name](context)
        out = list(stage.run(records, index, total))
        return out, {"records": len(out), **stage.counters}

    return LocalBackend(work, threads)


def run_pipeline(
    config: SynthConfig, *, overwrite: bool = False, progress: bool = True, console: Any = None
) -> dict[str, Any]:
    """Run (or resume) the configured stages; returns the run's status summary.

    Raises :class:`ConfigError` for a config the data cannot satisfy and
    ``execlens.store.StoreError`` subclasses for a locked or mismatched run directory.
    """
    import subprocess

    from execlens.engine import EngineError, program_fingerprint, resolve_program_python
    from execlens.store import RunDir, ShardExecutor

    registry = load_stages()
    counts = _count_entries(config)
    if not sum(counts.values()):  # an empty run is a mistake, not a dataset
        where = ", ".join(str(source.path or source.dataset) for source in config.sources)
        raise ConfigError(
            f"the sources hold no records ({where}); check their paths, offset and limit"
        )
    _check_before_run(config)
    # The program environment decides every executed pair: a run resumed under another
    # interpreter (NumPy 2 instead of 1.x) is another run, not a continuation.
    try:
        program = program_fingerprint(resolve_program_python()).key()
    except (EngineError, OSError, subprocess.SubprocessError, ValueError) as exc:
        raise ConfigError(f"the program interpreter is unusable: {exc}") from exc
    identity = {"task": "execlens-synth", "config": config.identity(), "program": program}
    with RunDir.open(config.out, identity, overwrite=overwrite) as run, _model(config) as client:
        context = StageContext(config, run_path=run.path, client_config=client)
        bar = _Progress(progress, console)
        backend: Any = None
        try:
            steps, last = _steps(config, registry, counts)
            if config.executor == "ray":
                from execlens.synth._ray import ray_backend

                backend = ray_backend(config, run.path, client, threads=len(steps))
            else:
                backend = _local_backend(
                    context, registry, threads=sum(s.concurrency for s in steps)
                )
            executor = ShardExecutor(run, steps, backend)
            for step in steps:
                if step.name != "load":
                    run.write_json(
                        f"plan.{step.name}.json",
                        {"shards": executor.totals[step.name], "shard_size": config.shard_size},
                    )
                bar.start(step.name, executor.totals[step.name], len(executor.done(step.name)))
            executor.run(on_shard=lambda name, index, records, stats: bar.advance(name))
            for name in config.stages:
                if registry[name].global_stage:
                    registry[name](context).write(run, _Outputs(executor.shards, last, registry))
            kept, reasons = _summary(
                executor.shards.get(last) if last else None, counts.get(None, 0)
            )
        finally:
            bar.stop()
            if backend is not None and hasattr(backend, "close"):
                backend.close()
            context.close()
            if config.executor == "ray":
                from execlens.synth._ray import shutdown

                shutdown()
    status = synth_status(config.out)
    status["kept"] = kept
    status["rejections"] = dict(reasons.most_common())
    return status


def _summary(last: ShardSet | None, unreadable: int) -> tuple[int, Counter[str]]:
    """What reached the end, and why the rest did not (streamed over the last stage's
    shards): the CLI refuses to call a run whose every record was rejected a success."""
    kept = 0
    reasons: Counter[str] = Counter()
    for record in last.iter_records() if last is not None else ():
        if isinstance(record.get("reject"), dict):
            reasons[str(record["reject"].get("reason"))] += 1
        elif not record.get("reject"):
            kept += 1
    if unreadable:
        reasons["unreadable"] += unreadable
    return kept, reasons


class _Progress:
    """Shards done per stage: bars on a terminal, plain lines when piped (StageProgress)."""

    def __init__(self, enabled: bool, console: Any) -> None:
        from execlens._progress import StageProgress

        self._display = StageProgress(enabled).__enter__()
        self._updates: dict[str, Any] = {}
        self._done: dict[str, int] = {}

    def start(self, name: str, total: int, done: int) -> None:
        self._updates[name] = self._display.stage(f"{name:<14}", total, done)
        self._done[name] = done

    def advance(self, name: str) -> None:
        self._done[name] += 1
        self._updates[name](self._done[name])

    def stop(self) -> None:
        self._display.__exit__(None, None, None)


def synth_status(out: str | Path) -> dict[str, Any]:
    """Progress of a run directory: per stage, shards done of planned, and record counts."""
    from execlens.store import StoreError, read_json

    root = Path(out)
    manifest = root / "manifest.json"
    if not manifest.is_file():
        raise StoreError(
            f"{root}: not a synthesis run directory (no manifest.json); "
            "give the `out` of a config that has run"
        )
    config = read_json(manifest).get("identity", {}).get("config", {})
    stages: dict[str, Any] = {}
    for name in config.get("stages", []):
        plan_path = root / f"plan.{name}.json"
        plan = read_json(plan_path) if plan_path.is_file() else None
        markers = root / ".done" / name
        done = sorted(markers.glob("*.json")) if markers.is_dir() else []
        records = rejected = 0
        for marker in done:
            stats = read_json(marker).get("stats") or {}
            records += int(stats.get("records", 0))
            rejected += sum(int(v) for k, v in stats.items() if k.startswith("rejected:"))
        entry: dict[str, Any] = {
            "shards_done": len(done),
            "shards": plan["shards"] if plan else None,
            "records": records,
            "rejected": rejected,
        }
        if name == "assemble":
            card = root / "card.json"
            entry = {"done": card.is_file()}
        stages[name] = entry
    return {"out": str(root), "stages": stages, "order": list(stages)}
