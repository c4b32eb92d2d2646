"""Bad input to ``execlens synth run`` and ``synth status``: one named test per case.

Every case ends with exit code 2, exactly one ``error: ...`` line on stderr naming the
field or file and the fix, no traceback, and an existing run left as it was.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner, Result

from execlens.cli import app


def _run(*args: str) -> Result:
    return CliRunner().invoke(app, ["synth", *args])


def _refused(result: Result, *fragments: str) -> None:
    assert result.exit_code == 2, (result.exit_code, result.output)
    assert result.stderr.startswith("error: "), result.stderr
    assert result.stderr.count("\n") == 1, result.stderr
    assert "Traceback" not in result.output
    for fragment in fragments:
        assert fragment in result.stderr, (fragment, result.stderr)


def _parsed(data_dir: Path) -> Path:
    path = data_dir / "codeio" / "rawcode_1k_parsed.jsonl"
    if not path.is_file():
        pytest.skip(f"CodeI/O data not found at {path}")
    return path


def _config(tmp_path: Path, data_dir: Path, **changes: Any) -> Path:
    config: dict[str, Any] = {
        "out": str(tmp_path / "out"),
        "sources": [{"path": str(_parsed(data_dir)), "limit": 2}],
        "stages": ["collect", "prompts"],
        "workers": 1,
    }
    config.update(changes)
    path = tmp_path / "run.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def test_missing_config_file(tmp_path: Path) -> None:
    _refused(_run("run", str(tmp_path / "nope.yaml")), "nope.yaml", "no such config file")


def test_config_not_yaml(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("out: [unclosed\nstages: x\n")
    _refused(_run("run", str(path)), "not valid YAML", "line")


def test_config_not_a_mapping(tmp_path: Path) -> None:
    path = tmp_path / "list.yaml"
    path.write_text("- a\n- b\n")
    _refused(_run("run", str(path)), "must be a mapping")


def test_empty_config(tmp_path: Path) -> None:
    path = tmp_path / "empty.yaml"
    path.write_text("")
    _refused(_run("run", str(path)), "must be a mapping")


def test_unknown_stage(tmp_path: Path, data_dir: Path) -> None:
    _refused(
        _run("run", str(_config(tmp_path, data_dir, stages=["collect", "colect"]))),
        "field stages",
        "unknown stage 'colect'",
    )


def test_unknown_field(tmp_path: Path, data_dir: Path) -> None:
    _refused(_run("run", str(_config(tmp_path, data_dir, shardsize=4))), "field shardsize")


def test_missing_sources(tmp_path: Path, data_dir: Path) -> None:
    _refused(_run("run", str(_config(tmp_path, data_dir, sources=[]))), "field sources")


def test_model_stage_without_model(tmp_path: Path, data_dir: Path) -> None:
    path = _config(tmp_path, data_dir, stages=["collect", "prompts", "predict"])
    _refused(_run("run", str(path)), "'predict' needs a model", "model: {name: local}")


def test_stage_without_its_input_stage(tmp_path: Path, data_dir: Path) -> None:
    path = _config(tmp_path, data_dir, stages=["collect", "verify"], model={"name": "local"})
    _refused(_run("run", str(path)), "'verify' reads 'predict'", "add 'predict'")


def test_source_file_missing(tmp_path: Path, data_dir: Path) -> None:
    path = _config(tmp_path, data_dir, sources=[{"path": str(tmp_path / "gone.jsonl")}])
    _refused(_run("run", str(path)), "gone.jsonl", "no such file")


def test_source_wrong_suffix(tmp_path: Path, data_dir: Path) -> None:
    path = _config(tmp_path, data_dir, sources=[{"path": str(tmp_path / "data.csv")}])
    _refused(_run("run", str(path)), "field sources[0]", ".jsonl, .jsonl.gz, .json")


@pytest.mark.parametrize(
    "package, fragments",
    [
        ("not_a_package_here/data.jsonl", ("'not_a_package_here' is not installed",)),
        ("reasoning_gym/data/missing.jsonl", ("has no file 'data/missing.jsonl'",)),
        ("reasoning_gym", ("must name a package and a file in it",)),
    ],
)
def test_source_package_file(
    tmp_path: Path, data_dir: Path, package: str, fragments: tuple[str, ...]
) -> None:
    pytest.importorskip("reasoning_gym")
    path = _config(tmp_path, data_dir, sources=[{"package": package}])
    _refused(_run("run", str(path)), "field sources[0]", *fragments)


def test_source_path_and_package_together(tmp_path: Path, data_dir: Path) -> None:
    path = _config(
        tmp_path,
        data_dir,
        sources=[{"package": "reasoning_gym/data/codeio.jsonl.gz", "path": str(_parsed(data_dir))}],
    )
    _refused(_run("run", str(path)), "give one of path or package, not both")


def _reasoning_gym_file(name: str = "codeio.jsonl.gz") -> Path:
    reasoning_gym = pytest.importorskip("reasoning_gym")
    return Path(reasoning_gym.__file__).parent / "data" / name


def test_source_whose_columns_are_not_mapped(tmp_path: Path, data_dir: Path) -> None:
    # reasoning-gym's CodeI/O file as it ships: every record lacks refcode/content.
    path = _config(tmp_path, data_dir, sources=[{"path": str(_reasoning_gym_file()), "limit": 20}])
    _refused(
        _run("run", str(path)), "none of its 20 records can enter", "columns: {refcode: code_sample"
    )
    assert not (tmp_path / "out").exists()


def test_source_mapping_an_unknown_field(tmp_path: Path, data_dir: Path) -> None:
    path = _config(
        tmp_path,
        data_dir,
        sources=[{"path": str(_reasoning_gym_file()), "columns": {"code": "code_sample"}}],
    )
    _refused(_run("run", str(path)), "field sources[0]", "'code' is not a field")


def test_source_functions_without_any_generator(tmp_path: Path, data_dir: Path) -> None:
    data = tmp_path / "functions.jsonl"
    data.write_text(
        '{"refcode": "def main_solution(n):\\n    return n\\n", '
        '"gen": "def generate_input(rng):\\n    return {\'n\': 1}\\n"}\n'
    )
    path = _config(tmp_path, data_dir, sources=[{"path": str(data)}])
    _refused(_run("run", str(path)), "1 no_input_generator", "columns: {input_generator:")


def test_source_json_array_broken(tmp_path: Path, data_dir: Path) -> None:
    data = tmp_path / "functions.json"
    data.write_text('[{"refcode": "def main_solution(n): return n"}, {"refcode": ')
    path = _config(tmp_path, data_dir, sources=[{"path": str(data)}])
    _refused(_run("run", str(path)), "functions.json", "record 1 is not valid JSON")


def test_source_hub_dataset_without_revision(tmp_path: Path, data_dir: Path) -> None:
    path = _config(tmp_path, data_dir, sources=[{"dataset": "someone/unpinned-codeio"}])
    _refused(_run("run", str(path)), "someone/unpinned-codeio", "revision:")


def test_source_with_path_and_dataset(tmp_path: Path, data_dir: Path) -> None:
    path = _config(tmp_path, data_dir, sources=[{"path": str(_parsed(data_dir)), "dataset": "x/y"}])
    _refused(_run("run", str(path)), "exactly one of path")


def test_pairs_per_function_below_two(tmp_path: Path, data_dir: Path) -> None:
    path = _config(
        tmp_path, data_dir, sources=[{"path": str(_parsed(data_dir)), "pairs_per_function": 1}]
    )
    _refused(_run("run", str(path)), "sources[0].pairs_per_function")


def test_check_seed_equal_to_hash_seed(tmp_path: Path, data_dir: Path) -> None:
    _refused(
        _run("run", str(_config(tmp_path, data_dir, hash_seed=3, check_seed=3))),
        "check_seed must differ",
    )


def test_raw_code_without_transform_stage(tmp_path: Path, data_dir: Path) -> None:
    raw = data_dir / "codeio" / "rawcode_1k.jsonl"
    path = _config(tmp_path, data_dir, sources=[{"path": str(raw), "limit": 2}])
    _refused(_run("run", str(path)), "enter at 'transform'", "add it to stages")


def test_bad_executor_option(tmp_path: Path, data_dir: Path) -> None:
    _refused(_run("run", str(_config(tmp_path, data_dir)), "--executor", "spark"), "field executor")


def test_out_is_a_file(tmp_path: Path, data_dir: Path) -> None:
    target = tmp_path / "a-file"
    target.write_text("x")
    _refused(
        _run("run", str(_config(tmp_path, data_dir)), "--out", str(target)), "is a file", "--out"
    )


def test_out_holds_a_different_run(tmp_path: Path, data_dir: Path) -> None:
    first = _run("run", str(_config(tmp_path, data_dir)), "--quiet")
    assert first.exit_code == 0, first.output
    before = sorted(p.relative_to(tmp_path) for p in (tmp_path / "out").rglob("*"))
    changed = _config(tmp_path, data_dir, sources=[{"path": str(_parsed(data_dir)), "limit": 3}])
    _refused(_run("run", str(changed), "--quiet"), "--overwrite")
    assert sorted(p.relative_to(tmp_path) for p in (tmp_path / "out").rglob("*")) == before


def test_out_locked_by_a_live_run(tmp_path: Path, data_dir: Path) -> None:
    from execlens.store import RunDir
    from execlens.synth import load_config

    path = _config(tmp_path, data_dir)
    identity = {"task": "execlens-synth", "config": load_config(path).identity()}
    with RunDir.open(tmp_path / "out", identity):
        _refused(_run("run", str(path), "--quiet"), "pid")


def test_status_of_a_directory_that_is_no_run(tmp_path: Path) -> None:
    _refused(_run("status", str(tmp_path)), "not a synthesis run directory")


def test_mount_ro_path_missing(tmp_path: Path, data_dir: Path) -> None:
    path = _config(tmp_path, data_dir, mount_ro=[str(tmp_path / "no-such-dir")])
    _refused(_run("run", str(path)), "mount_ro path", "does not exist")


def test_runtime_tasks_unknown_question_kind(tmp_path: Path, data_dir: Path) -> None:
    config = _config(
        tmp_path,
        data_dir,
        stages=["collect", "runtime-tasks"],
        runtime_tasks={"kinds": ["coverage", "coverge"]},
    )
    _refused(_run("run", str(config)), "runtime_tasks", "unknown question kinds ['coverge']")
