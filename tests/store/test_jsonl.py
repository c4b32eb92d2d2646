"""The one JSONL reader: values by line, typed errors naming file, line and problem."""

from __future__ import annotations

import gzip
import pickle
from pathlib import Path

import pytest

from execlens.store import (
    JsonlError,
    JsonlLine,
    StoreError,
    iter_jsonl,
    jsonl_lines,
    read_jsonl,
)


def _file(tmp_path: Path, data: bytes, name: str = "rows.jsonl") -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def _error(path: Path, **options: bool) -> JsonlError:
    with pytest.raises(JsonlError) as caught:
        read_jsonl(path, **options)
    return caught.value


def test_reads_objects_with_their_line_numbers_skipping_blank_lines(tmp_path: Path) -> None:
    path = _file(tmp_path, b'{"a": 1}\n\n   \n{"a": 2}\r\n{"a": 3}')
    lines = list(jsonl_lines(path))
    assert lines == [JsonlLine(1, {"a": 1}), JsonlLine(4, {"a": 2}), JsonlLine(5, {"a": 3})]
    assert read_jsonl(path) == [{"a": 1}, {"a": 2}, {"a": 3}]


def test_a_blank_line_is_an_error_when_blanks_are_not_skipped(tmp_path: Path) -> None:
    path = _file(tmp_path, b'{"a": 1}\n\n{"a": 2}\n')
    error = _error(path, skip_blank=False)
    assert (error.line, error.problem) == (2, "not-json")


def test_not_json_names_file_line_and_column(tmp_path: Path) -> None:
    path = _file(tmp_path, b'{"a": 1}\n{"a": 2}\n{"a": }\n{"a": 4}\n')
    error = _error(path)
    assert (error.path, error.line, error.problem) == (path, 3, "not-json")
    assert (error.detail, error.column) == ("Expecting value", 7)
    assert not error.torn
    assert str(error) == f"{path} line 3: not JSON (Expecting value at column 7)"


def test_a_value_that_is_not_an_object(tmp_path: Path) -> None:
    path = _file(tmp_path, b'{"a": 1}\n[1, 2]\n')
    error = _error(path)
    assert (error.line, error.problem, error.value) == (2, "not-object", [1, 2])
    assert str(error) == f"{path} line 2: not a JSON object (a list)"
    # Objects are only required when asked.
    assert read_jsonl(path, objects=False) == [{"a": 1}, [1, 2]]
    assert read_jsonl(_file(tmp_path, b"null\n7\n"), objects=False) == [None, 7]


def test_undecodable_bytes_give_the_byte_and_its_offset_in_the_file(tmp_path: Path) -> None:
    path = _file(tmp_path, b'{"a": 1}\n{"a": "\xff"}\n')
    error = _error(path)
    assert (error.line, error.problem, error.byte, error.offset) == (2, "undecodable", 0xFF, 16)
    assert error.detail == "invalid start byte"
    assert "not UTF-8 text (byte 0xff at offset 16)" in str(error)


def test_json_nested_too_deeply(tmp_path: Path) -> None:
    path = _file(tmp_path, b'{"a": 1}\n' + b"[" * 100_000 + b"\n")
    error = _error(path, objects=False)
    assert (error.line, error.problem) == (2, "too-deep")


def test_a_torn_last_line_is_an_error_unless_skipped(tmp_path: Path) -> None:
    path = _file(tmp_path, b'{"a": 1}\n{"a": 2}\n{"a": 3, "b')
    error = _error(path)
    assert (error.line, error.problem, error.torn) == (3, "not-json", True)
    assert "the last line is cut off" in str(error)
    assert read_jsonl(path, skip_torn_tail=True) == [{"a": 1}, {"a": 2}]


def test_a_torn_tail_cut_inside_a_character_is_torn_too(tmp_path: Path) -> None:
    path = _file(tmp_path, b'{"a": 1}\n{"a": "\xc3')
    error = _error(path)
    assert (error.problem, error.torn) == ("undecodable", True)
    assert read_jsonl(path, skip_torn_tail=True) == [{"a": 1}]


def test_a_complete_last_line_without_newline_is_a_record(tmp_path: Path) -> None:
    path = _file(tmp_path, b'{"a": 1}\n{"a": 2}')
    assert read_jsonl(path, skip_torn_tail=True) == [{"a": 1}, {"a": 2}]


def test_a_corrupt_middle_line_is_never_taken_for_a_torn_tail(tmp_path: Path) -> None:
    path = _file(tmp_path, b'{"a": 1}\n{"a": \n{"a": 3}')
    error = _error(path, skip_torn_tail=True)
    assert (error.line, error.torn) == (2, False)


def test_bad_lines_are_yielded_in_place_so_a_reader_can_keep_going(tmp_path: Path) -> None:
    path = _file(tmp_path, b'{"a": 1}\nnope\n"text"\n{"a": 4}\n')
    lines = list(jsonl_lines(path))
    assert [line.number for line in lines] == [1, 2, 3, 4]
    assert [line.value for line in lines] == [{"a": 1}, None, None, {"a": 4}]
    assert [line.error and line.error.problem for line in lines] == [
        None,
        "not-json",
        "not-object",
        None,
    ]


def test_iteration_streams_up_to_the_bad_line(tmp_path: Path) -> None:
    path = _file(tmp_path, b'{"a": 1}\n{"a": 2}\nbroken\n')
    values = iter_jsonl(path)
    assert next(values) == {"a": 1}
    assert next(values) == {"a": 2}
    with pytest.raises(JsonlError, match="line 3"):
        next(values)


def test_gzipped_files_are_read_through_gzip(tmp_path: Path) -> None:
    path = tmp_path / "rows.jsonl.gz"
    path.write_bytes(gzip.compress(b'{"a": 1}\n{"a": 2}\n'))
    assert read_jsonl(path) == [{"a": 1}, {"a": 2}]


def test_the_error_is_a_value_error_and_a_store_error(tmp_path: Path) -> None:
    error = _error(_file(tmp_path, b"oops\n"))
    assert isinstance(error, ValueError)
    assert isinstance(error, StoreError)


def test_a_missing_file_raises_as_open_does(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        read_jsonl(tmp_path / "absent.jsonl")


def test_the_error_crosses_a_process_whole(tmp_path: Path) -> None:
    error = _error(_file(tmp_path, b'{"a": 1}\n{"a": "\xff'))
    again = pickle.loads(pickle.dumps(error))
    assert str(again) == str(error)
    assert (again.line, again.problem, again.offset, again.byte, again.torn) == (
        2,
        "undecodable",
        16,
        0xFF,
        True,
    )
