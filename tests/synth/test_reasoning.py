"""Synthesis with a reasoning model: predict → verify → revise → assemble on the final answer.

The stand-in server (``tests/standin_model.py``) answers as a thinking model in each
shape -- ``<think>`` tags, a separate ``reasoning_content``, harmony channels, a thought
cut off by ``max_tokens`` -- with a draft JSON answer that disagrees with the final one.
The stages, client, engine and verification are real; the records are CodeI/O instances
of one small function.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from execlens.models import resolve_client_config
from execlens.synth import load_config
from execlens.synth._prompts import render_prediction_prompt
from execlens.synth._stage import StageContext, accepted
from execlens.synth.stages._assemble import codeio_pp_record, codeio_record
from execlens.synth.stages._predict import PredictStage
from execlens.synth.stages._revise import ReviseStage
from execlens.synth.stages._verify import VerifyStage

from ..standin_model import StandInModel, Thought, user_message
from .conftest import pipeline_config, write_config

REFCODE = "def main_solution(n):\n    return n * 2\n"
MAX_TOKENS = 50


def _json(field: str, value: Any) -> str:
    return f"```json\n{json.dumps({field: value})}\n```"


# Per instance: (kind, n, the model's first answer); EXPECTED: the turn-1 labels.
CASES: dict[str, tuple[str, int, Thought]] = {
    # right final after a wrong draft: verified success in every shape
    "o-tags": ("o", 1, Thought(f"Draft {_json('output', 3)}, no: 2.", _json("output", 2), "tags")),
    "o-field": (
        "o",
        2,
        Thought(f"Draft {_json('output', 5)}, no: 4.", _json("output", 4), "field"),
    ),
    "o-harmony": (
        "o",
        3,
        Thought(f"Draft {_json('output', 7)}, no: 6.", _json("output", 6), "harmony"),
    ),
    "i-field": (
        "i",
        4,
        Thought(f"Draft {_json('input', {'n': 5})}; no, 4.", _json("input", {"n": 4}), "field"),
    ),
    # right draft, wrong final: a mismatch (and a revision turn)
    "o-draft-right": (
        "o",
        5,
        Thought(f"It is {_json('output', 10)}.", _json("output", 11), "tags"),
    ),
    # a thought cut by the token limit: rejected by name, not labelled wrong
    "o-cut": (
        "o",
        6,
        Thought(f"{_json('output', 12)} " + "checking " * MAX_TOKENS, _json("output", 12), "tags"),
    ),
}
EXPECTED = {
    "o-tags": "success",
    "o-field": "success",
    "o-harmony": "success",
    "i-field": "success",
    "o-draft-right": "mismatch",
}


def _record(name: str) -> dict[str, Any]:
    kind, n, _ = CASES[name]
    given = {"n": n} if kind == "o" else 2 * n
    prompt = render_prediction_prompt(
        kind, query=f"Double n (case {name}).", io_req="n: an int", given=given, refcode=REFCODE
    )
    return {
        "id": name,
        "function_id": "double",
        "source": "test",
        "kind": kind,
        "pair_index": 0,
        "prompt": prompt,
        "refcode": REFCODE,
        "input": {"n": n},
        "output": 2 * n,
    }


def _reply(seen: list[dict[str, Any]]) -> Any:
    def reply(body: dict[str, Any]) -> Thought | str:
        seen.append(body)
        name = next(k for k in CASES if f"(case {k})" in user_message(body))
        if len(body["messages"]) > 1:  # the revision turn: now the right answer, plainly
            return _json("output", 2 * CASES[name][1])
        return CASES[name][2]

    return reply


def test_predict_verify_revise_assemble_on_the_final_answer(data_dir: Path, tmp_path: Path) -> None:
    seen: list[dict[str, Any]] = []
    with StandInModel(_reply(seen)) as server:
        config = load_config(
            write_config(
                tmp_path / "run.yaml",
                pipeline_config(
                    data_dir,
                    tmp_path / "out",
                    server.base_url,
                    # The second ask's room is too small for o-cut's thought too.
                    sampling={"max_tokens": MAX_TOKENS, "thinking_max_tokens": MAX_TOKENS + 2},
                ),
            )
        )
        context = StageContext(
            config,
            client_config=resolve_client_config("scripted", server.base_url, "EMPTY"),
            workers=1,
        )
        try:
            predicted = list(PredictStage(context).run([_record(n) for n in CASES], 0, 1))
            verified = list(VerifyStage(context).run(accepted(predicted), 0, 1))
            revised = {r["id"]: r for r in ReviseStage(context).run(verified, 0, 1)}
        finally:
            context.close()

    by_id = {r["id"]: r for r in predicted}
    cut = by_id["o-cut"]
    assert cut["reject"]["reason"] == "truncated_in_reasoning"
    assert cut["turn_1"]["final"] == "" and "checking" in cut["turn_1"]["reasoning"]
    assert {r["id"]: r["verdict_1"]["label"] for r in verified} == EXPECTED
    for name, (_, _, thought) in CASES.items():
        if name == "o-cut":
            continue
        turn = by_id[name]["turn_1"]
        # Stored apart: the thought (the draft in it) and the final part verified.
        assert turn["reasoning"] == thought.thought and turn["final"] == thought.final
        assert turn["status"] == "complete" and turn["shape"] == thought.shape

    # The revision turn sends the first answer back without its thought.
    wrong = revised["o-draft-right"]
    history = next(b["messages"] for b in seen if len(b["messages"]) > 1)
    assert history[1] == {"role": "assistant", "content": CASES["o-draft-right"][2].final}
    assert wrong["verdict_2"]["label"] == "success"

    # Assembled: the thought kept in the assistant turn, in the teacher-chain shape.
    for name in ("o-tags", "o-field", "o-harmony"):
        thought = CASES[name][2]
        message = codeio_record(revised[name])["messages"][1]
        assert message == {
            "role": "assistant",
            "content": f"<think>\n{thought.thought}\n</think>\n\n{thought.final}",
        }
    pp = codeio_pp_record(wrong)["messages"][1]["content"]
    assert pp.startswith(f"<think>\n{CASES['o-draft-right'][2].thought}\n</think>")
    assert wrong["feedback_1"] in pp and _json("output", 10) in pp


def test_a_thought_cut_at_the_first_budget_gets_room_to_finish(
    data_dir: Path, tmp_path: Path
) -> None:
    """The one budget rule: a reply the token limit cut is asked once more with the
    thinking budget (``sampling.thinking_max_tokens``), and its final answer verified."""
    seen: list[dict[str, Any]] = []
    with StandInModel(_reply(seen)) as server:
        config = load_config(
            write_config(
                tmp_path / "run.yaml",
                pipeline_config(
                    data_dir, tmp_path / "out", server.base_url, sampling={"max_tokens": MAX_TOKENS}
                ),
            )
        )
        context = StageContext(
            config,
            client_config=resolve_client_config("scripted", server.base_url, "EMPTY"),
            workers=1,
        )
        try:
            stage = PredictStage(context)
            predicted = list(stage.run([_record("o-cut"), _record("o-tags")], 0, 1))
            verified = list(VerifyStage(context).run(accepted(predicted), 0, 1))
        finally:
            context.close()
    assert [b["max_tokens"] for b in seen] == [MAX_TOKENS, MAX_TOKENS, 32768]
    assert stage.counters["asked_again_with_room"] == 1
    assert {r["id"]: r["verdict_1"]["label"] for r in verified} == {
        "o-cut": "success",
        "o-tags": "success",
    }
