"""Items and prompts: balanced questions of every kind about real programs, rendered."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from execlens.bench import DatasetError, DatasetUnavailableError, get_benchmark, load_programs
from execlens.bench.runtime import RuntimeItem, traced_tasks
from execlens.tasks.kinds import get_kind
from execlens.values import parse_call


@pytest.fixture
def bench(caches: Path) -> object:
    return get_benchmark("runtime")


def test_the_registry_finds_the_folder_by_name() -> None:
    bench = get_benchmark("runtime")
    assert bench.name == "runtime" and bench.modes == ("official", "strict")
    assert set(bench.tasks) == {"coverage", "path", "state", "output", "input", "trace", "all"}
    # A full trace is asked when named only (one long answer per run).
    assert bench.tasks["all"].composite == ("coverage", "path", "state", "output", "input")


def test_coverage_questions_are_balanced_over_the_asked_programs(
    bench: object, cruxeval_file: Path
) -> None:
    programs = bench.load(str(cruxeval_file))  # type: ignore[attr-defined]
    assert len(programs) == 800
    for limit, offset in ((40, 0), (25, 100)):
        [(task, items)] = bench.plan(
            programs,
            "coverage",
            limit=limit,  # type: ignore[attr-defined]
            offset=offset,
        )
        assert task == "coverage" and items
        executed = sum(1 for item in items if item.task.reference is True)
        assert executed * 2 == len(items)
        assert {item.task.problem_id for item in items} <= {
            f"sample_{i}" for i in range(offset, offset + limit)
        }


def test_a_runs_questions_do_not_depend_on_the_slice(bench: object, cruxeval_file: Path) -> None:
    programs = bench.load(str(cruxeval_file))  # type: ignore[attr-defined]
    small = dict(bench.plan(programs, "all", limit=10, offset=0))  # type: ignore[attr-defined]
    large = dict(bench.plan(programs, "all", limit=30, offset=0))  # type: ignore[attr-defined]
    for kind, items in small.items():
        first = {f"sample_{i}" for i in range(10)}
        assert [i.sample_id for i in items] == [
            i.sample_id for i in large[kind] if i.task.problem_id in first
        ], kind


def test_every_kind_renders_in_both_styles(bench: object, cruxeval_file: Path) -> None:
    plan = bench.plan(
        bench.load(str(cruxeval_file)),
        "all",
        limit=10,  # type: ignore[attr-defined]
        offset=0,
    )
    assert [task for task, _ in plan] == ["coverage", "path", "state", "output", "input"]
    for task, items in plan:
        ids = [item.sample_id for item in items]
        assert len(ids) == len(set(ids)), task
        for item in items:
            for style in ("direct", "cot"):
                prompt = bench.render(item, task, style)  # type: ignore[attr-defined]
                text = prompt.text
                assert text.count("[PYTHON]") == 2 and text.count("[/PYTHON]") == 2
                assert text.endswith("[THOUGHT]\n" if style == "cot" else "[ANSWER]\n")
                # The kind's shown program and question (the rewards and synthesis ask
                # the same): one wording everywhere.
                kind = get_kind(task)
                assert f"[PYTHON]\n{kind.show_program(item.task)}\n" in text
                assert f"[QUESTION]\n{kind.question(item.task)}\n[/QUESTION]" in text
                assert prompt.stop == ("[/ANSWER]",)
                if item.task.line is not None:
                    line = item.task.program.splitlines()[item.task.line - 1]
                    assert f"{item.task.line} {line}\n" in text  # the numbered line
                    assert f"line {item.task.line}" in kind.question(item.task)
                if task == "state":
                    assert f"the value of `{item.task.var}` right after" in text


def test_input_questions_show_the_output_and_name_the_function(
    bench: object, cruxeval_file: Path
) -> None:
    plan = dict(
        bench.plan(
            bench.load(str(cruxeval_file)),
            "all",
            limit=5,  # type: ignore[attr-defined]
            offset=0,
        )
    )
    inputs: list[RuntimeItem] = plan["input"]
    assert [i.task.problem_id for i in inputs] == [f"sample_{i}" for i in range(5)]
    first = inputs[0]
    assert (
        first.function == "f"
        and first.output_text == "[(4, 1), (4, 1), (4, 1), (4, 1), (2, 3), (2, 3)]"
    )
    text = bench.render(first, "input", "direct").text  # type: ignore[attr-defined]
    assert f"Find arguments such that `f(...)` returns `{first.output_text}`." in text
    assert parse_call(first.task.call).name == "f"


def test_humaneval_style_and_classeval_programs_get_questions(
    bench: object, data_dir: Path
) -> None:
    reval = data_dir / "reval"
    if not (reval / "DREval_data.jsonl").is_file():
        pytest.skip("REval data missing")
    plan = dict(
        bench.plan(
            bench.load(str(reval)),
            "all",
            limit=None,  # type: ignore[attr-defined]
            offset=0,
        )
    )
    drivers = [item for item in plan["coverage"] if item.task.test]
    assert drivers, "ClassEval runs (unittest drivers) are asked too"
    text = bench.render(drivers[0], "coverage", "direct").text  # type: ignore[attr-defined]
    assert f"the test class {drivers[0].task.test_class} above" in text
    # A driver returns nothing to predict: outputs and inputs come from function calls.
    assert plan["output"] and all(item.task.call for item in plan["output"])
    assert all(not item.task.test for item in plan["input"])


def test_a_users_jsonl_in_cruxeval_shape_works(bench: object, tmp_path: Path) -> None:
    data = tmp_path / "mine.jsonl"
    data.write_text(
        '{"id": "a", "code": "def f(x):\\n    if x:\\n        return 1\\n'
        '    return 2", "input": "0", "output": "2"}\n'
    )
    plan = dict(
        bench.plan(
            bench.load(str(data)),
            "all",
            limit=None,  # type: ignore[attr-defined]
            offset=0,
        )
    )
    assert [(i.task.line, i.task.reference) for i in plan["coverage"]] == [(3, False), (4, True)]
    assert plan["output"][0].task.reference["value"] == {"__type__": "int", "__value__": 2}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"id": "a", "code": "def f(): pass", "input": 3, "output": "1"}\n', "field 'input'"),
        ("not json\n", "record 1: not JSON"),
        ('{"x": 1}\n', "not cruxeval, reval or CodeI/O data"),
    ],
)
def test_malformed_data_is_a_named_dataset_error(
    bench: object, tmp_path: Path, text: str, message: str
) -> None:
    data = tmp_path / "bad.jsonl"
    data.write_text(text)
    with pytest.raises(DatasetError, match=message):
        bench.load(str(data))  # type: ignore[attr-defined]


def test_no_data_or_a_missing_path_names_what_to_pass(bench: object, tmp_path: Path) -> None:
    for data in (None, str(tmp_path / "missing.jsonl")):
        with pytest.raises(DatasetUnavailableError, match="pass a local copy with --data PATH"):
            bench.load(data)  # type: ignore[attr-defined]


def test_the_truth_is_traced_once_and_a_torn_cache_is_rebuilt(
    tmp_path: Path, cruxeval_file: Path, engine: object
) -> None:
    programs = load_programs(cruxeval_file)[:12]
    first = traced_tasks(programs, engine=engine, cache_dir=tmp_path)  # type: ignore[arg-type]
    [cached] = list(tmp_path.glob("runtime-truth-*.json"))
    stamp = cached.stat().st_mtime_ns
    again = traced_tasks(programs, cache_dir=tmp_path)  # no engine: the cache answers
    assert [t.to_dict() for t in again.tasks] == [t.to_dict() for t in first.tasks]
    assert cached.stat().st_mtime_ns == stamp
    cached.write_text('{"version": 1, "tasks": [')  # a torn write
    rebuilt = traced_tasks(programs, engine=engine, cache_dir=tmp_path)  # type: ignore[arg-type]
    assert [t.to_dict() for t in rebuilt.tasks] == [t.to_dict() for t in first.tasks]
    other = traced_tasks(programs[:6], engine=engine, cache_dir=tmp_path)  # type: ignore[arg-type]
    assert len(list(tmp_path.glob("runtime-truth-*.json"))) == 2 and other.tasks


def test_a_run_whose_truth_depends_on_the_hash_seed_is_asked_nothing(
    bench: object, tmp_path: Path
) -> None:
    data = tmp_path / "mine.jsonl"
    rows = [
        {
            "id": "stable",
            "code": "def f(x):\n    if x:\n        return 1\n    return 2",
            "input": "0",
            "output": "",
        },
        {
            "id": "seeded",
            "code": "def f(n):\n    return list({str(i) for i in range(n)})",
            "input": "20",
            "output": "",
        },
    ]
    data.write_text("".join(json.dumps(row) + "\n" for row in rows))
    plan = dict(
        bench.plan(
            bench.load(str(data)),
            "all",
            limit=None,  # type: ignore[attr-defined]
            offset=0,
        )
    )
    assert {item.task.problem_id for items in plan.values() for item in items} == {"stable"}
    records = [
        {
            "id": f"{kind}:{item.sample_id}",
            "task": kind,
            "strict": [True],
            "generations": [{"strict": "passed"}],
        }
        for kind, items in plan.items()
        for item in items
    ]
    flags = bench.metrics(records, "all")["flags"]  # type: ignore[attr-defined]
    assert any("seeded#0 nondeterministic" in flag for flag in flags)
