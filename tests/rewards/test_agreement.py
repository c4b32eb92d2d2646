"""Must-show: the 16,000 Code Llama generations, scored through the TRL adapter, agree one
for one with the strict evaluation verdicts (``execlens score``'s strict scorer)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from execlens.engine import Engine
from execlens.judge import StrictScorer, score_samples
from execlens.rewards import ExeclensReward, tasks_from_prediction
from execlens.tasks import prediction_task_from_record


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["output", "input"])
def test_trl_rewards_agree_with_strict_scoring(kind: str, data_dir: Path, engine: Engine) -> None:
    root = data_dir / "cruxeval"
    problems = [
        prediction_task_from_record(json.loads(line), kind=kind, source="cruxeval")
        for line in (root / "cruxeval.jsonl").read_text().splitlines()
        if line.strip()
    ]
    generations = json.loads((root / f"codellama-7b_temp0.2_{kind}_generations.json").read_text())
    strict = {
        problem.id: scores["strict"].verdicts
        for problem, scores in score_samples(
            [StrictScorer(kind)], [(p, generations[p.id]) for p in problems], engine
        )
    }

    completions, truths, expected = [], [], []
    for problem in problems:
        truth = tasks_from_prediction(problem, kinds=[kind])[0].to_json()
        for text, verdict in zip(generations[problem.id], strict[problem.id]):
            completions.append(text)
            truths.append(truth)
            expected.append(verdict)
    assert len(completions) == 8000

    reward = ExeclensReward(engine=engine)
    verdicts = []
    for start in range(0, len(completions), 1024):  # GRPO-sized batches, as a trainer sends
        verdicts += reward.verdicts(completions[start : start + 1024], truths[start : start + 1024])
    values = [reward.shaping.reward(v) for v in verdicts]
    mismatches = [
        (i, e.label, v.label)
        for i, (e, v) in enumerate(zip(expected, verdicts))
        if e.passed != v.passed or e.label != v.label
    ]
    assert mismatches == []
    assert values == [1.0 if e.passed else 0.0 for e in expected]
    assert 0 < sum(values) < len(values)  # a real mix, not all one way
