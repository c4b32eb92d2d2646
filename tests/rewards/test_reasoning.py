"""Rewards for reasoning models: only the final part is scored, never a draft in the thought.

Completions are written in every shape a thinking model's response reaches a trainer in
(ANCHORS section 14): ``<think>`` tags in the text (verl's decoded response, TRL's standard
completions), a closing tag only (templates that open the thought in the prompt), TRL's
conversational completions with a ``reasoning_content`` / ``thinking`` key, harmony
channels, and a thought the token limit cut.  Each holds a draft that disagrees with its
final answer.  The judge and the engine are real.
"""

from __future__ import annotations

import ast
import time
from typing import Any

import pytest

from execlens.engine import Engine
from execlens.rewards import (
    MAX_ANSWER_CHARS,
    ExeclensFormatReward,
    ExeclensLengthPenalty,
    ExeclensReward,
    Shaping,
    Task,
    compute_score,
    extract_answer,
    score,
)
from execlens.rewards._extract import _source_segment

REVERSE = "def f(x):\n    return x[::-1]\n"
OUT = Task("output", REVERSE, "'cba'", call="f('abc')").to_json()
INP = Task("input", REVERSE, "'cba'").to_json()
RIGHT = {OUT: "[ANSWER]'cba'[/ANSWER]", INP: "[ANSWER]f('abc')[/ANSWER]"}
WRONG = {OUT: "[ANSWER]'abc'[/ANSWER]", INP: "[ANSWER]f('cba')[/ANSWER]"}


def _shape(shape: str, thought: str, final: str) -> Any:
    """One completion in ``shape``, as the trainer hands it to a reward function."""
    if shape == "tags":
        return f"<think>\n{thought}\n</think>\n\n{final}"
    if shape == "closing_tag":
        return f"{thought}\n</think>\n\n{final}"
    if shape == "harmony":
        return (
            f"<|channel|>analysis<|message|>{thought}<|end|>"
            f"<|start|>assistant<|channel|>final<|message|>{final}<|return|>"
        )
    if shape == "reasoning_content":
        return [{"role": "assistant", "content": final, "reasoning_content": thought}]
    if shape == "thinking":  # the key TRL's response parser uses for some templates
        return [{"role": "assistant", "content": final, "thinking": thought}]
    raise ValueError(shape)


SHAPES = ["tags", "closing_tag", "harmony", "reasoning_content", "thinking"]


def _call(
    fn: Any,
    completions: list[Any],
    truths: list[Any],
    completion_ids: list[list[int]] | None = None,
) -> Any:
    """``fn`` called exactly as TRL's GRPOTrainer calls a reward function."""
    return fn(
        prompts=["p"] * len(completions),
        completions=completions,
        completion_ids=completion_ids or [[1, 2]] * len(completions),
        ground_truth=truths,
        trainer_state=None,
        log_extra=lambda column, values: None,
        log_metric=lambda name, value: None,
    )


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("truth", [OUT, INP], ids=["output", "input"])
def test_trl_scores_the_final_answer_never_the_draft(
    shape: str, truth: str, engine: Engine
) -> None:
    completions = [
        _shape(shape, f"First guess: {WRONG[truth]}. No, recount.", RIGHT[truth]),
        _shape(shape, f"First guess: {RIGHT[truth]}. Hmm, maybe not.", WRONG[truth]),
        _shape(shape, f"Let me try {RIGHT[truth]}", "So the answer is what I said."),
    ]
    binary = _call(ExeclensReward(engine=engine), completions, [truth] * 3)
    assert binary == [1.0, 0.0, 0.0]  # right final after a wrong draft; right draft, wrong final
    zero = ExeclensReward(engine=engine, shaping=Shaping.absolute_zero())
    assert _call(zero, completions, [truth] * 3) == [1.0, -0.5, -1.0]  # no final answer: minimum
    assert _call(ExeclensFormatReward(), completions, [truth] * 3) == [1.0, 1.0, 0.0]


