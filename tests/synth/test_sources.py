"""Sources: a ``datasets`` dataset with a ``content`` column enters at ``transform``;
rows that are neither raw code nor a function are kept with a named rejection."""

from __future__ import annotations

import json
from pathlib import Path

from execlens.synth import load_config, load_source, run_pipeline

from .conftest import write_config


def test_datasets_directory_enters_at_transform(
    tmp_path: Path, data_dir: Path, scripted_server
) -> None:
    folder = tmp_path / "raw-dataset"
    folder.mkdir()
    raw = [
        json.loads(line)
        for line in (data_dir / "codeio" / "rawcode_1k.jsonl").read_text().splitlines()[:3]
    ]
    (folder / "train.jsonl").write_text(
        "".join(json.dumps({"content": r["content"]}) + "\n" for r in raw)
    )
    config = load_config(
        write_config(
            tmp_path / "run.yaml",
            {
                "out": str(tmp_path / "out"),
                "sources": [{"dataset": str(folder), "split": "train"}],
                "stages": ["transform"],
                "model": {"name": "scripted", "base_url": scripted_server.base_url},
                "workers": 1,
            },
        )
    )
    records = load_source(config.sources[0])
    assert [r["entry"] for r in records] == ["transform"] * 3
    assert [r["content"] for r in records] == [r["content"] for r in raw]
    run_pipeline(config, progress=False)
    out = [
        json.loads(line)
        for line in (tmp_path / "out" / "shards" / "transform" / "00000.jsonl")
        .read_text()
        .splitlines()
    ]
    # The scripted server answers prose, not the four sections: each one named.
    assert [r["reject"]["reason"] for r in out] == ["missing_main_function"] * 3
    assert all(r["transform"]["response"] for r in out)


def test_rows_that_are_neither_code_nor_function_are_named(tmp_path: Path) -> None:
    path = tmp_path / "mixed.jsonl"
    path.write_text(
        '{"content": "x = 1"}\n{"other": 1}\nnot json\n'
        '{"refcode": "def main_solution(a):\\n    return a\\n"}\n'
        '{"refcode": "def main_solution(a):\\n    return a\\n", '
        '"ios": [{"input": {"a": 1}, "output": 1}]}\n'
    )
    config = load_config(
        write_config(
            tmp_path / "run.yaml",
            {"out": str(tmp_path / "out"), "sources": [{"path": str(path)}], "stages": ["collect"]},
        )
    )
    records = load_source(config.sources[0])
    assert [r["entry"] for r in records] == ["transform", None, None, None, "collect"]
    # A function with neither stored pairs nor an input generator cannot be collected.
    assert [r.get("reject", {}).get("reason") for r in records] == [
        None,
        "no_content_or_refcode",
        "not_json",
        "no_input_generator",
        None,
    ]
