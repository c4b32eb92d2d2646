"""``execlens score`` on a thinker's responses gets what ``execlens eval`` got on them.

One helper every benchmark's ``test_score_parity.py`` calls: a stand-in thinking model
answers each prompt with a thought holding a *draft* (another prompt's answer) and a
final part (the test's answer: right for most, the draft for every third), eval scores
it, the raw responses eval recorded (``<think>`` inline) become a generations file, and
``score`` reads that file -- through the same reader, extraction and ``prepare`` -- to
the same verdicts, sample by sample and mode by mode, with its strict truth present.
Only the server is stood in.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from execlens.bench import EvalConfig, get_benchmark, run_eval, run_score
from execlens.engine import Engine

from ..standin_model import StandInModel, Thought, user_message


def _samples(path: Path) -> dict[str, dict[str, Any]]:
    return {
        record["id"]: record
        for record in map(json.loads, (path / "samples.jsonl").read_text().splitlines())
    }


def assert_score_matches_eval(
    tmp_path: Path,
    engine: Engine,
    finals: dict[str, str],
    *,
    file_name: str = "thinker_generations.json",
    score_task: str | None = None,
    whole_benchmark: bool = False,
    **config: Any,
) -> dict[str, Any]:
    """Eval with a thinker whose final answer to each prompt is ``finals[prompt]``, then
    score its recorded responses; both runs' verdicts and metrics must be equal, and the
    score run's strict verdicts must have their truth.  ``config``: the ``EvalConfig``
    fields (benchmark, task, data, limit...).  ``whole_benchmark``: the score run pairs
    the file with every item of the benchmark (CoverageEval's 538 pairs, an unanswered one
    scored as no answer), so only the answered samples are compared.  Returns the eval
    results."""
    prompts = list(finals)
    drafts = {p: finals[prompts[(i + 1) % len(prompts)]] for i, p in enumerate(prompts)}

    def reply(body: dict[str, Any]) -> Thought:
        prompt = user_message(body)
        index = prompts.index(prompt)
        final = drafts[prompt] if index % 3 == 2 else finals[prompt]
        return Thought(f"Let me work it out. {drafts[prompt]} Hmm, let me check.", final)

    with StandInModel(reply) as server:
        evaluated = run_eval(
            EvalConfig(model="thinker", base_url=server.base_url, retries=0, n=1, **config),
            tmp_path / "eval",
            show_progress=False,
            engine=engine,
        )
    eval_samples = _samples(tmp_path / "eval")
    assert eval_samples and all(s["read_as"] == ["tags"] for s in eval_samples.values())
    responses = {key: sample["responses"] for key, sample in eval_samples.items()}
    assert all("<think>" in text for texts in responses.values() for text in texts)
    generations = tmp_path / file_name
    generations.write_text(json.dumps(responses))

    bench = get_benchmark(config["benchmark"])
    data = config.get("data")
    loaded = bench.read_generations(generations, data, score_task or config["task"])
    scored = run_score(
        tmp_path / "score",
        bench,
        loaded,
        engine=engine,
        prompt=config.get("prompt", "direct"),
        endpoint=config.get("endpoint", "chat"),
    )
    score_samples = _samples(tmp_path / "score")
    if whole_benchmark:
        assert set(score_samples) > set(eval_samples)
        score_samples = {key: score_samples[key] for key in eval_samples}
    else:
        assert set(score_samples) == set(eval_samples)
    for key, sample in eval_samples.items():
        other = score_samples[key]
        for mode in bench.modes:
            assert other[mode] == sample[mode], (key, mode, other, sample)
            labels = [entry.get(mode) for entry in other["generations"]]
            assert labels == [entry.get(mode) for entry in sample["generations"]], key
        assert other["answers"] == sample["answers"], key
        assert other["finals"] == sample["finals"], key
    strict = [e.get("strict", "") for s in score_samples.values() for e in s["generations"]]
    assert not [label for label in strict if "no_truth" in label or "reference_error" in label]
    if not whole_benchmark:
        assert scored.results["metrics"] == evaluated.results["metrics"]
    # Not a trivial agreement: the run has right and wrong answers.
    verdicts = [v for s in eval_samples.values() for v in s.get("strict", [])]
    assert True in verdicts and False in verdicts, verdicts
    return evaluated.results
