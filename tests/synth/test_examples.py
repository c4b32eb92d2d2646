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