@pytest.mark.parametrize("shape", ["tags", "harmony"])
def test_a_thought_cut_off_earns_the_minimum_and_no_format_reward(
    shape: str, engine: Engine
) -> None:
    cut = {
        "tags": f"<think>\nThe answer is {RIGHT[OUT]} surely, let me check again",
        "harmony": f"<|channel|>analysis<|message|>Surely {RIGHT[OUT]}, check again",
    }[shape]
    zero = ExeclensReward(engine=engine, shaping=Shaping.absolute_zero())
    logs: dict[str, list[Any]] = {}
    values = zero(
        prompts=["p"],
        completions=[cut],
        completion_ids=[[1] * 8],
        ground_truth=[OUT],
        trainer_state=None,
        log_extra=lambda column, v: logs.setdefault(column, []).extend(v),
        log_metric=lambda name, value: None,
    )
    assert values == [Shaping.absolute_zero().minimum]
    assert logs["execlens_reward_verdict"] == ["unparseable:reasoning_only"]
    assert _call(ExeclensFormatReward(), [cut], [OUT]) == [0.0]
    # TRL passes no finish reason: with the generation limit given, a completion that
    # fills it is cut off, and its label says so.
    capped = ExeclensReward(engine=engine, max_completion_tokens=8)
    assert score(OUT, cut, finish_reason="length").label == "unparseable:truncated_in_reasoning"
    assert capped.verdicts([cut], [OUT], [[1] * 8])[0].label == (
        "unparseable:truncated_in_reasoning"
    )


def test_template_opened_thought_cut_off_is_read_with_reasoning_on(engine: Engine) -> None:
    # Qwen3-style templates open <think> in the prompt: the completion is bare thought.
    # Cut at the limit, its draft must not count; read as a plain answer it would.
    bare = f"Let me see, {RIGHT[OUT]} is my guess so far and"
    on = ExeclensReward(engine=engine, reasoning="on", max_completion_tokens=16)
    assert on.verdicts([bare], [OUT], [[1] * 16])[0].label == ("unparseable:truncated_in_reasoning")
    assert on.verdicts([RIGHT[OUT]], [OUT], [[1] * 4])[0].passed  # finished: an answer


def test_verl_compute_score_reads_the_decoded_response() -> None:
    right_final = _shape("tags", f"maybe {WRONG[OUT]}", RIGHT[OUT])
    right_draft = _shape("tags", f"maybe {RIGHT[OUT]}", WRONG[OUT])
    cut = f"<think>\nmaybe {RIGHT[OUT]}, but"
    single = [
        compute_score("execlens", text, OUT, {}, shaping="absolute_zero")
        for text in (right_final, right_draft, cut)
    ]
    assert [s["score"] for s in single] == [1.0, -0.5, -1.0]
    assert single[2]["verdict"] == "unparseable:reasoning_only"
    batch = compute_score(
        data_sources=["execlens"] * 3,
        solution_strs=[right_final, right_draft, cut],
        ground_truths=[OUT] * 3,
        extra_infos=[{}] * 3,
    )
    assert [s["score"] for s in batch] == [1.0, 0.0, 0.0]


@pytest.mark.parametrize(
    "final, label",
    [
        ("[ANSWER]'abc'[/ANSWER] or [ANSWER]'cba'[/ANSWER]", "unparseable:hedged"),
        ("[ANSWER]'cba'[/ANSWER] or maybe [ANSWER]'abc'[/ANSWER]", "unparseable:hedged"),
        (
            "[ANSWER]'xyz'[/ANSWER][ANSWER]'abc'[/ANSWER][ANSWER]'cba'[/ANSWER]",
            "unparseable:hedged",
        ),
        ("[ANSWER]'cba'[/ANSWER] again: [ANSWER]'cba'[/ANSWER]", "passed"),  # a repeat is fine
        ("[ANSWER]'cba'[/ANSWER] again: [ANSWER]  \"cba\" [/ANSWER]", "passed"),  # same value
        ("[ANSWER]assert f('abc') == 'cba'[/ANSWER] i.e. [ANSWER]'cba'[/ANSWER]", "passed"),
        ("I answer in [ANSWER] tags: [ANSWER]'cba'[/ANSWER]", "passed"),  # the tag in prose
        # ...after the answer, too: a mention of the tag is not a second answer,
        ("[ANSWER]'cba'[/ANSWER] (I wrapped it in [ANSWER] tags)", "passed"),
        # but a second answer left open after the first still hedges.
        ("[ANSWER]'cba'[/ANSWER] or rather [ANSWER]'abc'", "unparseable:hedged"),
    ],
)
def test_different_answers_in_the_final_part_earn_the_minimum(final: str, label: str) -> None:
    verdict = score(OUT, _shape("tags", "thinking", final))
    assert verdict.label == label
    shaping = Shaping.absolute_zero()
    assert shaping.reward(verdict) == (shaping.minimum if label != "passed" else 1.0)
    # Drafts in the thought are not answers: they never make a completion hedge.
    assert score(OUT, _shape("tags", WRONG[OUT] * 3, RIGHT[OUT])).passed


