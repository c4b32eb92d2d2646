"""The shard executor's keyed steps and inline backend: what eval, score, trace and
``tasks build`` resume through (synth's pipelined use is tested in tests/synth)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from execlens.store import InlineBackend, RunDir, ShardExecutor, Step, StoreError


def _chunks(keys: list[str], size: int = 3) -> list[list[str]]:
    return [keys[i : i + size] for i in range(0, len(keys), size)]


def _run(
    path: Path,
    keys: list[str],
    *,
    fail: set[str] = frozenset(),  # type: ignore[assignment]
) -> tuple[list[str], list[dict[str, Any]]]:
    """One keyed run over ``keys``: (the items its work saw, the run's records)."""
    seen: list[str] = []

    def work(
        step: str, items: list[Any], index: int, total: int
    ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        seen.extend(items)
        # An item in ``fail`` is left out, as eval leaves out a failed model request.
        return [{"id": key, "shard": index} for key in items if key not in fail], {}

    with RunDir.open(path, {"job": "keyed"}) as run:
        chunks = _chunks(keys)
        executor = ShardExecutor(
            run, [Step("samples", fed=len(chunks), feed=chunks, key=str)], InlineBackend(work)
        )
        assert executor.pending("samples") == [k for k in keys if k not in _held(path)]
        executor.run()
        if fail:
            return seen, []
        return seen, list(executor.records("samples"))


def _held(path: Path) -> set[str]:
    shards = path / ".done" / "samples"
    if not shards.is_dir():
        return set()
    from execlens.store import read_json

    return {key for marker in shards.glob("*.json") for key in read_json(marker)["stats"]["ids"]}


def test_a_keyed_run_grows_shrinks_and_redoes_only_what_it_lacks(tmp_path: Path) -> None:
    out = tmp_path / "run"
    seen, records = _run(out, ["a", "b"])
    assert seen == ["a", "b"] and [r["id"] for r in records] == ["a", "b"]
    seen, records = _run(out, ["a", "b", "c", "d"])  # grown: shard 0 rewritten, 1 new
    assert seen == ["c", "d"] and [r["id"] for r in records] == ["a", "b", "c", "d"]
    seen, records = _run(out, ["a", "b"])  # shrunk: nothing to do, only what it asks
    assert seen == [] and [r["id"] for r in records] == ["a", "b"]
    # The same slice in a fresh directory: the same records.
    assert _run(tmp_path / "fresh", ["a", "b", "c", "d"])[1] == _run(out, ["a", "b", "c", "d"])[1]


def test_an_item_the_work_left_out_is_asked_again_and_the_rest_kept(tmp_path: Path) -> None:
    out = tmp_path / "run"
    seen, _ = _run(out, ["a", "b", "c", "d"], fail={"b"})
    assert seen == ["a", "b", "c", "d"] and _held(out) == {"a", "c", "d"}
    seen, records = _run(out, ["a", "b", "c", "d"])
    assert seen == ["b"] and [r["id"] for r in records] == ["a", "b", "c", "d"]


def test_records_an_earlier_wider_run_asked_for_are_kept_after_this_runs(tmp_path: Path) -> None:
    out = tmp_path / "run"
    _run(out, ["x", "a", "b"])
    _run(out, ["a", "c"])  # shard 0 now asks a, c: x and b were another run's
    from execlens.store import ShardSet

    assert [r["id"] for r in ShardSet(out, "samples").read(0)] == ["a", "c", "x", "b"]
    # And the wider run still finds every record it asked for, in its order.
    seen, records = _run(out, ["x", "a", "b"])
    assert seen == [] and [r["id"] for r in records] == ["x", "a", "b"]


def test_an_inline_failure_stops_new_shards_and_is_raised(tmp_path: Path) -> None:
    calls: list[int] = []

    def work(
        step: str, items: list[Any], index: int, total: int
    ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        calls.append(index)
        if index == 1:
            raise RuntimeError("server down")
        return [{"id": key} for key in items], {}

    chunks = _chunks([str(i) for i in range(9)])
    with RunDir.open(tmp_path / "run", {"job": "fail"}) as run:
        executor = ShardExecutor(run, [Step("s", fed=3, feed=chunks)], InlineBackend(work))
        with pytest.raises(RuntimeError, match="server down"):
            executor.run()
        assert calls == [0, 1] and executor.done("s") == [0]


def test_a_keyed_step_cannot_be_read_as_an_upstream_or_fed_a_stream(tmp_path: Path) -> None:
    backend = InlineBackend(lambda *args: ([], {}))
    with RunDir.open(tmp_path / "run", {"job": "bad"}) as run:
        with pytest.raises(StoreError, match="may be rewritten"):
            ShardExecutor(
                run, [Step("a", fed=1, feed=[["k"]], key=str), Step("b", upstream="a")], backend
            )
        with pytest.raises(StoreError, match="sequence"):
            ShardExecutor(run, [Step("a", fed=1, feed=iter([["k"]]), key=str)], backend)
