"""read_response: every shape a thinking model answers in, and how it ended."""

from __future__ import annotations

import pytest

from execlens.tasks.prompts import ResponseStatus, read_response

DRAFT = "[ANSWER]assert f(1) == 2[/ANSWER]"
FINAL = "[ANSWER]assert f(1) == 3[/ANSWER]"


def test_plain_answer_is_final_whole() -> None:
    response = read_response(FINAL, finish_reason="stop")
    assert response.final == FINAL
    assert response.reasoning is None
    assert response.status is ResponseStatus.COMPLETE
    assert response.shape == "none"


def test_think_tags_split_draft_from_final() -> None:
    text = f"<think>\nLet me try. {DRAFT} no wait, recount.\n</think>\n\n{FINAL}"
    response = read_response(text, finish_reason="stop")
    assert response.final == FINAL
    assert DRAFT in (response.reasoning or "")
    assert response.shape == "tags"
    assert response.answerable


def test_closing_tag_only_when_template_opened_the_thought() -> None:
    response = read_response(f"thinking {DRAFT}</think>{FINAL}", finish_reason="stop")
    assert response.final == FINAL
    assert response.reasoning == f"thinking {DRAFT}"


def test_separate_reasoning_field() -> None:
    response = read_response(FINAL, reasoning=f"draft: {DRAFT}", finish_reason="stop")
    assert response.final == FINAL
    assert response.shape == "field"
    assert response.status is ResponseStatus.COMPLETE


def test_harmony_final_channel_only() -> None:
    text = (
        f"<|channel|>analysis<|message|>Maybe {DRAFT}<|end|>"
        f"<|start|>assistant<|channel|>final<|message|>{FINAL}<|return|>"
    )
    response = read_response(text, finish_reason="stop")
    assert response.final == FINAL
    assert DRAFT in (response.reasoning or "")
    assert response.shape == "harmony"


def test_harmony_without_final_channel_has_no_answer() -> None:
    cut = read_response(f"<|channel|>analysis<|message|>Maybe {DRAFT}", finish_reason="length")
    assert cut.status is ResponseStatus.TRUNCATED_IN_REASONING
    assert cut.final == ""
    assert not cut.answerable


@pytest.mark.parametrize(
    "finish, status",
    [("length", ResponseStatus.TRUNCATED_IN_REASONING), ("stop", ResponseStatus.REASONING_ONLY)],
)
def test_unclosed_thought_has_no_answer(finish: str, status: ResponseStatus) -> None:
    response = read_response(f"<think>I guess {DRAFT} but", finish_reason=finish)
    assert response.status is status
    assert response.final == ""
    assert DRAFT in (response.reasoning or "")


def test_reasoning_field_cut_off_with_empty_content() -> None:
    response = read_response("", reasoning=f"long thought {DRAFT}", finish_reason="length")
    assert response.status is ResponseStatus.TRUNCATED_IN_REASONING


def test_cut_final_part_still_answers() -> None:
    response = read_response(f"<think>x</think>{FINAL} and then more", finish_reason="length")
    assert response.status is ResponseStatus.TRUNCATED
    assert response.answerable


def test_mode_on_treats_untagged_cut_content_as_thought() -> None:
    on = read_response(f"so {DRAFT} hmm", finish_reason="length", mode="on")
    assert on.status is ResponseStatus.TRUNCATED_IN_REASONING
    auto = read_response(f"so {DRAFT} hmm", finish_reason="length", mode="auto")
    assert auto.status is ResponseStatus.TRUNCATED
    assert auto.final.startswith("so")


def test_mode_off_keeps_content_whole() -> None:
    text = f"<think>{DRAFT}</think>{FINAL}"
    response = read_response(text, finish_reason="stop", mode="off")
    assert response.final == text
    assert response.shape == "none"


def test_custom_tags() -> None:
    text = f"<seed:think>{DRAFT}</seed:think>{FINAL}"
    response = read_response(text, think_tags=("<seed:think>", "</seed:think>"))
    assert response.final == FINAL


def test_megabyte_response() -> None:
    text = "<think>" + "x" * 1_000_000 + "</think>" + FINAL
    response = read_response(text, finish_reason="stop")
    assert response.final == FINAL
    harmony = "<|channel|>analysis<|message|>" + "y" * 1_000_000
    assert read_response(harmony, finish_reason="length").reasoning == "y" * 1_000_000


def test_training_target_keeps_the_thought_in_one_shape() -> None:
    harmony = (
        f"<|channel|>analysis<|message|>Maybe {DRAFT}<|end|>"
        f"<|start|>assistant<|channel|>final<|message|>{FINAL}<|return|>"
    )
    for response in (
        read_response(f"<think>\nMaybe {DRAFT}\n</think>\n\n{FINAL}"),
        read_response(FINAL, reasoning=f"Maybe {DRAFT}"),
        read_response(harmony),
    ):
        assert response.as_target() == f"<think>\nMaybe {DRAFT}\n</think>\n\n{FINAL}"
    plain = read_response(f"Reasoning in the open. {FINAL}")
    assert plain.as_target() == f"Reasoning in the open. {FINAL}"  # the whole response


def test_a_stored_record_reads_back_unchanged() -> None:
    from execlens.tasks.prompts import ModelResponse

    for response in (
        read_response(f"<think>{DRAFT}</think>{FINAL}", finish_reason="stop"),
        read_response(f"<think>{DRAFT}", finish_reason="length"),
        read_response(FINAL, completion_tokens=7),
    ):
        assert ModelResponse.from_record(response.to_record()) == response
