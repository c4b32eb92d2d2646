"""REval's ``explain`` on the real data and traced truth: the expected answer it writes is
one the official judge accepts, the executed lines agree with the coverage truth, and a
ClassEval question shows the class and its test."""

from __future__ import annotations

from pathlib import Path

import pytest

from execlens.bench import get_benchmark
from execlens.engine import Engine
from execlens.judge import score_samples

# The first problems' questions, every task, and a ClassEval problem's (DREval/85...).
LIMIT = 30
CLASSEVAL_OFFSET = 1500


@pytest.fixture
def truth_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(
        "EXECLENS_TRUTH_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "reval-explain-truth")
    )


def _planned(data_dir: Path, engine: Engine, offset: int = 0) -> tuple[object, dict]:
    bench = get_benchmark("reval")
    plan = bench.plan(
        bench.load(str(data_dir / "reval")), "consistency", limit=LIMIT, offset=offset
    )
    contexts = {task: bench.prepare(items, task, engine) for task, items in plan}
    return bench, {task: (items, contexts[task]) for task, items in plan}


def test_expected_answers_pass_the_official_judge(
    truth_cache: None, data_dir: Path, tracing_engine: Engine, engine: Engine
) -> None:
    bench, planned = _planned(data_dir, tracing_engine)
    for task, (items, context) in planned.items():
        views = {item.sample_id: bench.explain(item, task, context) for item in items}
        assert all(view["expected"] for view in views.values()), task
        scorer = bench.scorers(task, "direct", context)["official"]
        answers = [(item, [f"{views[item.sample_id]['expected']}\n[/ANSWER]"]) for item in items]
        for item, scores in score_samples([scorer], answers, engine):
            assert scores["official"].scored == [True], (
                task,
                item.sample_id,
                views[item.sample_id],
                scores["official"].verdicts,
            )


def test_executed_lines_agree_with_the_coverage_truth(
    truth_cache: None, data_dir: Path, tracing_engine: Engine
) -> None:
    bench, planned = _planned(data_dir, tracing_engine)
    items, context = planned["coverage"]
    answers = {"YES": 0, "NO": 0}
    for item in items:
        view = bench.explain(item, "coverage", context)
        lines = view["executed_lines"]
        assert lines == sorted(set(lines))
        assert all(1 <= n <= len(item.problem.code.split("\n")) for n in lines)
        assert view["asked_line"] == item.question.lineno
        assert (view["asked_line"] in lines) == (view["expected"] == "YES"), item.sample_id
        answers[view["expected"]] += 1
    assert answers["YES"] and answers["NO"]  # both kinds of question were checked
    # DREval/0 (has_close_elements) on its first input: the docstring never runs, the
    # loops and the early return do.
    first = bench.explain(items[0], "coverage", context)
    assert first["run"] == "has_close_elements([1.0, 2.0, 3.9, 4.0, 5.0, 2.2], 0.3)"
    assert first["executed_lines"] == [12, 13, 14, 15, 16, 17]
    path = bench.explain(planned["path"][0][1], "path", planned["path"][1])
    assert path["expected"] == "if distance < threshold:"
    assert path["true_value"] == "line 16: if distance < threshold:"


def test_classeval_questions_show_the_class_and_its_test(
    truth_cache: None, data_dir: Path, tracing_engine: Engine
) -> None:
    bench, planned = _planned(data_dir, tracing_engine, offset=CLASSEVAL_OFFSET)
    items, context = planned["state"]
    item = items[0]
    assert item.problem.kind == "classeval"
    view = bench.explain(item, "state", context)
    assert view["program"] == item.problem.code and view["program"].lstrip().startswith(
        ("class ", "import ", "from ")
    )
    # The (rewritten) test body that drives the class, as the prompt shows it.
    assert view["run"] == item.problem.inputs[item.pair.input_idx].rstrip()
    assert item.problem.entry_point in view["run"]
    assert view["question"].endswith("when the test runs")
    assert view["expected"] and view["true_value"]
    output_items, output_context = planned["output"]
    output = bench.explain(output_items[0], "output", output_context)
    assert output["expected"] and "??" not in output["expected"]


def test_without_truth_only_the_question_is_shown(data_dir: Path) -> None:
    bench = get_benchmark("reval")
    [(task, items)] = bench.plan(bench.load(str(data_dir / "reval")), "state", limit=1, offset=0)
    view = bench.explain(items[0], task, {})
    assert view["expected"] is None
    assert view["asked_line"] == items[0].question.lineno
    assert view["program"] == items[0].problem.code
