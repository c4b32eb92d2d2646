"""Generated garbage fed to every loader: a named error or a result, never anything else.

Issue 9's property-based suite for data files (the answer parser and the value decoder
have theirs in ``tests/values/test_fuzz_*.py``).  Each loader reads a file written from
hypothesis-generated content — random bytes, deeply nested JSON, huge strings, rows of
the wrong type, records with fields of the wrong type — and must either return records
or raise the error it documents.  Examples are fixed (``derandomize``) so CI is
repeatable; ``EXECLENS_FUZZ_EXAMPLES=N`` runs N fresh ones.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from execlens.bench import (
    DatasetError,
    GenerationsError,
    benchmark_names,
    default_benchmark,
    get_benchmark,
    load_programs,
)
from execlens.store import JsonlLog
from execlens.synth import ConfigError, SourceConfig, load_config, load_source
from execlens.tasks import SourceError

_FRESH = int(os.environ.get("EXECLENS_FUZZ_EXAMPLES", "0"))
FUZZ = settings(
    max_examples=_FRESH or 40,
    derandomize=not _FRESH,
    deadline=5000,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=30)
)
_json = st.recursive(
    _scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)
#: Field names the loaders look for, so garbage reaches the per-field checks.
_FIELDS = (
    "code",
    "input",
    "output",
    "id",
    "task_id",
    "entry_point",
    "inputs",
    "outputs",
    "test",
    "tasks",
    "refcode",
    "ios",
    "content",
    "function_name",
    "question_id",
    "program",
    "call",
    "sample_0",
)
_records = st.dictionaries(st.sampled_from(_FIELDS), _json, max_size=6)


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


@st.composite
def garbage_files(draw: st.DrawFn) -> bytes:
    """File content: raw bytes, JSONL of wrong-typed records, deep nesting, huge strings."""
    kind = draw(st.sampled_from(("bytes", "jsonl", "json", "deep", "huge", "rows")))
    if kind == "bytes":
        return draw(st.binary(max_size=200))
    if kind == "jsonl":
        return "\n".join(json.dumps(r) for r in draw(st.lists(_records, max_size=4))).encode()
    if kind == "json":
        return json.dumps(draw(_json)).encode()
    if kind == "deep":
        return _nested(draw(st.integers(1_000, 50_000))).encode()
    if kind == "huge":
        return json.dumps({"code": "x" * draw(st.integers(10_000, 2_000_000))}).encode()
    return "\n".join(json.dumps(r) for r in draw(st.lists(_json, max_size=4))).encode()


def _write(tmp_path: Path, name: str, content: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(content)
    return path


def _loads_or_names(load: Callable[[], Any], errors: tuple[type[BaseException], ...]) -> None:
    try:
        load()
    except errors as exc:
        assert str(exc).strip(), f"{type(exc).__name__} without a message"


@pytest.mark.parametrize("name", benchmark_names())
@FUZZ
@given(content=garbage_files())
def test_benchmark_loaders_name_what_is_wrong(
    name: str, content: bytes, tmp_path_factory: pytest.TempPathFactory
) -> None:
    benchmark = get_benchmark(name)
    path = _write(tmp_path_factory.mktemp(name), "data.jsonl", content)
    _loads_or_names(lambda: benchmark.load(str(path)), (DatasetError,))


@FUZZ
@given(content=garbage_files())
def test_generations_files_name_what_is_wrong(
    content: bytes, data_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    benchmark = default_benchmark()
    path = _write(tmp_path_factory.mktemp("gens"), "x_output_generations.json", content)
    data = str(data_dir / "cruxeval" / "cruxeval.jsonl")
    _loads_or_names(
        lambda: benchmark.read_generations(path, data, "output"), (GenerationsError, DatasetError)
    )


@FUZZ
@given(content=garbage_files())
def test_runtime_program_sources_name_what_is_wrong(
    content: bytes, tmp_path_factory: pytest.TempPathFactory
) -> None:
    path = _write(tmp_path_factory.mktemp("programs"), "programs.jsonl", content)
    _loads_or_names(lambda: load_programs(path), (SourceError,))


@FUZZ
@given(content=garbage_files())
def test_synthesis_sources_reject_by_name(
    content: bytes, tmp_path_factory: pytest.TempPathFactory
) -> None:
    path = _write(tmp_path_factory.mktemp("synth"), "raw.jsonl", content)
    try:
        records = load_source(SourceConfig(path=path))
    except ConfigError as exc:
        assert str(exc).strip()
        return
    for record in records:  # nothing dropped silently: a record enters a stage or is rejected
        assert record.get("entry") or record.get("reject", {}).get("reason")


@FUZZ
@given(content=garbage_files())
def test_synthesis_configs_name_the_field(
    content: bytes, tmp_path_factory: pytest.TempPathFactory
) -> None:
    path = _write(tmp_path_factory.mktemp("config"), "config.yaml", content)
    _loads_or_names(lambda: load_config(path), (ConfigError,))


@FUZZ
@given(content=garbage_files())
def test_run_logs_keep_every_valid_line(
    content: bytes, tmp_path_factory: pytest.TempPathFactory
) -> None:
    folder = tmp_path_factory.mktemp("log")
    log = JsonlLog(_write(folder, "samples.jsonl", content))
    records = log.read()
    assert all(isinstance(r, dict) for r in records)
    valid = 0
    for line in content.split(b"\n")[:-1]:  # complete lines only: a torn tail is dropped
        try:
            valid += isinstance(json.loads(line), dict)
        except (ValueError, RecursionError):
            continue
    assert len(records) == valid
