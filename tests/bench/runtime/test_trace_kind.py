"""The runtime benchmark's full-trace questions (``--task trace``) on CRUXEval, traced for
real: prompt, extraction, judge and metrics agree.

An oracle stand-in model (it answers each prompt with the traced lines) scores 100 % and
full step credit; a constant wrong answer scores exactly what the judge gives it, the
empty list exactly its baseline; a generations file gets the same step credit as an eval.
Only the model server is a stand-in.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from execlens.bench import EvalConfig, get_benchmark, run_eval, run_score
from execlens.bench.runtime import extract_runtime
from execlens.judge import judge_task, step_credit

LIMIT = 8


def _config(data: Path, base_url: str, task: str = "trace") -> EvalConfig:
    # No max_tokens: the prompt's own default leaves room for the longest list.
    return EvalConfig(
        benchmark="runtime",
        task=task,
        model="fake-model",
        base_url=base_url,
        n=1,
        temperature=0.0,
        limit=LIMIT,
        data=str(data),
        retries=0,
    )


def _items(data: Path) -> list[Any]:
    bench = get_benchmark("runtime")
    [(task, items)] = bench.plan(bench.load(str(data)), "trace", limit=LIMIT, offset=0)
    assert task == "trace" and len(items) == LIMIT  # every CRUXEval call has a full trace
    return items


def test_trace_questions_show_the_numbered_program_and_all_leaves_them_out(
    cruxeval_file: Path, caches: Path
) -> None:
    bench = get_benchmark("runtime")
    item = _items(cruxeval_file)[0]
    prompt = bench.render(item, "trace", "direct")
    numbered = [f"{line}  # {n}" for n, line in enumerate(item.task.program.splitlines(), 1)]
    assert "\n".join(numbered) in prompt.text and item.task.call in prompt.text
    assert "as a Python list" in prompt.text  # the shared answer form
    assert prompt.sampling.max_tokens >= 4096  # room for a long list
    kinds = [
        kind for kind, _ in bench.plan(bench.load(str(cruxeval_file)), "all", limit=LIMIT, offset=0)
    ]
    assert "trace" not in kinds and kinds[0] == "coverage"


def test_an_oracle_model_scores_full_marks(
    tmp_path: Path, cruxeval_file: Path, caches: Path, answering_model: Any
) -> None:
    bench = get_benchmark("runtime")
    answers = {
        bench.render(item, "trace", "direct").text: bench.explain(item, "trace", None)["expected"]
        for item in _items(cruxeval_file)
    }
    with answering_model(lambda prompt: f"{answers.get(prompt, '?')}\n[/ANSWER]") as server:
        result = run_eval(
            _config(cruxeval_file, server.base_url), tmp_path / "run", show_progress=False
        )
    metrics = result.results["metrics"]
    assert metrics["strict"] == {"accuracy": 100.0, "step credit": 100.0}
    assert metrics["official"] == metrics["strict"]
    assert result.results["samples"] == LIMIT
    assert result.results["baselines"] == {"always []": {"accuracy": 0.0, "step credit": 0.0}}


@pytest.mark.parametrize("constant", ["[]", "[2, 3]"])
def test_a_constant_wrong_answer_scores_what_the_judge_gives_it(
    tmp_path: Path, cruxeval_file: Path, caches: Path, answering_model: Any, constant: str
) -> None:
    items = _items(cruxeval_file)
    references = [item.task.reference for item in items]
    assert [2, 3] not in references  # the constant is wrong on every question
    # Independently of the metrics: the judge's common prefix over the longer length.
    expected = round(
        100.0
        * sum(step_credit([2, 3] if constant != "[]" else [], ref) for ref in references)
        / len(references),
        2,
    )
    with answering_model(lambda prompt: f"[ANSWER]\n{constant}\n[/ANSWER]") as server:
        result = run_eval(
            _config(cruxeval_file, server.base_url), tmp_path / "run", show_progress=False
        )
    strict = result.results["metrics"]["strict"]
    assert strict == {"accuracy": 0.0, "step credit": expected}
    if constant == "[]":
        assert strict == result.results["baselines"]["always []"]
    else:
        assert 0 < expected < 100  # most CRUXEval traces start at line 2


def test_a_generations_file_gets_the_same_step_credit(
    tmp_path: Path, cruxeval_file: Path, caches: Path
) -> None:
    bench = get_benchmark("runtime")
    items = _items(cruxeval_file)
    # Each answer: the true trace with its last step dropped (wrong, but a long prefix),
    # and the truth itself.
    answers = {
        item.sample_id: [
            str(item.task.reference[:-1]),
            f"[ANSWER]\n{item.task.reference}\n[/ANSWER]",
        ]
        for item in items
    }
    path = tmp_path / "generations.json"
    path.write_text(json.dumps(answers))
    generations = bench.read_generations(path, str(cruxeval_file), "trace")
    result = run_score(tmp_path / "scored", bench, generations, generations_file=str(path))
    credits = [(len(ref) - 1) / len(ref) for ref in (item.task.reference for item in items)]
    expected = round(100.0 * (sum(credits) + len(items)) / (2 * len(items)), 2)
    assert result.results["metrics"]["strict"] == {"accuracy": 50.0, "step credit": expected}


@pytest.mark.parametrize(
    ("raw", "text"),
    [
        ("[2, 3,\n 4, 6]\n[/ANSWER]", "[2, 3, 4, 6]"),  # wrapped over lines
        ("[ANSWER]\nThe lines are [2, 4] in order.\n[/ANSWER]", "[2, 4]"),
        ("[ANSWER]\n```python\n[2, 3]\n```\n[/ANSWER]", "[2, 3]"),
    ],
)
def test_the_list_is_read_from_the_answer_block(raw: str, text: str) -> None:
    extraction = extract_runtime(raw, "trace")
    assert extraction.ok and extraction.text == text


def test_an_answer_without_a_list_is_named() -> None:
    assert extract_runtime("[ANSWER]\n2, 3, 4\n[/ANSWER]", "trace").failure == "no_list"


def test_the_explained_answer_passes_and_names_the_steps(cruxeval_file: Path, caches: Path) -> None:
    bench = get_benchmark("runtime")
    for item in _items(cruxeval_file):
        view = bench.explain(item, "trace", None)
        assert judge_task(item.task, view["expected"]).passed
        assert view["true_value"].startswith(f"{len(item.task.reference)} steps")
