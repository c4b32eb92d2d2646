"""The ``ray`` executor: each Ray actor owns a ``StageContext`` (its own engine and model
client, async against the same OpenAI-compatible server); the driver keeps sharding,
completion markers and resume, writing each shard as its result arrives."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from execlens.models import ClientConfig
    from execlens.synth._config import SynthConfig

__all__ = ["ray_available", "ray_runner", "shutdown"]

Record = dict[str, Any]

_STARTED_HERE = False
# Every actor this process started: closed (engines stopped, client closed) before Ray
# goes down, so no engine server outlives its worker.
_ACTORS: list[Any] = []


class _Worker:
    """A Ray actor: one engine and one client for every shard it is given."""

    def __init__(self, config: dict[str, Any], run_path: str,
                 client: dict[str, Any] | None, workers: int) -> None:
        from execlens.models import ClientConfig
        from execlens.synth._config import SynthConfig
        from execlens.synth._stage import StageContext, load_stages

        self.stages = load_stages()
        client_config = None if client is None else ClientConfig.model_validate(client)
        self.context = StageContext(SynthConfig.model_validate(config), run_path=Path(run_path),
                                    client_config=client_config, workers=workers)

    def run(self, name: str, chunk: list[Record], index: int, total: int
            ) -> tuple[int, list[Record], dict[str, int]]:
        stage = self.stages[name](self.context)
        records = list(stage.run(chunk, index, total))
        return index, records, dict(stage.counters)

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
        raise ConfigError("executor: ray needs Ray, which is not installed here; install "
                          "it (pip install 'ray[default]') or use executor: local") from None
    address = config.ray.address
    target = _tcp_target(address) if address else None
    if target is None:
        return
    try:
        socket.create_connection(target, timeout=5.0).close()
    except OSError as exc:
        raise ConfigError(f"ray.address {address}: no Ray cluster answers there "
                          f"({exc.strerror or exc}); start one with `ray start --head`, fix "
                          f"the address, or drop ray.address to start Ray locally") from None


def ray_runner(config: SynthConfig, run_path: Path, client: ClientConfig | None
               ) -> Callable[..., None]:
    """A shard runner that fans pending shards out to Ray actors."""
    global _STARTED_HERE
    import ray

    if not ray.is_initialized():
        from execlens.synth._config import ConfigError

        try:
            if config.ray.address:
                ray.init(address=config.ray.address, include_dashboard=False,
                         log_to_driver=False)
            else:
                ray.init(num_cpus=config.ray.num_cpus, include_dashboard=False,
                         log_to_driver=False)
        except (ConnectionError, RuntimeError, ValueError) as exc:
            where = f"at {config.ray.address}" if config.ray.address else "locally"
            raise ConfigError(f"Ray could not start {where}: {' '.join(str(exc).split())}"
                              f"; check ray.address, or use executor: local") from None
        _STARTED_HERE = True
    actor_class = ray.remote(num_cpus=1)(_Worker)
    workers_each = max(1, config.workers // config.ray.actors)
    client_data = None if client is None else client.model_dump(mode="json")
    if client is not None:
        # SecretStr dumps masked: hand the real key over.
        client_data["api_key"] = client.api_key.get_secret_value()
    actors: list[Any] = []

    def runner(name: str, chunks: list[list[Record]], pending: list[int],
               done: Callable[[int, list[Record], dict[str, int]], None]) -> None:
        if not pending:
            return
        if not actors:
            actors.extend(actor_class.remote(config.model_dump(mode="json"), str(run_path),
                                             client_data, workers_each)
                          for _ in range(config.ray.actors))
            _ACTORS.extend(actors)
        from ray.util import ActorPool

        pool = ActorPool(actors)
        results = pool.map_unordered(
            lambda actor, i: actor.run.remote(name, chunks[i], i, len(chunks)), pending)
        for index, records, counters in results:
            done(index, records, counters)
    return runner


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
# Every actor this process started: closed (engines stopped, client closed) before Ray
# goes down, so no engine server outlives its worker.
_ACTORS: list[Any] = []
