"""The run core (``bench.Run``): the base owns identity, resume, the engine's lifetime and
the failure type; a subclass only says what its units are and how one shard is done.

The subclass here squares numbers, so what is tested is the base: which shards run,
what a rerun redoes, when the engine starts and that it is closed however a run ends.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

import pytest

from execlens.bench import Run, RunError, records_digest
from execlens.store import RunDir, ShardExecutor, Step


class SquaresError(RunError):
    """The squares run's failures."""


class Squares(Run[dict[str, Any]]):
    """Squares of ``numbers``, three per shard; ``fail_at`` raises in that shard."""

    verb = "squares"
    error = SquaresError

    def __init__(
        self, out: Path, numbers: list[int], *, fail_at: int | None = None, **options: Any
    ) -> None:
        super().__init__(out, **options)
        self.numbers, self.fail_at = numbers, fail_at
        self.shards_done: list[int] = []
        self.engine_events: list[str] = []

    def identity(self) -> dict[str, Any]:
        return {"data": records_digest(self.numbers)}

    def program(self) -> dict[str, Any]:
        return {}  # no programs run: the interpreter is not part of this run

    def steps(self) -> list[Step]:
        chunks = [self.numbers[i : i + 3] for i in range(0, len(self.numbers), 3)]
        return [Step("squares", fed=len(chunks), feed=chunks)]

    def start_engine(self) -> AbstractContextManager[Any]:
        @contextmanager
        def engine() -> Iterator[str]:
            self.engine_events.append("started")
            try:
                yield "engine"
            finally:
                self.engine_events.append("closed")

        return engine()

    def work(self, step: str, chunk: list[Any]) -> list[dict[str, Any]]:
        assert self.engine == "engine"
        if chunk[0] == self.fail_at:
            raise ValueError(f"shard starting at {chunk[0]} failed")
        self.shards_done.append(chunk[0])
        return [{"n": n, "square": n * n} for n in chunk]

    def finish(self, run: RunDir, executor: ShardExecutor) -> dict[str, Any]:
        squares = [r["square"] for r in executor.records("squares")]
        results = {"squares": squares, "total": sum(squares)}
        run.write_json("results.json", results)
        return results


def test_a_run_resumes_after_a_failure_and_writes_the_same_bytes(tmp_path: Path) -> None:
    numbers = list(range(10))
    whole = Squares(tmp_path / "whole", numbers)
    assert whole.execute()["total"] == sum(n * n for n in numbers)
    assert whole.shards_done == [0, 3, 6, 9]

    broken = Squares(tmp_path / "run", numbers, fail_at=6)
    with pytest.raises(ValueError, match="starting at 6"):
        broken.execute()
    assert broken.shards_done == [0, 3]
    assert broken.engine_events == ["started", "closed"]  # closed although the run failed

    again = Squares(tmp_path / "run", numbers)
    again.execute()
    assert again.shards_done == [6, 9]  # the finished shards are not redone
    assert (tmp_path / "run" / "results.json").read_bytes() == (
        tmp_path / "whole" / "results.json"
    ).read_bytes()

    done = Squares(tmp_path / "run", numbers)
    done.execute()
    assert done.shards_done == [] and done.engine_events == []  # nothing left: no engine


def test_other_data_is_another_run_refused_as_the_runs_own_error(tmp_path: Path) -> None:
    Squares(tmp_path / "run", [1, 2, 3]).execute()
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["identity"] == {
        "verb": "squares",
        "data": records_digest([1, 2, 3]),
        "program": {},
    }
    with pytest.raises(SquaresError, match="differs in: data"):
        Squares(tmp_path / "run", [1, 2, 4]).execute()
    replaced = Squares(tmp_path / "run", [1, 2, 4], overwrite=True)
    assert replaced.execute()["squares"] == [1, 4, 16]


def test_an_engine_handed_in_is_used_and_never_closed(tmp_path: Path) -> None:
    run = Squares(tmp_path / "run", [1, 2], engine="engine")  # type: ignore[arg-type]
    run.execute()
    assert run.engine_events == [] and run.engine_used == "engine"
