"""Sources as users have them (issue 17): reasoning-gym's CodeI/O files read in place
(a gzipped JSONL file and a gzipped JSON array named ``.jsonl.gz``), the same records as
``.json``, Parquet and a saved ``datasets`` directory, a column mapping, streamed limits,
and a source nothing can enter from refused with the mapping that would fix it."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from execlens.synth import ConfigError, SourceConfig, load_source

reasoning_gym = pytest.importorskip("reasoning_gym")

DATA = Path(reasoning_gym.__file__).parent / "data"
COLUMNS = {
    "refcode": "code_sample",
    "problem_description": "task_description",
    "io_requirements": "input_output_spec",
    "input_generator": "input_generator",
}


def _first(name: str, count: int) -> list[dict]:
    """The first ``count`` records of a reasoning-gym file, read with the stdlib."""
    with gzip.open(DATA / name, "rt", encoding="utf-8") as handle:
        if name == "codeio-hq.jsonl.gz":  # one pretty-printed JSON array
            return json.load(handle)[:count]
        return [json.loads(handle.readline()) for _ in range(count)]


@pytest.mark.parametrize("name", ["codeio.jsonl.gz", "codeio-hq.jsonl.gz"])
def test_reasoning_gym_files_read_in_place_with_a_mapping(name: str) -> None:
    records = load_source(SourceConfig(path=DATA / name, columns=COLUMNS, offset=2, limit=5))
    expected = _first(name, 7)[2:]
    assert [r["id"] for r in records] == [f"{name.split('.')[0]}/{i}" for i in range(2, 7)]
    assert [r["entry"] for r in records] == ["collect"] * 5
    assert [r["refcode"] for r in records] == [e["code_sample"] for e in expected]
    assert [r["input_generator"] for r in records] == [e["input_generator"] for e in expected]
    assert [r["problem_description"] for r in records] == [e["task_description"] for e in expected]
    assert [r["io_requirements"] for r in records] == [e["input_output_spec"] for e in expected]


def test_json_parquet_and_datasets_directory_give_the_same_records(tmp_path: Path) -> None:
    import datasets
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = _first("codeio-hq.jsonl.gz", 6)
    keep = ["task_description", "input_output_spec", "code_sample", "input_generator"]
    rows = [{k: r[k] for k in keep} for r in rows]
    (tmp_path / "d.json").write_text(json.dumps(rows, indent=2))
    with gzip.open(tmp_path / "d.json.gz", "wt") as handle:
        json.dump(rows, handle)
    (tmp_path / "d.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "d.parquet")
    datasets.Dataset.from_list(rows).save_to_disk(str(tmp_path / "saved"))
    seen = {}
    for name in ("d.json", "d.json.gz", "d.jsonl", "d.parquet", "saved"):
        records = load_source(
            SourceConfig(path=tmp_path / name, columns=COLUMNS, limit=4, name="d")
        )
        seen[name] = [{k: v for k, v in r.items() if k != "meta"} for r in records]
    assert len(seen["d.json"]) == 4
    assert all(value == seen["d.json"] for value in seen.values())


def test_a_limit_reads_only_what_it_needs(tmp_path: Path) -> None:
    """A gzip stream cut off after its first records: the first ones load with a limit
    (the damaged rest is never read); without the limit the damage is named."""
    lines = "".join(json.dumps(r) + "\n" for r in _first("codeio.jsonl.gz", 40)).encode()
    whole = gzip.compress(lines)
    (tmp_path / "cut.jsonl.gz").write_bytes(whole[: len(whole) // 2])
    records = load_source(SourceConfig(path=tmp_path / "cut.jsonl.gz", columns=COLUMNS, limit=3))
    assert [r["entry"] for r in records] == ["collect"] * 3
    with pytest.raises(ConfigError, match="not a readable gzip file"):
        load_source(SourceConfig(path=tmp_path / "cut.jsonl.gz", columns=COLUMNS))


def test_without_a_mapping_the_error_names_the_columns_and_the_fix() -> None:
    with pytest.raises(ConfigError) as caught:
        load_source(SourceConfig(path=DATA / "codeio.jsonl.gz", limit=50))
    message = str(caught.value)
    assert "none of its 50 records can enter (50 no_content_or_refcode)" in message
    assert "columns: {refcode: code_sample" in message
    assert "problem_description: task_description" in message
    assert "\n" not in message


def test_a_generator_in_an_unmapped_column_is_named(tmp_path: Path) -> None:
    rows = [
        {"refcode": r["code_sample"], "gen": r["input_generator"]}
        for r in _first("codeio.jsonl.gz", 3)
    ]
    (tmp_path / "g.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(ConfigError, match=r"3 no_input_generator.*columns: \{input_generator"):
        load_source(SourceConfig(path=tmp_path / "g.jsonl"))
    records = load_source(
        SourceConfig(path=tmp_path / "g.jsonl", columns={"input_generator": "gen"})
    )
    assert [r["entry"] for r in records] == ["collect"] * 3


def test_a_hub_dataset_needs_a_pinned_revision() -> None:
    with pytest.raises(ConfigError, match="pin it with `revision:`"):
        load_source(SourceConfig(dataset="someone/not-local-codeio"))


def test_an_unknown_mapped_field_is_refused() -> None:
    with pytest.raises(ValueError, match="'code' is not a field"):
        SourceConfig(path=DATA / "codeio.jsonl.gz", columns={"code": "code_sample"})
