"""CRUXEval loading from the shipped file, and malformed records."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from execlens.bench import DatasetUnavailableError, MalformedRecordError, select
from execlens.bench.cruxeval import CruxEvalSample, load_cruxeval, render_cruxeval


def test_loads_all_800_samples_in_order(data_dir: Path) -> None:
    result = load_cruxeval(data_dir / "cruxeval")  # a directory holding cruxeval.jsonl
    assert result.errors == []
    assert len(result) == 800
    assert [s.sample_id for s in result] == [f"sample_{i}" for i in range(800)]
    first = result.records[0]
    assert first == CruxEvalSample(
        id="sample_0",
        code="def f(nums):\n    output = []\n    for n in nums:\n"
        "        output.append((nums.count(n), n))\n"
        "    output.sort(reverse=True)\n    return output",
        input="[1, 1, 3, 1, 3, 1]",
        output="[(4, 1), (4, 1), (4, 1), (4, 1), (2, 3), (2, 3)]",
    )
    # texts are kept verbatim: every output is a literal, 14 inputs are not (expressions, a name,
    # one empty)
    for s in result:
        ast.literal_eval(s.output)
    not_literal = 0
    for s in result:
        try:
            ast.literal_eval(f"({s.input},)")
        except (ValueError, SyntaxError):
            not_literal += 1
    assert not_literal == 14
    assert sum(s.input == "" for s in result) == 1
    assert load_cruxeval(data_dir / "cruxeval" / "cruxeval.jsonl").records == result.records


def test_every_sample_renders(data_dir: Path) -> None:
    for s in load_cruxeval(data_dir / "cruxeval"):
        prompt = s.render("output", "phind")
        assert prompt.sample_id == s.id and prompt.stop == ("# done",)
        assert prompt.text.endswith(f"{s.code}\nassert f({s.input}) ==")
        assert render_cruxeval("output", "cot", code=s.code, input=s.input).text.endswith(
            f"assert f({s.input}) == ??\n[/PYTHON]\n[THOUGHT]\n"
        )
        assert render_cruxeval("input", "direct", code=s.code, output=s.output).text.endswith(
            f"assert f(??) == {s.output}\n[/PYTHON]\n[ANSWER]\n"
        )


def test_malformed_records_are_named_and_the_rest_load(data_dir: Path, tmp_path: Path) -> None:
    lines = (data_dir / "cruxeval" / "cruxeval.jsonl").read_text(encoding="utf-8").splitlines()
    rows = [json.loads(line) for line in lines]
    broken = list(lines)
    broken[2] = lines[2][:-5]  # truncated JSON
    del rows[4]["code"]
    broken[4] = json.dumps(rows[4])  # missing field
    rows[6]["output"] = 7
    broken[6] = json.dumps(rows[6])  # wrong type
    broken[8] = json.dumps(rows[0])  # duplicate id
    broken[10] = "[1, 2]"  # not an object
    broken.insert(12, "")  # blank lines are fine
    path = tmp_path / "cruxeval.jsonl"
    path.write_text("\n".join(broken), encoding="utf-8")

    result = load_cruxeval(path)
    assert len(result) == 795
    assert "sample_2" not in {s.id for s in result} and "sample_799" in {s.id for s in result}
    found = [(e.line, e.field) for e in result.errors]
    assert found == [(3, None), (5, "code"), (7, "output"), (9, "id"), (11, None)]
    assert str(result.errors[1]) == f"{path}:5: field 'code': missing"
    assert "duplicate id 'sample_0' (first at 1)" in str(result.errors[3])
    with pytest.raises(MalformedRecordError) as info:
        result.raise_for_errors()
    assert f"{path}:7: field 'output': expected a string, got int" in str(info.value)
    assert len(info.value.errors) == 5


def test_json_list_file_and_missing_sources(data_dir: Path, tmp_path: Path) -> None:
    rows = [
        json.loads(line)
        for line in (data_dir / "cruxeval" / "cruxeval.jsonl").read_text().splitlines()[:3]
    ]
    path = tmp_path / "subset.json"
    path.write_text(json.dumps(rows), encoding="utf-8")
    assert [s.id for s in load_cruxeval(path)] == ["sample_0", "sample_1", "sample_2"]
    with pytest.raises(DatasetUnavailableError, match="no such file or directory"):
        load_cruxeval(tmp_path / "nowhere.jsonl")
    (tmp_path / "empty").mkdir()
    with pytest.raises(DatasetUnavailableError, match="looked for cruxeval.jsonl"):
        load_cruxeval(tmp_path / "empty")
    (tmp_path / "bad.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(DatasetUnavailableError, match="not valid JSON"):
        load_cruxeval(tmp_path / "bad.json")


def test_select_limit_offset_ids(data_dir: Path) -> None:
    samples = load_cruxeval(data_dir / "cruxeval").records
    assert [s.id for s in select(samples, limit=3)] == ["sample_0", "sample_1", "sample_2"]
    assert [s.id for s in select(samples, limit=2, offset=798)] == ["sample_798", "sample_799"]
    assert select(samples, offset=900) == []
    assert len(select(samples)) == 800
    # ids keep dataset order whatever order they are given in
    assert [s.id for s in select(samples, ids=["sample_9", "sample_3"])] == ["sample_3", "sample_9"]
    assert [s.id for s in select(samples, ids=["sample_9", "sample_3"], limit=1)] == ["sample_3"]
    with pytest.raises(KeyError, match="sample_800"):
        select(samples, ids=["sample_800"])
    with pytest.raises(ValueError):
        select(samples, limit=-1)
