"""The stage protocol, the registry stages join, and the per-worker context they share.

A stage reads like a datatrove ``PipelineStep``: ``run(records, shard, shards)`` yields
records and counts what it did in ``self.counters``.  The executor, not the stage, owns
sharding, completion markers and resume.  A stage never drops a record silently: a
record it rejects is yielded with ``reject = {"stage": ..., "reason": ...}`` and the
executor keeps it in the stage's shard (and out of the next stage's input).
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from execlens.engine import Engine
    from execlens.models import ClientConfig, ModelClient
    from execlens.synth._config import SynthConfig

__all__ = ["STAGES", "Stage", "StageContext", "reject", "register_stage"]

Record = dict[str, Any]


class StageContext:
    """What a worker's stages share: the config, one engine, one model client.

    The engine and the client start on first use, so a stage that needs neither (and a
    Ray worker that never runs one that does) starts nothing.  ``client_config`` is
    resolved once by the driver (which also starts the embedded model's server when the
    model is ``local``) and handed to every worker.
    """

    def __init__(self, config: SynthConfig, *, run_path: Path | None = None,
                 client_config: ClientConfig | None = None, workers: int | None = None) -> None:
        self.config = config
        self.run_path = run_path
        self.client_config = client_config
        self.workers = workers or config.workers
        self._engine: Engine | None = None
        self._check_engine: Engine | None = None
        self._client: ModelClient | None = None
        self._lock = threading.Lock()

    @property
    def engine(self) -> Engine:
        """The worker's engine (started on first use)."""
        with self._lock:
            if self._engine is None:
                self._engine = _engine(self, self.config.hash_seed)
            return self._engine

    @property
    def check_engine(self) -> Engine:
        """An engine whose servers run under ``check_seed`` (the determinism rerun)."""
        with self._lock:
            if self._check_engine is None:
                self._check_engine = _engine(self, self.config.check_seed)
            return self._check_engine

    @property
    def client(self) -> ModelClient:
        """The worker's model client (requests cached in the run directory)."""
        with self._lock:
            if self._client is None:
                self._client = _open_client(self)
            return self._client

    def close(self) -> None:
        """Stop the engine and close the client, if they were started."""
        for engine in (self._engine, self._check_engine):
            if engine is not None:
                engine.close()
        self._engine = self._check_engine = None
        if self._client is not None:
            self._client.close()
            if self._client.cache is not None:
                self._client.cache.close()
            self._client = None


def _engine(context: StageContext, seed: int) -> Engine:
    from execlens.engine import Engine, Limits

    from execlens.synth._programs import SYNTH_PRELOAD

    limits = Limits(wall_time=context.config.limits.run_seconds,
                    memory_mb=context.config.limits.memory_mb)
    return Engine(workers=context.workers, limits=limits, hash_seed=seed, preload=SYNTH_PRELOAD)


def _open_client(context: StageContext) -> ModelClient:
    from execlens.models import ModelClient, RequestCache

    if context.client_config is None:
        raise RuntimeError("this stage needs a model: the run's config names none")
    cache: RequestCache | bool = False
    if context.config.cache and context.run_path is not None:
        # The cache lives in the run directory: a resumed run replays the answers an
        # interrupted one already received, so its dataset is the same.
        cache = RequestCache(context.run_path / "cache" / "requests.sqlite")
    return ModelClient(context.client_config, cache=cache)


class Stage:
    """Base class of a synthesis stage.

    ``name`` is its registry key; ``consumes`` the stage whose accepted records are its
    input (``None``: the previous stage of the pipeline).  ``global_stage`` stages run
    once over every input record (assemble) instead of per shard.
    """

    name: ClassVar[str] = ""
    consumes: ClassVar[str | None] = None
    global_stage: ClassVar[bool] = False
    needs_model: ClassVar[bool] = False

    def __init__(self, context: StageContext) -> None:
        self.context = context
        self.config = context.config
        self.counters: Counter[str] = Counter()

    def run(self, records: list[Record], shard: int, shards: int) -> Iterator[Record]:
        """Process one shard of records; yield output records (accepted or rejected)."""
        raise NotImplementedError

    def reject(self, record: Record, reason: str, **details: Any) -> Record:
        """``record`` marked rejected by this stage for ``reason`` (counted)."""
        self.counters[f"rejected:{reason}"] += 1
        return reject(record, self.name, reason, **details)


def reject(record: Record, stage: str, reason: str, **details: Any) -> Record:
    """A copy of ``record`` with its named rejection."""
    out = dict(record)
    out["reject"] = {"stage": stage, "reason": reason, **details}
    return out


def accepted(records: Iterable[Record]) -> list[Record]:
    """The records no stage rejected."""
    return [r for r in records if not r.get("reject")]


STAGES: dict[str, type[Stage]] = {}


def register_stage(cls: type[Stage]) -> type[Stage]:
    """Class decorator: add a stage to the registry under its ``name``."""
    if not cls.name:
        raise ValueError(f"{cls.__name__} has no name")
    STAGES[cls.name] = cls
    return cls


def load_stages() -> dict[str, type[Stage]]:
    """The registry, with every stage module of ``synth/stages/`` imported."""
    import execlens.synth.stages  # noqa: F401 - registers on import

    return STAGES


StageFactory = Callable[[StageContext], Stage]
