"""The stage protocol, the registry stages join, and the per-worker context they share.

A stage is one file: a :class:`Stage` (or :class:`ModelStage`) subclass that declares
what it reads and writes, whether it needs the model, and its settings; the registry
finds it by scanning ``synth/stages/`` (and any folder named by ``add_stage_path`` or
``$EXECLENS_SYNTH_STAGE_PATH``), so adding one edits no other file.

A stage reads like a datatrove ``PipelineStep``: ``run(records, shard, shards)`` yields
records and counts what it did in ``self.counters``.  The executor, not the stage, owns
sharding, completion markers and resume.  A stage never drops a record silently: a
record it rejects is yielded with ``reject = {"stage": ..., "reason": ...}`` and the
executor keeps it in the stage's shard (and out of the next stage's input).
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import importlib.util
import os
import pkgutil
import sys
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

if TYPE_CHECKING:
    from pydantic import BaseModel

    from execlens.engine import Engine
    from execlens.judge import JudgePool
    from execlens.models import ClientConfig, ModelClient
    from execlens.synth._config import SynthConfig
    from execlens.tasks import Task

__all__ = [
    "STAGES",
    "ModelRequestsFailed",
    "ModelStage",
    "RunOutputs",
    "Stage",
    "StageContext",
    "add_stage_path",
    "load_stages",
    "pipeline_order",
    "raise_on_failed_requests",
    "register_stage",
    "reject",
]

Record = dict[str, Any]


class StageContext:
    """What a worker's stages share: the config, one engine, one model client, and the
    judge workers its verify stages use.

    The engine and the client start on first use, so a stage that needs neither (and a
    Ray worker that never runs one that does) starts nothing.  ``client_config`` is
    resolved once by the driver (which also starts the embedded model's server when the
    model is ``local``) and handed to every worker.

    Verification (:meth:`verify`) goes through judge workers under the rewards' rule
    (``EXECLENS_JUDGE_WORKERS``, else one per 8 cores from two on, no more than
    ``workers``; batches under ``EXECLENS_JUDGE_MIN_BATCH`` stay here): each worker's
    engine is this context's engine made again (same limits, hash seed, preload and
    mounts, an equal part of ``workers``), so the verdicts -- and the run's bytes -- are
    the same either way.
    """

    def __init__(
        self,
        config: SynthConfig,
        *,
        run_path: Path | None = None,
        client_config: ClientConfig | None = None,
        workers: int | None = None,
    ) -> None:
        self.config = config
        self.run_path = run_path
        self.client_config = client_config
        self.workers = workers or config.workers
        self._engine: Engine | None = None
        self._check_engine: Engine | None = None
        self._client: ModelClient | None = None
        self._judges: JudgePool | None = None
        self._server_context: int | None = None
        self._context_asked = False
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

    def judges(self, batch: int) -> JudgePool | None:
        """The judge workers for a batch of ``batch`` predictions (started on first
        need), or None where it is verified in this process (see the class docstring)."""
        from execlens.judge import JUDGES_ENV, JudgePool, judges_for

        count = judges_for(batch, self.workers)
        if count == 0:
            return None
        with self._lock:
            if self._judges is None:
                share = max(1, -(-self.workers // count))
                factory = functools.partial(_engine_of, self.config, share, self.config.hash_seed)
                self._judges = JudgePool(count, factory, env={JUDGES_ENV: "0"})
            return self._judges

    def verify(self, tasks: Sequence[Task], texts: Sequence[str | None]) -> list[dict[str, Any]]:
        """CodeI/O verdicts of ``texts`` answering ``tasks``
        (:func:`~execlens.synth.verify_predictions`), through the judge workers when
        :meth:`judges` gives some, else on this context's engine."""
        from execlens.synth._verify import verify_predictions

        judges = self.judges(len(tasks))
        if judges is not None:
            return verify_predictions(None, tasks, texts, judges=judges)
        return verify_predictions(self.engine, tasks, texts)

    def isolation(self) -> dict[str, Any]:
        """The sandbox's isolation on this machine, as a run records it: the engine's
        that ran this worker's stages, else a one-server engine's started to ask."""
        with self._lock:
            engine = self._engine or self._check_engine
        if engine is not None:
            return engine.isolation_report().summary()
        from execlens.engine import Engine

        with Engine(workers=1, mount_ro=[str(p) for p in self.config.mount_ro]) as probe:
            return probe.isolation_report().summary()

    @property
    def client(self) -> ModelClient:
        """The worker's model client (requests cached in the run directory)."""
        with self._lock:
            if self._client is None:
                self._client = _open_client(self)
            return self._client

    def server_context(self) -> int | None:
        """The served model's context length, when its server reports one (asked once)."""
        if not self._context_asked:
            from execlens.models import served_context_length

            config = self.client_config
            local = config is None or config.cache_namespace is not None
            self._server_context = (
                None if config is None or local else served_context_length(config)
            )
            self._context_asked = True
        return self._server_context

    def close(self) -> None:
        """Stop the engine, the judge workers and the client, if they were started."""
        if self._judges is not None:
            self._judges.close()
            self._judges = None
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
    return _engine_of(context.config, context.workers, seed)


