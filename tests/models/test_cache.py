"""The request cache: keys, persistence, WAL, concurrent writers in several processes."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from execlens.models import (
    Completion,
    ErrorKind,
    GenerationRequest,
    RequestCache,
    SamplingParams,
    Usage,
    default_cache_dir,
    sample_key,
)


def _key(request: GenerationRequest, params: SamplingParams, index: int = 0, **kw: str) -> str:
    fields = {"kind": request.kind, "namespace": "http://h/v1", "model": "m"} | kw
    return sample_key(request=request, params=params, sample_index=index, **fields)


def test_key_covers_what_determines_a_sample_and_ignores_n() -> None:
    request = GenerationRequest.chat("hi")
    params = SamplingParams(temperature=0.5, max_tokens=8)
    base = _key(request, params)
    assert base == _key(GenerationRequest.chat([{"role": "user", "content": "hi"}]), params)
    # n is not part of a sample's identity: sample 0 of n=1 is sample 0 of n=5.
    assert base == _key(request, params.model_copy(update={"n": 5}))
    # The caller's tag is not either.
    assert base == _key(GenerationRequest.chat("hi", id="row-7"), params)
    different = [
        _key(request, params, 1),
        _key(GenerationRequest.chat("hi!"), params),
        _key(GenerationRequest.completion("hi"), params, kind="completion"),
        _key(request, params.model_copy(update={"temperature": 0.6})),
        _key(request, params.model_copy(update={"seed": 1})),
        _key(request, params.model_copy(update={"stop": ("\n",)})),
        _key(request, params.model_copy(update={"extra_body": {"top_k": 5}})),
        _key(request, params, model="other"),
        _key(request, params, namespace="http://other/v1"),
    ]
    assert len({base, *different}) == len(different) + 1


def test_sampling_params_validation() -> None:
    assert SamplingParams(stop="\n").stop == ("\n",)
    assert SamplingParams(stop=None).stop == ()
    with pytest.raises(ValueError, match="extra_body must be JSON"):
        SamplingParams(extra_body={"x": object()})
    with pytest.raises(ValueError):
        SamplingParams(n=0)
    with pytest.raises(ValueError):
        SamplingParams(unknown=1)  # type: ignore[call-arg]
    with pytest.raises(ValueError, match="exactly one of messages= or prompt="):
        GenerationRequest(prompt="a", messages=[{"role": "user", "content": "b"}])
    with pytest.raises(ValueError, match="exactly one"):
        GenerationRequest()


def test_rows_persist_across_instances_and_errors_are_not_stored(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    good = Completion(index=0, text="x", finish_reason="stop", usage=Usage(prompt_tokens=3))
    bad = Completion(index=1, error=ErrorKind.TIMEOUT, error_message="slow")
    with RequestCache(path) as cache:
        stored = cache.put_many([("k0", good), ("k1", bad)], model="m", namespace="n", kind="chat")
        assert stored == 1
    with RequestCache(path) as again:
        found = again.get_many(["k0", "k1", "k2"])
        assert set(found) == {"k0"}
        assert found["k0"].text == "x" and found["k0"].cached
        assert found["k0"].usage.prompt_tokens == 3
        assert len(again) == 1
    mode = sqlite3.connect(path).execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"


def test_cache_dir_follows_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("EXECLENS_CACHE_DIR", str(tmp_path / "here"))
    assert default_cache_dir() == tmp_path / "here"
    assert RequestCache().path == tmp_path / "here" / "requests.sqlite"
    monkeypatch.delenv("EXECLENS_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_cache_dir() == tmp_path / "xdg" / "execlens"


_WRITER = """
import sys
from execlens.models import Completion, RequestCache
cache = RequestCache(sys.argv[1])
tag = sys.argv[2]
for i in range(200):
    cache.put_many([(f"{tag}-{i}", Completion(index=0, text=str(i)))],
                   model="m", namespace="n", kind="chat")
print("done")
"""


def test_concurrent_writers_in_separate_processes_lose_nothing(tmp_path: Path) -> None:
    path = tmp_path / "shared.sqlite"
    RequestCache(path).close()
    writers = [
        subprocess.Popen([sys.executable, "-c", _WRITER, str(path), tag], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
        for tag in ("a", "b", "c")
    ]
    for writer in writers:
        _, err = writer.communicate(timeout=60)
        assert writer.returncode == 0, err
    with RequestCache(path) as cache:
        assert len(cache) == 600
        keys = [f"{t}-{i}" for t in "abc" for i in range(200)]
        assert len(cache.get_many(keys)) == 600