def test_hedging_gets_the_minimum_whatever_malformed_is() -> None:
    lenient = Shaping(correct=1.0, wrong=-0.5, malformed=0.5)
    verdict = score(OUT, "[ANSWER]'abc'[/ANSWER][ANSWER]'cba'[/ANSWER]")
    assert lenient.reward(verdict) == -0.5 == lenient.minimum


def _megabyte_cases() -> dict[str, tuple[str, str]]:
    literal = "[" + ", ".join(["1"] * 330_000) + "]"  # ~1 MB
    thought = "step " * 200_000
    return {
        "assertion": (
            "[ANSWER]assert f('abc') == " + literal + "[/ANSWER]",
            "unparseable:too_long",
        ),
        "literal": ("[ANSWER]" + literal + "[/ANSWER]", "unparseable:too_long"),
        "untagged": ("x" * 1_000_000, "unparseable:too_long"),
        "long thought": (f"<think>{thought}</think>{RIGHT[OUT]}", "passed"),
        "harmony": (
            (
                f"<|channel|>analysis<|message|>{thought}<|end|><|start|>assistant"
                f"<|channel|>final<|message|>{RIGHT[OUT]}"
            ),
            "passed",
        ),
        "cut thought": (f"<think>{thought}", "unparseable:reasoning_only"),
        "repeated answer": (RIGHT[OUT] * 45_000, "passed"),
        "hedged blocks": ((RIGHT[OUT] + WRONG[OUT]) * 22_000, "unparseable:hedged"),
    }


@pytest.mark.parametrize("name", list(_megabyte_cases()))
def test_a_megabyte_completion_is_scored_fast(name: str) -> None:
    completion, label = _megabyte_cases()[name]
    assert len(completion) > 900_000
    start = time.perf_counter()
    verdict = score(OUT, completion)
    elapsed = time.perf_counter() - start
    assert verdict.label == label
    # ~1-15 ms measured (perf/rewards.py prints it); seconds before the cap.  The
    # bound is loose because the machine is shared.
    assert elapsed < 1.0, f"{name}: {elapsed:.3f} s"


def test_the_cap_is_the_literal_parsers_own_limit() -> None:
    from execlens.values import AnswerParseError, parse_literal

    at_cap = "'" + "a" * (MAX_ANSWER_CHARS - 2) + "'"
    over = "'" + "a" * (MAX_ANSWER_CHARS - 1) + "'"
    parse_literal(at_cap)  # the parser accepts what the cap lets through...
    assert extract_answer(f"[ANSWER]{at_cap}[/ANSWER]", "output").ok
    with pytest.raises(AnswerParseError, match="too_long"):  # ...and refuses what it stops
        parse_literal(over)
    assert extract_answer(f"[ANSWER]{over}[/ANSWER]", "output").problem == "too_long"