def _engine_of(config: SynthConfig, workers: int, seed: int) -> Engine:
    """The engine of a run under ``config``: ``workers`` servers, hash seed ``seed``
    (top-level, so a judge worker can be handed it as its engine factory)."""
    from execlens.engine import Engine, Limits
    from execlens.synth._programs import SYNTH_PRELOAD

    limits = Limits(wall_time=config.limits.run_seconds, memory_mb=config.limits.memory_mb)
    return Engine(
        workers=workers,
        limits=limits,
        hash_seed=seed,
        preload=SYNTH_PRELOAD,
        mount_ro=[str(path) for path in config.mount_ro],
    )


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


class RunOutputs(Protocol):
    """What ``assemble`` reads from a finished run, each a stream over its shards."""

    def final(self) -> Iterator[dict[str, Any]]:
        """The accepted records of the main line's last stage, in shard order."""
        ...

    def stage_records(self) -> dict[str, Iterator[dict[str, Any]]]:
        """Every stage's output records (rejected ones too), by stage, in run order."""
        ...

    def datasets(self) -> dict[str, Iterator[dict[str, Any]]]:
        """The records of side stages that declare a ``dataset``, by dataset name."""
        ...


class Stage:
    """Base class of a synthesis stage; a subclass in one file is a whole stage.

    A stage describes itself, and nothing else in the package lists it:

    - ``name``: its key in configs (``stages: [...]``) and in the run directory;
    - ``order``: its place in the pipeline (stages run sorted by it);
    - ``reads`` / ``writes``: the record kinds it takes and gives (``raw``, ``function``,
      ``collected``, ``instance``, ``prediction``, ``verdict``, ...); ``reads = None``
      takes anything.  A config is refused when a stage's upstream does not write what
      it reads, naming the stages that do;
    - ``consumes``: a stage whose accepted records it reads (a side branch, e.g.
      ``runtime-tasks`` reads ``collect``'s); ``None``: the previous stage of the main
      line;
    - ``needs_model``: it sends model requests (the run then needs ``model:``);
    - ``settings_model``: a pydantic model of its own settings, given in the config
      under ``settings_key`` (its name with ``_`` for ``-`` by default);
    - ``dataset``: the file stem under which ``assemble`` writes its records (side
      branches whose records are training data);
    - ``concurrency``: its shards in flight at once per executor slot;
    - ``global_stage``: runs once over the finished run (``assemble``) instead of per
      shard.
    """

    name: ClassVar[str] = ""
    order: ClassVar[float] = 50.0
    reads: ClassVar[str | None] = None
    writes: ClassVar[str | None] = None
    consumes: ClassVar[str | None] = None
    global_stage: ClassVar[bool] = False
    needs_model: ClassVar[bool] = False
    settings_model: ClassVar[type[BaseModel] | None] = None
    settings_key: ClassVar[str | None] = None
    dataset: ClassVar[str | None] = None
    concurrency: ClassVar[int] = 1

    def __init__(self, context: StageContext) -> None:
        self.context = context
        self.config = context.config
        self.counters: Counter[str] = Counter()

    @classmethod
    def key(cls) -> str:
        """The config key of this stage's settings."""
        return cls.settings_key or cls.name.replace("-", "_")

    @property
    def settings(self) -> Any:
        """This stage's validated settings (its ``settings_model``; defaults if the config
        gives none)."""
        return self.config.stage_settings_for(type(self))

    def run(self, records: list[Record], shard: int, shards: int) -> Iterator[Record]:
        """Process one shard of records; yield output records (accepted or rejected)."""
        raise NotImplementedError

    def write(self, run: Any, outputs: RunOutputs) -> dict[str, Any]:
        """A global stage's one pass over the finished run (``run`` is its directory,
        ``outputs`` streams its records); returns the numbers it reports."""
        raise NotImplementedError

    def reject(self, record: Record, reason: str, **details: Any) -> Record:
        """``record`` marked rejected by this stage for ``reason`` (counted)."""
        self.counters[f"rejected:{reason}"] += 1
        return reject(record, self.name, reason, **details)


