"""REval's declaration under the Benchmark protocol: registry, plan, scorers, exports."""

from __future__ import annotations

from pathlib import Path

import pytest

from execlens.bench import Benchmark, BenchmarkError, GenerationsError, get_benchmark
from execlens.bench.reval import BENCHMARK, QuestionTruth, RevalScorer, RevalTruth
from execlens.engine import Engine
from execlens.judge import VerdictStatus, score_samples


@pytest.fixture(scope="module")
def records(data_dir: Path) -> list:
    path = data_dir / "reval"
    if not (path / "DREval_data.jsonl").is_file():
        pytest.skip(f"REval data not found in {path}")
    return BENCHMARK.load(str(path))


def test_registered_under_its_name() -> None:
    found = get_benchmark("reval")
    assert found is BENCHMARK and isinstance(found, Benchmark)
    assert set(found.tasks) == {"coverage", "path", "state", "output", "consistency"}
    assert found.tasks["consistency"].composite == ("coverage", "state", "path", "output")
    assert found.scores_raw and found.modes == ("official", "strict")
    assert [e.name for e in found.exports()] == ["jetbrains"]
    assert any(r.metrics.get("IC") == 42.48 for r in found.references())


def test_plan_drops_unrunnable_problems_before_inference(records: list) -> None:
    plan = BENCHMARK.plan(records, "state", limit=None, offset=0)
    [(task, items)] = plan
    assert task == "state" and len(items) == 3070  # 3152 less DREval/117 and /149's 82
    assert len(BENCHMARK.skipped) == 82
    assert set(BENCHMARK.skipped.values()) == {"needs gensim (not installed)"}
    assert not {item.sample_id for item in items} & set(BENCHMARK.skipped)
    pairs = BENCHMARK.plan(records, "output", limit=None, offset=0)[0][1]
    assert len(pairs) == 682 and len(BENCHMARK.skipped) == 8


def test_consistency_asks_the_pairs_of_its_questions(records: list) -> None:
    plan = dict(BENCHMARK.plan(records, "consistency", limit=7, offset=0))
    assert list(plan) == ["coverage", "path", "state", "output"]
    assert plan["coverage"] == plan["path"] == plan["state"] and len(plan["state"]) == 7
    assert {f"{q.pair.sample_id}/output" for q in plan["state"]} == {
        o.sample_id for o in plan["output"]
    }
    with pytest.raises(BenchmarkError, match="no task"):
        BENCHMARK.plan(records, "branch", limit=None, offset=0)


def test_prompts_and_bad_requests(records: list) -> None:
    item = BENCHMARK.plan(records, "path", limit=1, offset=0)[0][1][0]
    prompt = BENCHMARK.render(item, "path", "cot")
    assert prompt.text.endswith("[THOUGHT]") and prompt.stop == ("[/ANSWER]",)
    with pytest.raises(BenchmarkError, match="consistency is their composite"):
        BENCHMARK.scorers("consistency", "direct", {})
    with pytest.raises(BenchmarkError, match="prompt style"):
        BENCHMARK.scorers("path", "phind", {})
    with pytest.raises(GenerationsError, match="execlens eval"):
        BENCHMARK.read_generations(Path("x.json"), None, "consistency")


def test_a_judge_failure_is_that_answers_scoring_error(records: list, engine: Engine) -> None:
    # A truth cache holding an envelope no decoder reads (a torn or hand-edited file): the
    # strict judge fails on the answers that reach it, the run goes on.
    item = BENCHMARK.plan(records, "state", limit=1, offset=0)[0][1][0]
    broken = {"__type__": "matrix", "__kind__": "numpy", "__value__": None, "shape": "?"}
    truths = {
        mode: RevalTruth(
            mode=mode,
            questions={
                item.sample_id: QuestionTruth(covered=True, next_lines=(3,), state=(broken,))
            },
        )
        for mode in ("official", "strict")
    }
    scorer = RevalScorer("strict", "state", "direct", truths)
    answers = ["0; numpy.matrix", "Nil", "[[1]]; numpy.matrix"]
    [(_, scores)] = list(score_samples([scorer], [(item, answers)], engine))
    statuses = [v.status for v in scores["strict"].verdicts]
    assert statuses[1] is VerdictStatus.WRONG  # Nil needs no value: judged normally
    assert VerdictStatus.SCORING_ERROR in statuses
    failed = next(v for v in scores["strict"].verdicts if v.status is VerdictStatus.SCORING_ERROR)
    assert failed.reason and failed.detail.startswith(failed.reason)
