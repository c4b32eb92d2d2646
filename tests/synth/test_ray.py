"""The ``ray`` executor gives the same dataset as ``local``: a local Ray instance started
by the test (2 CPUs, no dashboard), two actors each owning an engine."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from execlens.synth import load_config, run_pipeline

from .conftest import final_bytes, pipeline_config, write_config

ray = pytest.importorskip("ray")


@pytest.fixture(scope="module")
def ray_instance() -> Iterator[None]:
    """A local Ray instance for this module."""
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield
    finally:
        ray.shutdown()


def test_ray_and_local_executors_write_the_same_dataset(
    ray_instance: None, data_dir: Path, tmp_path: Path, scripted_server
) -> None:
    outputs = {}
    for executor in ("local", "ray"):
        config = pipeline_config(
            data_dir,
            tmp_path / executor,
            scripted_server.base_url,
            functions=4,
            shard_size=2,
            executor=executor,
        )
        run_pipeline(
            load_config(write_config(tmp_path / f"{executor}.yaml", config)), progress=False
        )
        outputs[executor] = final_bytes(tmp_path / executor)
    assert {"codeio.jsonl", "codeio_pp.parquet", "card.json"} <= set(outputs["local"])
    assert outputs["ray"] == outputs["local"]
    # The actors were closed and killed; the instance the test started is still up.
    assert ray.is_initialized()
    # Every stage's shards (written as the actors' results arrived) match too.
    for stage in ("collect", "prompts", "predict", "verify", "revise"):
        local = sorted((tmp_path / "local" / "shards" / stage).iterdir())
        remote = sorted((tmp_path / "ray" / "shards" / stage).iterdir())
        assert [p.name for p in remote] == [p.name for p in local] and local
        assert [p.read_bytes() for p in remote] == [p.read_bytes() for p in local]