class ModelRequestsFailed(RuntimeError):
    """Model requests of a shard got no answer (server down, timeouts, 5xx, rate limits).

    Not a verdict: the shard is left unfinished, so a rerun asks exactly the failed
    requests again (the answered ones come back from the run's request cache), as
    ``execlens eval`` does.  A request the server refused (context length, auth, bad
    request) is a final, per-record rejection instead."""


def raise_on_failed_requests(stage: str, responses: list[Any]) -> None:
    """Raise :class:`ModelRequestsFailed` when a completion failed for a reason a rerun
    can fix (``execlens.models.request_failure_hint`` names no change to make)."""
    from collections import Counter

    from execlens.models import request_failure_hint

    failed = Counter(
        str(c.error)
        for response in responses
        for c in response.completions
        if not c.ok and request_failure_hint(str(c.error)) is None
    )
    if failed:
        kinds = ", ".join(f"{n} {kind}" for kind, n in failed.most_common())
        raise ModelRequestsFailed(
            f"{stage}: {sum(failed.values())} model requests got no answer ({kinds}); "
            f"their shard was not recorded -- rerun the same command to ask them again"
        )


class ModelStage(Stage):
    """A stage that asks the model: the base owns the loop, a subclass the records.

    ``run`` picks the records to ask about (:meth:`asks`), builds one request each
    (:meth:`request`), sends them all through the worker's client (cached, concurrency
    capped by ``model.max_concurrency``) and hands the responses to :meth:`answers`,
    which yields the shard's output records.  ``sampling_key`` names the config's
    sampling block its requests use.  Requests that got no answer for a reason a rerun
    can fix (server down, timeouts, 5xx) end the shard with :class:`ModelRequestsFailed`
    before :meth:`answers` sees them: never a verdict on the records.
    """

    needs_model: ClassVar[bool] = True
    sampling_key: ClassVar[str] = "sampling"

    def asks(self, record: Record) -> bool:
        """Whether ``record`` gets a request (all records by default)."""
        return True

    def request(self, record: Record) -> Any:
        """The ``GenerationRequest`` for ``record``."""
        raise NotImplementedError

    def answers(
        self, records: list[Record], asked: list[Record], responses: list[Any]
    ) -> Iterator[Record]:
        """The output records of the shard, given the responses to ``asked``."""
        raise NotImplementedError

    def budget(self) -> Any:
        """The stage's token budget (``models.TokenBudget``): its sampling block's
        ``max_tokens``, and ``thinking_max_tokens`` for a reply the limit cut, kept within
        the server's context when the server reports it."""
        from execlens.models import TokenBudget

        settings = getattr(self.config, self.sampling_key)
        thinking = getattr(settings, "thinking_max_tokens", None)
        return TokenBudget(
            settings.max_tokens,
            max(thinking or settings.max_tokens, settings.max_tokens),
            self.context.server_context(),
            fixed=thinking is None,
        )

    def run(self, records: list[Record], shard: int, shards: int) -> Iterator[Record]:
        """Ask about the shard's records, then yield what :meth:`answers` makes of it."""
        from execlens.models import ask_within_budget

        asked = [r for r in records if self.asks(r)]
        requests = [self.request(r) for r in asked]
        responses: list[Any] = []
        if requests:
            replies = ask_within_budget(self.context.client, requests, self.budget())
            responses = replies.responses
            self.counters["asked_again_with_room"] += replies.asked_again
        raise_on_failed_requests(self.name, responses)
        yield from self.answers(records, asked, responses)


