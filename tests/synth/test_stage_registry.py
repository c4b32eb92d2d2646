"""Self-describing stages: a stage is one file.

The test writes a new stage module into a temporary folder, names that folder to the
registry (the one thing a plug-in does), and runs it in a real pipeline between
``collect`` and ``prompts``: no file of the package is edited, the config validates its
settings by the stage's own pydantic model, and the executor shards, marks and resumes
it like any built-in stage.  Also: the built-in stages are found by scanning, and the
config's refusals name what a stage reads.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from execlens.synth import ConfigError, load_config, run_pipeline
from execlens.synth._stage import STAGE_PATH_ENV, load_stages, pipeline_order

from .conftest import pipeline_config, write_config

STAGE_FILE = textwrap.dedent('''
    """``tag-length`` (a test plug-in): keeps functions whose code is short enough and
    tags each with its length."""

    from pydantic import BaseModel, ConfigDict, Field

    from execlens.synth import Stage, register_stage


    class TagLengthSettings(BaseModel):
        model_config = ConfigDict(extra="forbid", frozen=True)
        max_chars: int = Field(default=100_000, ge=1)


    @register_stage
    class TagLengthStage(Stage):
        name = "tag-length"
        order = 35                      # after collect (20), before prompts (50)
        reads = "collected"
        writes = "collected"
        settings_model = TagLengthSettings

        def run(self, records, shard, shards):
            for record in records:
                size = len(record["refcode"])
                self.counters["seen"] += 1
                out = {**record, "code_chars": size}
                if size > self.settings.max_chars:
                    yield self.reject(out, "too_long", chars=size)
                else:
                    yield out
''')


@pytest.fixture
def plugin_stage(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder holding one stage file, named to the registry by the environment."""
    folder = tmp_path / "my_stages"
    folder.mkdir()
    (folder / "tag_length.py").write_text(STAGE_FILE, encoding="utf-8")
    monkeypatch.setenv(STAGE_PATH_ENV, str(folder))
    return folder


def test_built_in_stages_are_found_by_scanning_the_package() -> None:
    registry = load_stages()
    package = Path(__import__("execlens.synth.stages", fromlist=["x"]).__file__).parent
    files = {
        p.stem.lstrip("_").replace("_", "-")
        for p in package.glob("_*.py")
        if p.name != "__init__.py"
    }
    assert files <= set(registry)
    order = pipeline_order()
    assert (
        order.index("collect")
        < order.index("prompts")
        < order.index("predict")
        < order.index("verify")
        < order.index("revise")
        < order.index("assemble")
    )
    assert {n for n, c in registry.items() if c.needs_model} >= {
        "transform",
        "predict",
        "revise",
        "difficulty",
    }


def test_a_stage_added_as_one_file_runs_in_a_pipeline(
    plugin_stage: Path, data_dir: Path, tmp_path: Path, scripted_server
) -> None:
    assert "tag-length" in load_stages()
    out = tmp_path / "out"
    base = pipeline_config(
        data_dir,
        out,
        scripted_server.base_url,
        functions=4,
        shard_size=2,
        stages=["collect", "tag-length", "prompts", "predict", "verify", "assemble"],
    )
    # Its settings are validated by its own model, under its own key.
    with pytest.raises(ConfigError, match="tag_length"):
        load_config(write_config(tmp_path / "bad.yaml", {**base, "tag_length": {"max_chars": 0}}))
    config = load_config(
        write_config(tmp_path / "run.yaml", {**base, "tag_length": {"max_chars": 10**9}})
    )
    assert config.stages.index("tag-length") == 1  # placed by its declared order
    status = run_pipeline(config, progress=False)
    assert status["stages"]["tag-length"]["shards_done"] == status["stages"]["tag-length"]["shards"]
    tagged = [
        json.loads(line)
        for path in sorted((out / "shards" / "tag-length").iterdir())
        for line in path.read_text().splitlines()
    ]
    collected_sizes = [len(r["refcode"]) for r in tagged]
    assert tagged and [r["code_chars"] for r in tagged] == collected_sizes
    # The records after it carry what it added: it sits in the main line.
    prompts = [
        json.loads(line)
        for path in sorted((out / "shards" / "prompts").iterdir())
        for line in path.read_text().splitlines()
    ]
    assert {r["function_id"] for r in prompts} == {r["id"] for r in tagged if not r.get("reject")}
    card = json.loads((out / "card.json").read_text())
    assert card["stages"]["tag-length"]["records"] == len(tagged)

    # A tighter setting is another run: its rejections are named and kept out of prompts.
    tight = tmp_path / "tight"
    limit = sorted(collected_sizes)[len(collected_sizes) // 2]
    run_pipeline(
        load_config(
            write_config(
                tmp_path / "tight.yaml",
                {**base, "out": str(tight), "tag_length": {"max_chars": limit}},
            )
        ),
        progress=False,
    )
    rejected = [
        json.loads(line)
        for path in sorted((tight / "shards" / "tag-length").iterdir())
        for line in path.read_text().splitlines()
    ]
    too_long = [r for r in rejected if r.get("reject")]
    assert too_long and all(r["reject"]["reason"] == "too_long" for r in too_long)
    card = json.loads((tight / "card.json").read_text())
    assert card["stages"]["tag-length"]["rejected"] == {"too_long": len(too_long)}


def test_a_stage_that_reads_what_nothing_before_it_writes_is_refused(
    data_dir: Path, tmp_path: Path
) -> None:
    config = pipeline_config(
        data_dir, tmp_path / "out", "http://127.0.0.1:9/v1", stages=["prompts", "predict"]
    )
    with pytest.raises(ConfigError, match="'prompts' reads 'collect'.*add 'collect'"):
        load_config(write_config(tmp_path / "run.yaml", config))
    config["stages"] = ["collect", "verify"]
    with pytest.raises(ConfigError, match="'verify' reads 'predict'.*add 'predict'"):
        load_config(write_config(tmp_path / "run2.yaml", config))
