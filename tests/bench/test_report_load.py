"""``load_run`` reads a run directory's samples with the one JSONL reader: a torn last
line (a killed run) is dropped, a damaged line elsewhere is a named ``ReportError``."""

from __future__ import annotations

from pathlib import Path

import pytest

from execlens.bench._report import ReportError, load_run


def _run_dir(tmp_path: Path, samples: bytes) -> Path:
    run = tmp_path / "run"
    run.mkdir()
    (run / "results.json").write_text('{"benchmark": "cruxeval"}', encoding="utf-8")
    (run / "samples.jsonl").write_bytes(samples)
    return run


def test_a_torn_last_sample_line_is_dropped(tmp_path: Path) -> None:
    run = load_run(_run_dir(tmp_path, b'{"id": "a"}\n\n{"id": "b"}\n{"id": "c", "sc'))
    assert run.samples == [{"id": "a"}, {"id": "b"}]


def test_a_damaged_middle_line_names_file_and_line(tmp_path: Path) -> None:
    with pytest.raises(ReportError, match=r"samples.jsonl line 2: not JSON .*rerun"):
        load_run(_run_dir(tmp_path, b'{"id": "a"}\n{"id": \n{"id": "c"}\n'))


def test_samples_that_are_not_utf8_are_named(tmp_path: Path) -> None:
    with pytest.raises(ReportError, match=r"line 1: not UTF-8 text \(byte 0xff"):
        load_run(_run_dir(tmp_path, b'{"id": "\xff"}\n'))