def reject(record: Record, stage: str, reason: str, **details: Any) -> Record:
    """A copy of ``record`` with its named rejection."""
    out = dict(record)
    out["reject"] = {"stage": stage, "reason": reason, **details}
    return out


def is_accepted(record: Mapping[str, Any]) -> bool:
    """Whether no stage rejected ``record``."""
    return not record.get("reject")


def accepted(records: Iterable[Record]) -> list[Record]:
    """The records no stage rejected."""
    return [r for r in records if not r.get("reject")]


STAGES: dict[str, type[Stage]] = {}

#: Environment variable: extra folders of stage files (``os.pathsep``-separated).
STAGE_PATH_ENV = "EXECLENS_SYNTH_STAGE_PATH"
_EXTRA_PATHS: list[Path] = []
_LOADED: set[str] = set()


def register_stage(cls: type[Stage]) -> type[Stage]:
    """Class decorator: add a stage to the registry under its ``name``."""
    if not cls.name:
        raise ValueError(f"{cls.__name__} has no name")
    known = STAGES.get(cls.name)
    if known is not None and known.__qualname__ != cls.__qualname__:
        raise ValueError(
            f"two stages are named {cls.name!r}: {known.__module__}."
            f"{known.__qualname__} and {cls.__module__}.{cls.__qualname__}"
        )
    STAGES[cls.name] = cls
    return cls


def add_stage_path(path: str | Path) -> None:
    """Also find stage files in folder ``path`` (every ``*.py`` not starting with ``_``
    is a stage module); like ``$EXECLENS_SYNTH_STAGE_PATH``."""
    path = Path(path).resolve()
    if path not in _EXTRA_PATHS:
        _EXTRA_PATHS.append(path)


def stage_paths() -> list[Path]:
    """The extra stage folders: ``add_stage_path`` ones, then the environment's."""
    env = [Path(p).resolve() for p in os.environ.get(STAGE_PATH_ENV, "").split(os.pathsep) if p]
    return list(dict.fromkeys([*_EXTRA_PATHS, *env]))


def load_stages() -> dict[str, type[Stage]]:
    """The registry: every module of ``execlens.synth.stages`` and of the extra stage
    folders imported (each registers its stage), found by scanning, never listed."""
    import execlens.synth.stages as package

    for info in pkgutil.iter_modules(package.__path__):
        if info.name not in _LOADED:
            importlib.import_module(f"{package.__name__}.{info.name}")
            _LOADED.add(info.name)
    for folder in stage_paths():
        for file in sorted(folder.glob("*.py")):
            if file.name.startswith("_") or str(file) in _LOADED:
                continue
            _import_file(file)
            _LOADED.add(str(file))
    return STAGES


def _import_file(file: Path) -> None:
    # A stable module name per file, so a stage class pickles by reference in Ray.
    digest = hashlib.sha256(str(file).encode()).hexdigest()[:12]
    name = f"execlens_synth_stage_{digest}_{file.stem}"
    spec = importlib.util.spec_from_file_location(name, file)
    if spec is None or spec.loader is None:
        raise ImportError(f"{file}: not an importable stage module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)


def pipeline_order() -> list[str]:
    """Every known stage's name, in pipeline order."""
    return [cls.name for cls in sorted(load_stages().values(), key=lambda c: (c.order, c.name))]


StageFactory = Callable[[StageContext], Stage]