@pytest.mark.parametrize(
    "source",
    [
        "assert f('é', 2) == [1,\n 2]",
        'assert f(1) ==\\\n  "ü😀"',
        "assert (f(1)\r\n) == 3",
        "assert (f(1)\r) == {1: 'x'}",
        "assert f('\\x0c') == (\n\x0c 2)",
        'assert f("""a\nb""") == \'ok\'',
    ],
)
def test_assertion_sides_are_sliced_as_ast_slices_them(source: str) -> None:
    test = ast.parse(source).body[0].test  # type: ignore[attr-defined]
    for node in (test.left, test.comparators[0]):
        assert _source_segment(source, node) == ast.get_source_segment(source, node)


def test_length_penalty_is_opt_in_and_names_its_limits() -> None:
    with pytest.raises(ValueError, match="max_completion_tokens"):
        ExeclensLengthPenalty()
    penalty = ExeclensLengthPenalty(penalty=0.5, max_completion_tokens=8, max_chars=60)
    assert penalty.__name__ == "execlens_length_penalty"
    completions = [
        RIGHT[OUT],
        RIGHT[OUT],
        "x" * 61,
        [{"role": "assistant", "content": RIGHT[OUT], "reasoning_content": "y" * 50}],
    ]
    ids = [[1] * 3, [1] * 8, [1] * 3, [1] * 3]  # the second filled the generation limit
    assert _call(penalty, completions, [OUT] * 4, ids) == [0.0, -0.5, -0.5, -0.5]


def test_verl_length_penalty_is_off_unless_asked() -> None:
    long_right = "x" * 100 + RIGHT[OUT]
    assert compute_score("execlens", long_right, OUT)["score"] == 1.0
    penalised = compute_score(
        "execlens", long_right, OUT, max_response_chars=50, length_penalty=0.25
    )
    assert penalised["score"] == 0.75 and penalised["acc"] == 1.0


def _long_literal(seed: int, size: int = 199_000) -> str:
    """A literal of ``size`` characters: nested lists and tuples of ints, floats, strings."""
    import random

    rng = random.Random(seed)
    parts: list[str] = []
    total = 0
    while total < size - 200:
        inner = ", ".join(
            f"({rng.randint(-99, 99)}, '{rng.choice('abcdef') * rng.randint(1, 4)}', "
            f"[{rng.random():.3f}, {rng.choice(['True', 'None', '[]', '()'])}])"
            for _ in range(rng.randint(1, 4))
        )
        part = f"[{inner}]"
        parts.append(part)
        total += len(part) + 2
    return "[" + ", ".join(parts) + "]"


@pytest.mark.parametrize("form", ["literal", "assertion"])
def test_long_answers_are_judged_as_short_ones_are(form: str) -> None:
    """Answers near the cap go through the fast reader, the split of the assertion
    without ast and the comparison at C speed: the verdicts are the ones ast gives."""
    from execlens.judge import plan_task
    from execlens.judge._runtime import compare_values
    from execlens.values import AnswerParseError, parse_literal
    from execlens.values._parse import _literal, _parse_expression

    text = _long_literal(1)
    task = Task(
        kind="output",
        program="def f(x):\n    return x\n",
        function="f",
        input="f(1)",
        reference=repr(parse_literal(text)),
    )

    def wrap(answer: str) -> str:
        return f"[ANSWER]{answer if form == 'literal' else 'assert f(1) == ' + answer}[/ANSWER]"

    spaced = text.replace(", ", ",  ")[: 200_000 - 20]
    wrong_type = text.replace("True", "1", 1)  # equal under ==, not of the same type
    cases = {
        text: "passed",
        text.replace("'a", "'z", 1): "wrong:value",
        wrong_type: "wrong:type_mismatch",
        text[:-1]: "unparseable:syntax",
    }
    if len(spaced) < 199_000 and spaced.endswith("]"):
        cases[spaced] = "passed"
    reference = parse_literal(task.reference)
    for answer, label in cases.items():
        assert score(task, wrap(answer)).label == label, label
        if form == "literal":  # the judge on its own agrees, and so does the ast path
            assert plan_task(task, answer).verdict().label == label
            try:
                slow = compare_values(_literal(_parse_expression(answer)), reference).label
            except AnswerParseError as error:
                slow = f"unparseable:{error.kind}"
            assert slow == label
