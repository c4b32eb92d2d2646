"""The core's truth cache: keyed by content and the program interpreter, torn files missed."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from execlens.bench import TruthCache, truth_cache_dir


def test_the_key_changes_with_the_content_and_the_program_environment() -> None:
    numpy1 = {"python": "/venv-a/bin/python", "packages": {"numpy": "1.26.4"}}
    numpy2 = {"python": "/venv-a/bin/python", "packages": {"numpy": "2.1.0"}}
    key = TruthCache.key(["v3", "strict", ["code"]], numpy1)
    assert key == TruthCache.key(["v3", "strict", ["code"]], dict(numpy1))  # stable
    assert key != TruthCache.key(["v3", "strict", ["code"]], numpy2)
    assert key != TruthCache.key(["v3", "strict", ["other code"]], numpy1)


def test_a_document_round_trips_and_a_torn_one_is_a_miss(tmp_path: Path) -> None:
    cache = TruthCache("demo-truth", tmp_path / "nested")
    key = TruthCache.key(["content"], {})
    assert cache.get(key, dict) is None  # nothing yet
    cache.put(key, {"value": float("nan"), "lines": [1, 2]})
    assert cache.path(key).name == f"demo-truth-{key}.json"
    back = cache.get(key, dict)
    assert back is not None and math.isnan(back["value"]) and back["lines"] == [1, 2]
    cache.path(key).write_text('{"value": ', encoding="utf-8")  # a torn write
    assert cache.get(key, dict) is None

    def stale(document: dict[str, object]) -> dict[str, object]:
        raise ValueError("another truth version")

    cache.put(key, {"version": 1})
    assert cache.get(key, stale) is None


def test_the_directory_follows_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EXECLENS_TRUTH_CACHE_DIR", str(tmp_path))
    assert truth_cache_dir("reval-truth") == tmp_path
    monkeypatch.delenv("EXECLENS_TRUTH_CACHE_DIR")
    assert truth_cache_dir("reval-truth").name == "reval-truth"
