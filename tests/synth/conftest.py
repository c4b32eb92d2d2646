"""Fixtures for the pipeline tests: run configs, and a scripted OpenAI-compatible server.

The scripted server stands in for the *model server* only (the pipeline, engine, store
and verification under test are all real): its answers are a pure function of the
prompt, so two runs (killed and resumed, local and Ray) must produce the same dataset.
Tests of the embedded model itself use the real llama-cpp server (``test_embedded.py``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from ..standin_model import StandInModel


def scripted_answer(prompt: str, turn: int) -> str:
    """A deterministic answer: a right-shaped JSON guess, a malformed one, or prose."""
    digest = int(hashlib.sha256(f"{turn}:{prompt}".encode()).hexdigest(), 16)
    field = "output" if '{"output": <your output>}' in prompt else "input"
    if digest % 5 == 0:
        return "I am not sure."  # no answer
    guess: Any = digest % 7 if field == "output" else {"n": digest % 7}
    return f"Let me reason step by step.\n```json\n{json.dumps({field: guess})}\n```"


class ScriptedServer(StandInModel):
    """``/v1/chat/completions`` answering with :func:`scripted_answer`; counts requests."""

    def __init__(self, port: int = 0) -> None:
        super().__init__(
            lambda body: scripted_answer(
                body["messages"][0]["content"], sum(m["role"] == "user" for m in body["messages"])
            ),
            port=port,
        )


@pytest.fixture(scope="session")
def scripted_server() -> Iterator[ScriptedServer]:
    """The scripted model server, once per session."""
    with ScriptedServer() as server:
        yield server


def pipeline_config(
    data_dir: Path,
    out: Path,
    base_url: str,
    *,
    functions: int = 6,
    shard_size: int = 2,
    **extra: Any,
) -> dict[str, Any]:
    """A full CodeI/O++ run on ``functions`` parsed functions against ``base_url``."""
    config = {
        "out": str(out),
        "sources": [
            {
                "path": str(data_dir / "codeio" / "rawcode_1k_parsed.jsonl"),
                "limit": functions,
                "pairs_per_function": 2,
            }
        ],
        "stages": ["collect", "prompts", "predict", "verify", "revise", "assemble"],
        "model": {"name": "scripted", "base_url": base_url, "api_key": "EMPTY"},
        "sampling": {"max_tokens": 64},
        "shard_size": shard_size,
        "workers": 1,
    }
    config.update(extra)
    return config


def write_config(path: Path, config: dict[str, Any]) -> Path:
    """``config`` as a YAML file at ``path``."""
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    return path


FINAL_FILES = (
    "codeio.jsonl",
    "codeio_pp.jsonl",
    "codeio.parquet",
    "codeio_pp.parquet",
    "card.json",
    "card.md",
    "card.svg",
)


def final_bytes(out: Path) -> dict[str, bytes]:
    """The run's final files (the dataset and its card), by name."""
    return {name: (out / name).read_bytes() for name in FINAL_FILES if (out / name).is_file()}
