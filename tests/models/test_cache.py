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
        subprocess.Popen(
            [sys.executable, "-c", _WRITER, str(path), tag],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for tag in ("a", "b", "c")
    ]
    for writer in writers:
        _, err = writer.communicate(timeout=60)
        assert writer.returncode == 0, err
    with RequestCache(path) as cache:
        assert len(cache) == 600
        keys = [f"{t}-{i}" for t in "abc" for i in range(200)]
        assert len(cache.get_many(keys)) == 600


def _filled_cache(path: Path, rows: int = 3000) -> list[str]:
    keys = [f"key-{i:05d}" for i in range(rows)]
    with RequestCache(path) as cache:
        cache.put_many(
            [(key, Completion(index=0, text=key * 20)) for key in keys],
            model="m",
            namespace="n",
            kind="chat",
        )
    # Fold the write-ahead log into the main file so the damage below hits real pages.
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return keys


def _corrupt_copies(path: Path) -> list[Path]:
    return sorted(path.parent.glob(path.name + ".corrupt-*"))


def test_truncated_cache_is_moved_aside_at_open(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "requests.sqlite"
    _filled_cache(path)
    size = path.stat().st_size
    with path.open("r+b") as handle:
        handle.truncate(size // 2)
    damaged = path.read_bytes()
    with caplog.at_level("WARNING", logger="execlens.models"), RequestCache(path) as cache:
        assert len(cache) == 0
        good = Completion(index=0, text="fresh")
        assert cache.put_many([("k", good)], model="m", namespace="n", kind="chat") == 1
        assert cache.get_many(["k"])["k"].text == "fresh"
    [aside] = _corrupt_copies(path)
    assert aside.read_bytes() == damaged  # kept for a human, byte for byte
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert len(warnings) == 1
    assert str(path) in warnings[0] and str(aside) in warnings[0]
    assert "\n" not in warnings[0]


def test_a_file_that_is_not_a_database_is_replaced(tmp_path: Path) -> None:
    path = tmp_path / "requests.sqlite"
    path.write_bytes(b"this is not sqlite at all\n" * 200)
    with RequestCache(path) as cache:
        assert len(cache) == 0
        assert cache.recovered == _corrupt_copies(path)
    assert len(_corrupt_copies(path)) == 1


def test_damage_found_on_first_query_is_recovered(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "requests.sqlite"
    keys = _filled_cache(path)
    # Garble pages in the middle: the header, first and last pages still read fine.
    size = path.stat().st_size
    with path.open("r+b") as handle:
        handle.seek(size // 3)
        handle.write(b"\xa5" * (size // 3))
    with caplog.at_level("WARNING", logger="execlens.models"), RequestCache(path) as cache:
        assert cache.recovered == []  # opening did not notice
        found = cache.get_many(keys)  # the query reads the damaged pages
        assert found == {}
        assert len(cache.recovered) == 1
        assert (
            cache.put_many(
                [("k", Completion(index=0, text="x"))], model="m", namespace="n", kind="chat"
            )
            == 1
        )
        assert len(cache) == 1
    assert any(str(cache.recovered[0]) in r.getMessage() for r in caplog.records)


_OPENER = """
import sys
from execlens.models import Completion, RequestCache
with RequestCache(sys.argv[1]) as cache:
    cache.put_many([(sys.argv[2], Completion(index=0, text="x"))],
                   model="m", namespace="n", kind="chat")
    print(len(cache.recovered))
"""


def test_two_processes_opening_a_corrupt_cache_recover_it_once(tmp_path: Path) -> None:
    path = tmp_path / "requests.sqlite"
    path.write_bytes(b"\x00garbage" * 4096)
    openers = [
        subprocess.Popen(
            [sys.executable, "-c", _OPENER, str(path), tag],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for tag in ("a", "b", "c")
    ]
    recoveries = 0
    for opener in openers:
        out, err = opener.communicate(timeout=60)
        assert opener.returncode == 0, err
        recoveries += int(out)
    assert recoveries == 1
    assert len(_corrupt_copies(path)) == 1
    with RequestCache(path) as cache:
        assert set(cache.get_many(["a", "b", "c"])) == {"a", "b", "c"}


def test_fresh_cache_opened_by_many_processes_at_once(tmp_path: Path) -> None:
    path = tmp_path / "new.sqlite"
    openers = [
        subprocess.Popen(
            [sys.executable, "-c", _OPENER, str(path), f"t{i}"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(4)
    ]
    for opener in openers:
        out, err = opener.communicate(timeout=60)
        assert opener.returncode == 0, err
        assert out.strip() == "0"
    with RequestCache(path) as cache:
        assert len(cache) == 4
    assert _corrupt_copies(path) == []
