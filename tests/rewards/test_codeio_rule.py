"""A CodeI/O item is judged by one rule from synthesis to reward: CodeI/O's own
(``tolerant``: equal JSON text or floats within 1e-3 with the same integer part, ANCHORS
§4), in synthesis' verification and in the TRL/verl rewards of the exported pairs."""

from __future__ import annotations

from execlens.judge import judge_task
from execlens.rewards import ExeclensReward, compute_score, render_messages, tasks_from_codeio
from execlens.synth._verify import prediction_task

RECORD = {
    "refcode": "def main_solution(x):\n    return {'third': x / 3, 'n': int(x)}",
    "funcname": "main_solution",
    "ios": [{"input": {"x": 1.0}, "output": {"third": 0.3333333333333333, "n": 1}}],
}


def _exported(kind: str):  # type: ignore[no-untyped-def]
    [task] = tasks_from_codeio(RECORD, kinds=[kind])
    return task


def _reward(task, answer: str) -> tuple[float | None, float]:  # type: ignore[no-untyped-def]
    truth = task.to_json()
    trl = ExeclensReward()(
        prompts=["?"], completions=[f"[ANSWER]{answer}[/ANSWER]"], ground_truth=[truth]
    )[0]
    verl = compute_score("codeio", f"[ANSWER]{answer}[/ANSWER]", truth)["score"]
    return trl, verl


def test_exported_codeio_tasks_carry_the_rule_synthesis_verifies_with() -> None:
    pair = RECORD["ios"][0]
    for kind in ("output", "input"):
        synthesized = prediction_task(kind, RECORD["refcode"], pair["input"], pair["output"])
        assert _exported(kind).compare == synthesized.compare == "tolerant"


def test_a_close_float_passes_in_synthesis_and_in_both_rewards() -> None:
    pair = RECORD["ios"][0]
    synthesized = prediction_task("output", RECORD["refcode"], pair["input"], pair["output"])
    close = {"third": 0.33334, "n": 1}  # 3e-5 off: CodeI/O's is_close accepts it
    assert judge_task(synthesized, close).passed
    assert _reward(_exported("output"), repr(close)) == (1.0, 1.0)
    far = {"third": 0.34, "n": 1}
    assert not judge_task(synthesized, far).passed
    assert _reward(_exported("output"), repr(far)) == (0.0, 0.0)
    assert _reward(_exported("output"), "{'third': ") == (0.0, 0.0)  # no literal


def test_an_input_answer_runs_with_keyword_or_positional_arguments() -> None:
    task = _exported("input")
    assert _reward(task, "main_solution(x=1.0)") == (1.0, 1.0)
    assert _reward(task, "main_solution(1.0)") == (1.0, 1.0)
    assert _reward(task, "main_solution(x=2.0)") == (0.0, 0.0)


def test_the_prompt_shows_the_output_as_before_the_rule_changed() -> None:
    user = render_messages(_exported("input"))[1]["content"]
    assert "returns `{'third': 0.3333333333333333, 'n': 1}`" in user
