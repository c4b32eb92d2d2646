"""Every example config under ``examples/synth/`` validates."""

from __future__ import annotations

from pathlib import Path

import pytest

from execlens.synth import load_config

EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "examples" / "synth").glob("*.yaml"))


def test_there_are_examples() -> None:
    assert len(EXAMPLES) >= 4


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_example_config_validates(path: Path) -> None:
    config = load_config(path)
    assert config.stages and config.sources
    assert config.check_seed != config.hash_seed


def test_the_embedded_example_reads_codeio_functions_from_the_installed_package(
    tmp_path: Path,
) -> None:
    """``package:`` finds reasoning-gym's CodeI/O file wherever it is installed; the
    example's own source collects real pairs from it (a slice, collect only)."""
    from execlens.synth import SynthConfig, run_pipeline

    reasoning_gym = pytest.importorskip("reasoning_gym")
    example = load_config(EXAMPLES[0].parent / "codeio_embedded.yaml")
    [source] = example.sources
    assert source.path == Path(reasoning_gym.__file__).parent / "data" / "codeio.jsonl.gz"
    config = SynthConfig.model_validate(
        {
            **example.model_dump(mode="json", exclude={"sources", "stages", "out", "model"}),
            "out": str(tmp_path / "out"),
            "stages": ["collect"],
            "sources": [
                {
                    **source.model_dump(mode="json", exclude={"path"}),
                    "package": "reasoning_gym/data/codeio.jsonl.gz",
                    "limit": 4,
                }
            ],
        }
    )
    result = run_pipeline(config, progress=False)
    assert result["kept"] >= 1, result
