"""Drive a synthesis run: sources → stages → dataset, through ``execlens.store``.

Each stage's input is cut into shards of ``shard_size`` records in a fixed order; a
shard is written whole with its completion marker, so a killed run redoes only the
shards without one.  Stages run one after another (a stage's input is the previous
stage's finished, accepted output, read back in shard order), which makes the final
files a pure function of the config: byte-identical after any kill and rerun, and the
same under the ``local`` and ``ray`` executors.
"""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from execlens.synth._config import PIPELINE_ORDER, ConfigError, SynthConfig
from execlens.synth._sources import load_source
from execlens.synth._stage import StageContext, accepted, load_stages

if TYPE_CHECKING:
    from execlens.models import ClientConfig

__all__ = ["run_pipeline", "synth_status"]

Record = dict[str, Any]
# Runs a stage over its pending shards: (stage name, chunks, pending indices, done callback).
ShardRunner = Callable[[str, list[list[Record]], list[int], Callable[[int, list[Record],
                                                                     dict[str, int]], None]], None]


def _chunks(records: list[Record], size: int) -> list[list[Record]]:
    return [records[i:i + size] for i in range(0, len(records), size)]


@contextlib.contextmanager
def _model(config: SynthConfig) -> Iterator[ClientConfig | None]:
    """The client configuration every worker uses; starts the embedded model if asked."""
    needs = {"transform", "predict", "revise", "difficulty"} & set(config.stages)
    if not needs or config.model is None:
        yield None
        return
    from execlens.models import LocalModelServer, is_local, resolve_client_config

    model = config.model
    if is_local(model.name):
        with LocalModelServer() as server:
            yield server.client_config(max_concurrency=model.max_concurrency,
                                       timeout=model.timeout)
        return
    yield resolve_client_config(model.name, model.base_url, model.api_key,
                                max_concurrency=model.max_concurrency, timeout=model.timeout)


def _check_before_run(config: SynthConfig) -> None:
    """What would otherwise fail after the run directory is made, checked first: a served
    model's URL and server (health check: dead, refused key, unknown model) and Ray."""
    needs = {"transform", "predict", "revise", "difficulty"} & set(config.stages)
    if needs and config.model is not None:
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


def _run_local(context: StageContext, progress: Any) -> ShardRunner:
    stages = load_stages()

    def runner(name: str, chunks: list[list[Record]], pending: list[int],
               done: Callable[[int, list[Record], dict[str, int]], None]) -> None:
        for index in pending:
            stage = stages[name](context)
            records = list(stage.run(chunks[index], index, len(chunks)))
            done(index, records, dict(stage.counters))
    return runner


def _entering(config: SynthConfig) -> tuple[dict[str, list[Record]], list[Record]]:
    entering: dict[str, list[Record]] = {}
    bad: list[Record] = []
    for number, source in enumerate(config.sources):
        for record in load_source(source):
            entry = record.pop("entry")
            if entry is None:
                bad.append(record)
            elif entry not in config.stages:
                raise ConfigError(f"sources[{number}] holds records that enter at {entry!r}, "
                                  f"which is not in stages: add it to stages")
            else:
                entering.setdefault(entry, []).append(record)
    return entering, bad


def run_pipeline(config: SynthConfig, *, overwrite: bool = False, progress: bool = True,
                 console: Any = None) -> dict[str, Any]:
    """Run (or resume) the configured stages; returns the run's status summary.

    Raises :class:`ConfigError` for a config the data cannot satisfy and
    ``execlens.store.StoreError`` subclasses for a locked or mismatched run directory.
    """
    import subprocess

    from execlens.engine import EngineError, program_fingerprint, resolve_program_python
    from execlens.store import RunDir

    stages = load_stages()
    entering, bad = _entering(config)
    if not bad and not any(entering.values()):  # an empty run is a mistake, not a dataset
        where = ", ".join(str(source.path or source.dataset) for source in config.sources)
        raise ConfigError(f"the sources hold no records ({where}); check their paths, "
                          f"offset and limit")
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
        try:
            if config.executor == "ray":
                from execlens.synth._ray import ray_runner

                runner = ray_runner(config, run.path, client)
            else:
                runner = _run_local(context, bar)
            if bad:
                load = run.shards("load")
                if not load.done(0):
                    load.write(0, bad, stats={"records": len(bad)})
            outputs: dict[str, list[Record]] = {"load": bad} if bad else {}
            previous: list[Record] = []
            for name in config.stages:
                cls = stages[name]
                source = outputs.get(cls.consumes, []) if cls.consumes else previous
                inputs = entering.get(name, []) + accepted(source)
                if cls.global_stage:
                    extra = {n.replace("-", "_"): outputs[n] for n in ("runtime-tasks",)
                             if n in outputs}
                    cls(context).write(inputs, run, outputs, extra)
                    continue
                chunks = _chunks(inputs, config.shard_size)
                shards = run.shards(name)
                run.write_json(f"plan.{name}.json", {"inputs": len(inputs), "shards": len(chunks),
                                                     "shard_size": config.shard_size})
                pending = [i for i in range(len(chunks)) if not shards.done(i)]
                bar.start(name, len(chunks), len(chunks) - len(pending))

                def done(index: int, records: list[Record], counters: dict[str, int],
                         shards: Any = shards, name: str = name) -> None:
                    shards.write(index, records, stats={"records": len(records), **counters})
                    bar.advance(name)

                runner(name, chunks, pending, done)
                outputs[name] = [r for i in range(len(chunks)) for r in shards.read(i)]
                if cls.consumes is None:
                    previous = outputs[name]
            # What reached the end, and why the rest did not: the CLI refuses to call a
            # run whose every record was rejected a success.
            kept = len(accepted(previous))
            reasons = Counter(str(r["reject"].get("reason")) for r in previous
                              if isinstance(r.get("reject"), dict))
            if bad:
                reasons["unreadable"] += len(bad)
        finally:
            bar.stop()
            context.close()
            if config.executor == "ray":
                from execlens.synth._ray import shutdown

                shutdown()
    status = synth_status(config.out)
    status["kept"] = kept
    status["rejections"] = dict(reasons.most_common())
    return status


class _Progress:
    """One rich progress bar per stage (shards done / shards)."""

    def __init__(self, enabled: bool, console: Any) -> None:
        self._bar = None
        self._tasks: dict[str, Any] = {}
        if enabled:
            from rich.progress import Progress

            self._bar = Progress(console=console, transient=False)
            self._bar.start()

    def start(self, name: str, total: int, done: int) -> None:
        if self._bar is not None:
            self._tasks[name] = self._bar.add_task(f"{name:<14}", total=total, completed=done)

    def advance(self, name: str) -> None:
        if self._bar is not None:
            self._bar.advance(self._tasks[name])

    def stop(self) -> None:
        if self._bar is not None:
            self._bar.stop()


def synth_status(out: str | Path) -> dict[str, Any]:
    """Progress of a run directory: per stage, shards done of planned, and record counts."""
    from execlens.store import StoreError, read_json

    root = Path(out)
    manifest = root / "manifest.json"
    if not manifest.is_file():
        raise StoreError(f"{root}: not a synthesis run directory (no manifest.json); "
                         "give the `out` of a config that has run")
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
        entry: dict[str, Any] = {"shards_done": len(done),
                                 "shards": plan["shards"] if plan else None,
                                 "records": records, "rejected": rejected}
        if name == "assemble":
            card = root / "card.json"
            entry = {"done": card.is_file()}
        stages[name] = entry
    return {"out": str(root), "stages": stages,
            "order": [s for s in PIPELINE_ORDER if s in stages]}
