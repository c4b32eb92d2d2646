"""REval loading: the shipped files (original layout), the JetBrains layout, malformed records."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from execlens.bench import DatasetUnavailableError, select
from execlens.bench.reval import load_reval, reval_pairs, reval_questions


@pytest.fixture(scope="module")
def reval_dir(data_dir: Path) -> Path:
    return data_dir / "reval"


def test_counts_kinds_and_ids(reval_dir: Path) -> None:
    result = load_reval(reval_dir)
    assert result.errors == []
    problems = result.records
    assert len(problems) == 154
    assert [p.task_id for p in problems] == [f"DREval/{i}" for i in range(154)]
    kinds = Counter(p.kind for p in problems)
    assert kinds == {"humaneval": 85, "classeval": 69}
    assert sum(len(p.inputs) for p in problems if p.kind == "humaneval") == 651
    assert sum(len(p.inputs) for p in problems if p.kind == "classeval") == 336
    assert all(p.test is None for p in problems[:85]) and all(p.test for p in problems[85:])
    assert all(len(p.outputs) == len(p.inputs) for p in problems[:85])

    pairs = reval_pairs(problems)
    questions = reval_questions(problems)
    assert len(pairs) == 690
    assert len(questions) == 3152
    assert Counter(q.problem.kind for q in questions) == {"humaneval": 1157, "classeval": 1995}
    # stable ids, unique, and the same on every load
    ids = [q.sample_id for q in questions]
    assert len(set(ids)) == len(ids)
    assert ids[:2] == ["DREval/0/0/0", "DREval/0/0/1"]
    assert pairs[0].sample_id == "DREval/0/0/output"
    assert [q.sample_id for q in reval_questions(load_reval(reval_dir).records)] == ids
    first = questions[0]
    assert (first.question.lineno, first.question.var) == (17, "distance")
    assert (
        first.pair.output_pred
        == "assert has_close_elements([1.0, 2.0, 3.9, 4.0, 5.0, 2.2], 0.3) == ??"
    )
    # ClassEval setUp sources come from the test module, one per input
    assert sum(any(p.setups) for p in problems) == 13
    assert all(len(p.setups) == len(p.inputs) for p in problems[85:])
    assert (
        problems[86].setups[0] == "    def setUp(self):\n        self.parser = ArgumentParser()\n"
    )
    # one file path with its partner beside it works too
    assert load_reval(reval_dir / "DREval_data.jsonl").records == problems


def test_every_question_renders_in_every_style(reval_dir: Path) -> None:
    problems = load_reval(reval_dir).records
    questions = reval_questions(problems)
    for item in questions:
        for task in ("coverage", "path", "state"):
            prompt = item.render(task, "direct")
            assert prompt.sample_id == item.sample_id
            assert prompt.text.endswith("[/QUESTION]\n[ANSWER]")
    for item in reval_pairs(problems):
        assert item.render("output", "cot").text.endswith("[/PYTHON]\n[THOUGHT]")
    # HumanEval path prompts number the lines, ClassEval ones do not
    he = questions[0].render("path", "direct").text
    assert "\n1\tfrom typing import List\n2\t\n" in he
    ce = next(q for q in questions if q.problem.kind == "classeval").render("path", "direct").text
    assert "\n1\t" not in ce.split("[PYTHON]")[-1]


def test_select_over_questions(reval_dir: Path) -> None:
    questions = reval_questions(load_reval(reval_dir).records)
    chosen = select(questions, ids=["DREval/86/0/3"])
    assert [q.sample_id for q in chosen] == ["DREval/86/0/3"]
    assert chosen[0].question.var == "key_value"
    assert len(select(questions, limit=10, offset=3150)) == 2


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_jetbrains_layout_loads_the_same_records(reval_dir: Path, tmp_path: Path) -> None:
    problems = _rows(reval_dir / "DREval_data.jsonl")
    tasks = _rows(reval_dir / "DREval_tasks.jsonl")
    data = tmp_path / "REval" / "data"
    data.mkdir(parents=True)
    (data / "problems.jsonl").write_text(
        "\n".join(json.dumps(p) for p in problems) + "\n", encoding="utf-8"
    )
    # the repackaging stores each record's list of pairs as a JSON string
    (data / "tasks.jsonl").write_text(
        "\n".join(
            json.dumps({"task_id": t["task_id"], "idx": t["idx"], "tasks": json.dumps(t["tasks"])})
            for t in tasks
        ),
        encoding="utf-8",
    )
    result = load_reval(tmp_path / "REval")  # finds data/ inside
    assert result.errors == []
    assert result.records == load_reval(reval_dir).records


def test_malformed_records_are_named_and_the_rest_load(reval_dir: Path, tmp_path: Path) -> None:
    problems = _rows(reval_dir / "DREval_data.jsonl")
    tasks = _rows(reval_dir / "DREval_tasks.jsonl")
    problems[3]["inputs"] = (
        "not a list"  # -> problem 3 dropped, and its tasks record points nowhere
    )
    problems[5]["inputs"][1] = "(1, 2)"  # a HumanEval input without the trailing ",)"
    problems[90]["test"] = problems[90]["test"].replace(
        "class ", "klass ", 1
    )  # unparsable test module
    tasks[0]["tasks"][1]["task"][0]["lineno"] = 999  # line out of range -> that pair dropped
    tasks[1]["tasks"][0]["input_idx"] = 42  # no such input -> that pair dropped
    tasks[2]["tasks"][0]["task"][0] = {"lineno": "7", "var": "x"}  # mistyped
    del tasks[4]["tasks"][0]["output_pred"]
    (tmp_path / "DREval_data.jsonl").write_text(
        "\n".join(json.dumps(p) for p in problems), encoding="utf-8"
    )
    lines = [json.dumps(t) for t in tasks]
    lines[7] = lines[7][:40]  # truncated JSON line
    (tmp_path / "DREval_tasks.jsonl").write_text("\n".join(lines), encoding="utf-8")

    result = load_reval(tmp_path)
    data_file, tasks_file = (
        str(tmp_path / "DREval_data.jsonl"),
        str(tmp_path / "DREval_tasks.jsonl"),
    )
    found = {(e.source, e.line, e.field) for e in result.errors}
    assert found == {
        (data_file, 4, "inputs"),  # DREval/3
        (data_file, 6, "inputs[1]"),  # DREval/5
        (data_file, 91, "test"),  # DREval/90
        (tasks_file, 1, "tasks[1].task[0].lineno"),
        (tasks_file, 2, "tasks[0].input_idx"),
        (tasks_file, 3, "tasks[0].task[0].lineno"),
        (tasks_file, 4, "task_id"),  # DREval/3 is not a loaded problem
        (tasks_file, 5, "tasks[0].output_pred"),
        (tasks_file, 6, "task_id"),  # nor DREval/5
        (tasks_file, 8, None),  # the truncated line
        (tasks_file, 91, "task_id"),  # nor DREval/90
    }
    messages = {e.field: e.message for e in result.errors}
    assert messages["tasks[1].task[0].lineno"] == "999 is not a line of the code (1..20)"
    assert "ending in ',)'" in messages["inputs[1]"]
    assert messages["tasks[0].task[0].lineno"] == "expected an integer, got str"
    # everything else loads
    assert len(result.records) == 151
    by_id = {p.task_id: p for p in result.records}
    assert (
        len(by_id["DREval/0"].pairs) == 4
        and len(by_id["DREval/1"].pairs) == len(tasks[1]["tasks"]) - 1
    )
    assert "DREval/7" in by_id and by_id["DREval/7"].pairs == ()  # its tasks line was unreadable
    assert len(reval_questions(result.records)) > 3000


def test_a_duplicate_problem_is_named_and_the_first_kept(reval_dir: Path, tmp_path: Path) -> None:
    problems = _rows(reval_dir / "DREval_data.jsonl")[:3]
    problems.append(dict(problems[0]))  # DREval/0 again, on line 4
    (tmp_path / "DREval_data.jsonl").write_text(
        "\n".join(json.dumps(p) for p in problems), encoding="utf-8"
    )
    tasks = (reval_dir / "DREval_tasks.jsonl").read_text(encoding="utf-8").splitlines()[:3]
    (tmp_path / "DREval_tasks.jsonl").write_text("\n".join(tasks), encoding="utf-8")

    result = load_reval(tmp_path)
    [error] = result.errors
    assert (error.line, error.field) == (4, "task_id")
    assert error.message == "duplicate task_id 'DREval/0' (first at 1)"
    assert [p.task_id for p in result.records] == ["DREval/0", "DREval/1", "DREval/2"]


def test_missing_sources(tmp_path: Path) -> None:
    with pytest.raises(DatasetUnavailableError, match="no REval data in"):
        load_reval(tmp_path)
    with pytest.raises(DatasetUnavailableError, match="no such file or directory"):
        load_reval(tmp_path / "nope")
    lonely = tmp_path / "DREval_data.jsonl"
    lonely.write_text("", encoding="utf-8")
    with pytest.raises(DatasetUnavailableError, match="tasks file beside it"):
        load_reval(lonely)


def test_the_shipped_copy_is_upstream_data_unmodified(data_dir: Path) -> None:
    """``eval --benchmark reval`` without --data reads the shipped copy: REval's own files."""
    from execlens.bench.reval._data import PACKAGED_DATA

    for name in ("DREval_data.jsonl", "DREval_tasks.jsonl"):
        assert (PACKAGED_DATA / name).read_bytes() == (data_dir / "reval" / name).read_bytes()
