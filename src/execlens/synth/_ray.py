"""The ``ray`` backend of the store's shard executor.

Each Ray actor owns a ``StageContext`` (its own engine and model client, async against
the same OpenAI-compatible server) and runs shards of any stage, several at once on its
threads (a collect shard beside a predict shard, as the local backend does).  An actor
declares the CPUs its engine's sandbox servers use (``workers`` split over
``ray.actors``), so Ray places no more of them on a node than it has cores.  The driver's
executor keeps sharding, completion markers and resume; Ray schedules and returns each
shard's result as a future (``ObjectRef.future()``), which the driver writes as it
arrives.  This lives in ``synth`` rather than ``store`` because an actor builds synthesis
stages (the store knows nothing of them).
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from execlens.models import ClientConfig
    from execlens.synth._config import SynthConfig

__all__ = ["ray_available", "ray_backend", "shutdown"]

Record = dict[str, Any]

_STARTED_HERE = False
# Every actor this process started: closed (engines stopped, client closed) before Ray
# goes down, so no engine server outlives its worker.
_ACTORS: list[Any] = []


class _Worker:
    """A Ray actor: one engine and one client for every shard it is given."""

    def __init__(
        self,
        config: dict[str, Any],
        run_path: str,
        client: dict[str, Any] | None,
        workers: int,
        stage_paths: list[str],
    ) -> None:
        from execlens.models import ClientConfig
        from execlens.synth._config import SynthConfig
        from execlens.synth._stage import StageContext, add_stage_path, load_stages

        for path in stage_paths:  # stage files found by the driver beyond the package
            add_stage_path(path)
        self.stages = load_stages()
        client_config = None if client is None else ClientConfig.model_validate(client)
        self.context = StageContext(
            SynthConfig.model_validate(config),
            run_path=Path(run_path),
            client_config=client_config,
            workers=workers,
        )

    def run(
        self, name: str, chunk: list[Record], index: int, total: int
    ) -> tuple[list[Record], dict[str, Any]]:
        """One shard of stage ``name``: its records and its marker's stats."""
        stage = self.stages[name](self.context)
        records = list(stage.run(chunk, index, total))
        return records, {"records": len(records), **stage.counters}

    def close(self) -> bool:
        """Stop this worker's engines and close its model client."""
        self.context.close()
        return True


def _tcp_target(address: str) -> tuple[str, int] | None:
    """``(host, port)`` of a ``host:port`` or ``ray://host:port`` address, else ``None``
    (``auto``, or a form left to Ray to interpret)."""
    rest = address.removeprefix("ray://")
    host, _, port = rest.rpartition(":")
    return (host.strip("[]"), int(port)) if host and port.isdigit() else None


def ray_available(config: SynthConfig) -> None:
    """A :class:`ConfigError` naming the fix when Ray is not installed, or when the
    cluster at ``ray.address`` does not answer (checked in seconds, before Ray's own
    connection attempts, which wait a minute or more)."""
    import socket

    from execlens.synth._config import ConfigError

    try:
        import ray  # noqa: F401
    except ImportError:
        raise ConfigError(
            "executor: ray needs Ray, which is not installed here; install "
            "it (pip install 'ray[default]') or use executor: local"
        ) from None
    address = config.ray.address
    target = _tcp_target(address) if address else None
    if target is None:
        return
    try:
        socket.create_connection(target, timeout=5.0).close()
    except OSError as exc:
        raise ConfigError(
            f"ray.address {address}: no Ray cluster answers there "
            f"({exc.strerror or exc}); start one with `ray start --head`, fix "
            f"the address, or drop ray.address to start Ray locally"
        ) from None


class _RayBackend:
    """Hands shards to the actors; each shard's result is Ray's future of it."""

    def __init__(self, actors: list[Any]) -> None:
        self._actors = actors
        self._load = [0] * len(actors)
        self._lock = threading.Lock()  # results complete on Ray's threads
        self.slots = len(actors)

    def submit(self, step: str, records: list[Record], index: int, total: int) -> Any:
        """Run the shard on the actor with the fewest shards in flight."""
        with self._lock:
            slot = min(range(len(self._actors)), key=lambda i: (self._load[i], i))
            self._load[slot] += 1
        future = self._actors[slot].run.remote(step, records, index, total).future()

        def release(_: Any, slot: int = slot) -> None:
            with self._lock:
                self._load[slot] -= 1

        future.add_done_callback(release)
        return future


def ray_backend(
    config: SynthConfig, run_path: Path, client: ClientConfig | None, *, threads: int
) -> _RayBackend:
    """A backend for the store's executor whose shards run on ``ray.actors`` actors,
    each running up to ``threads`` shards at once."""
    global _STARTED_HERE
    import ray

    from execlens.synth._stage import stage_paths

    if not ray.is_initialized():
        from execlens.synth._config import ConfigError

        try:
            if config.ray.address:
                ray.init(address=config.ray.address, include_dashboard=False, log_to_driver=False)
            else:
                ray.init(num_cpus=config.ray.num_cpus, include_dashboard=False, log_to_driver=False)
        except (ConnectionError, RuntimeError, ValueError) as exc:
            where = f"at {config.ray.address}" if config.ray.address else "locally"
            raise ConfigError(
                f"Ray could not start {where}: {' '.join(str(exc).split())}"
                f"; check ray.address, or use executor: local"
            ) from None
        _STARTED_HERE = True
    workers_each = max(1, config.workers // config.ray.actors)
    # An actor's engine runs ``workers_each`` sandbox servers: that is what it asks Ray
    # for, so a node is not given more engines than it has cores.
    # Ray's typed overloads of ``ray.remote(**options)`` leave out the actor option
    # ``max_concurrency`` that its documentation (and run time) accept for a class.
    actor_class = ray.remote(  # type: ignore[call-overload]
        num_cpus=workers_each, max_concurrency=max(1, threads)
    )(_Worker)
    client_data: dict[str, Any] | None = None
    if client is not None:
        client_data = client.model_dump(mode="json")
        # SecretStr dumps masked: hand the real key over.
        client_data["api_key"] = client.api_key.get_secret_value()
    actors = [
        actor_class.remote(
            config.model_dump(mode="json"),
            str(run_path),
            client_data,
            workers_each,
            [str(p) for p in stage_paths()],
        )
        for _ in range(config.ray.actors)
    ]
    _ACTORS.extend(actors)
    return _RayBackend(actors)


def shutdown() -> None:
    """Close this run's actors, then stop the Ray instance this process started (a
    cluster we joined, or an instance someone else started, is left running)."""
    global _STARTED_HERE
    if _ACTORS:
        import ray

        try:
            ray.get([actor.close.remote() for actor in _ACTORS], timeout=60)
        finally:
            for actor in _ACTORS:
                ray.kill(actor)
            _ACTORS.clear()
    if _STARTED_HERE:
        import ray

        ray.shutdown()
        _STARTED_HERE = False
