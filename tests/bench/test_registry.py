"""The benchmark registry: built-in folders by name, third parties by entry point."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

from execlens.bench import (
    ENTRY_POINT_GROUP,
    Benchmark,
    BenchmarkError,
    benchmark_names,
    get_benchmark,
    register_benchmark,
    unregister_benchmark,
)
from execlens.cli import app


def test_built_in_folders_are_found_by_name() -> None:
    names = benchmark_names()
    assert {"cruxeval", "lcb-exec"} <= set(names)
    for name in names:
        bench = get_benchmark(name)
        assert isinstance(bench, Benchmark) and bench.name == name
        assert bench.tasks and set(bench.modes) >= {"official", "strict"}


def test_an_unknown_name_lists_the_choices() -> None:
    with pytest.raises(BenchmarkError, match="unknown benchmark 'humaneval'.*cruxeval"):
        get_benchmark("humaneval")


def _fake_distribution(root: Path, name: str, value: str) -> None:
    """An installed-looking package whose entry point registers a benchmark."""
    package = root / f"{name.replace('-', '_')}_pkg"
    package.mkdir()
    (package / "__init__.py").write_text(
        textwrap.dedent(f'''
        from execlens.bench.cruxeval import CruxEval


        class Renamed(CruxEval):
            """CRUXEval under another name: a third party's benchmark."""

            name = "{name}"


        BENCHMARK = Renamed()


        def make():
            return Renamed()
        ''')
    )
    info = root / f"{name.replace('-', '_')}_pkg-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}-pkg\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[{ENTRY_POINT_GROUP}]\n{name} = {value}\n")


@pytest.mark.parametrize("kind", ["object", "factory"])
def test_a_third_party_benchmark_registers_through_its_entry_point(
    kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, data_dir: Path
) -> None:
    name = f"toy-{kind}"
    module = f"{name.replace('-', '_')}_pkg"
    _fake_distribution(
        tmp_path, name, f"{module}:BENCHMARK" if kind == "object" else f"{module}:make"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    assert name in benchmark_names()
    bench = get_benchmark(name)
    assert bench.name == name and list(bench.tasks) == ["input", "output"]
    # The generic runners take it like a built-in one.
    crux = data_dir / "cruxeval"
    generations = {
        f"sample_{i}": json.loads(
            (crux / "codellama-7b_temp0.2_output_generations.json").read_text()
        )[f"sample_{i}"]
        for i in range(3)
    }
    data = tmp_path / "cruxeval.jsonl"
    data.write_text("".join((crux / "cruxeval.jsonl").read_text().splitlines(True)[:3]))
    gens = tmp_path / "gens.json"
    gens.write_text(json.dumps(generations))
    result = CliRunner().invoke(
        app,
        [
            "score",
            str(gens),
            "--benchmark",
            name,
            "--data",
            str(data),
            "-o",
            str(tmp_path / "out"),
            "--workers",
            "1",
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout.strip().splitlines()[-1])["benchmark"] == name
    unregister_benchmark(name)  # the cached object goes with the entry point's path


def test_register_benchmark_at_run_time_and_reject_what_is_not_one() -> None:
    from execlens.bench.cruxeval import CruxEval

    class Again(CruxEval):
        name = "cruxeval-again"

    registered = register_benchmark(Again)  # a factory (the class) is called
    try:
        assert isinstance(registered, Again)
        assert get_benchmark("cruxeval-again") is registered
        assert "cruxeval-again" in benchmark_names()
    finally:
        unregister_benchmark("cruxeval-again")
    assert "cruxeval-again" not in benchmark_names()
    with pytest.raises(
        BenchmarkError, match="not a benchmark: derive it from execlens.bench.BenchmarkBase"
    ):
        register_benchmark(object())


def test_folder_names_stay_importable_from_execlens_bench() -> None:
    import execlens.bench as bench
    from execlens.bench import CruxEvalSample, load_cruxeval, load_lcb_exec
    from execlens.bench.cruxeval import load_cruxeval as from_folder

    assert load_cruxeval is from_folder and CruxEvalSample.__name__ == "CruxEvalSample"
    assert callable(load_lcb_exec)
    with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
        bench.no_such_name  # noqa: B018
