"""The append-only JSONL log: torn tails, corrupt middles, keys."""

from __future__ import annotations

import json
from pathlib import Path

from execlens.store import RunDir


def test_append_and_read_round_trip(run_path: Path) -> None:
    with RunDir.open(run_path, {}) as run:
        log = run.log("samples.jsonl")
        log.append([{"id": "a", "v": 1}])
        log.append([{"id": "b", "v": "é"}, {"id": 3}])
        assert log.read() == [{"id": "a", "v": 1}, {"id": "b", "v": "é"}, {"id": 3}]
        assert log.keys() == {"a", "b", "3"}
        assert log.keys("v") == {"1", "é"}
        assert log.problems == []


def test_torn_last_line_is_cut_and_counted(run_path: Path) -> None:
    with RunDir.open(run_path, {}) as run:
        log = run.log("samples.jsonl")
        log.append([{"id": "a"}, {"id": "b"}])
        with log.path.open("ab") as handle:
            handle.write(b'{"id": "c", "val')  # what a SIGKILL mid-write leaves
    with RunDir.open(run_path, {}) as run:
        log = run.log("samples.jsonl")
        assert log.read() == [{"id": "a"}, {"id": "b"}]
        assert log.torn == 1
        assert "line 3: torn last line" in log.problems[0]
        log.append([{"id": "c"}])
        assert log.read() == [{"id": "a"}, {"id": "b"}, {"id": "c"}]
        assert log.path.read_text().count("\n") == 3
        assert not log.corrupt_path.exists()


def test_corrupt_middle_line_keeps_later_lines_and_moves_it_aside(run_path: Path) -> None:
    with RunDir.open(run_path, {}) as run:
        log = run.log("samples.jsonl")
        log.append([{"id": i} for i in range(5)])
        lines = log.path.read_text().splitlines(keepends=True)
        lines[2] = '{"id": 2, "broken\n'
        log.path.write_text("".join(lines))
        records = log.read()
        assert [record["id"] for record in records] == [0, 1, 3, 4]
        assert len(log.problems) == 1 and "line 3" in log.problems[0]
        assert "samples.jsonl.corrupt" in log.problems[0]
        assert log.corrupt_path.read_text() == '{"id": 2, "broken\n'
        # The log itself no longer holds the bad line: a second read is clean.
        assert [record["id"] for record in log.read()] == [0, 1, 3, 4]
        assert log.problems == []


def test_non_object_lines_count_as_corrupt(run_path: Path) -> None:
    with RunDir.open(run_path, {}) as run:
        log = run.log("samples.jsonl")
        log.path.write_text('{"id": 1}\n[1, 2]\n"text"\n{"id": 2}\n')
        assert [r["id"] for r in log.read()] == [1, 2]
        assert [p.split(": ")[0].rsplit(" ", 1)[1] for p in log.problems] == ["2", "3"]
        assert [json.loads(x) for x in log.corrupt_path.read_text().splitlines()] == [
            [1, 2],
            "text",
        ]


def test_overwrite_clears_the_log_and_its_corrupt_file(run_path: Path) -> None:
    with RunDir.open(run_path, {"v": 1}) as run:
        log = run.log("samples.jsonl")
        log.path.write_text('{"id": 1}\nnope\n{"id": 2}\n')
        log.read()
        assert log.corrupt_path.exists()
    with RunDir.open(run_path, {"v": 2}, overwrite=True):
        assert not (run_path / "samples.jsonl").exists()
        assert not (run_path / "samples.jsonl.corrupt").exists()
