"""Pure pieces of the synthesis pipeline: size rule, extraction, parsing, prompts, and
collection on real parsed CodeI/O functions in the real engine."""

from __future__ import annotations

from pathlib import Path

import pytest

from execlens.engine import Engine
from execlens.synth import (
    SYNTH_PRELOAD,
    collect_functions,
    deep_size,
    extract_answer,
    load_function_records,
    parse_unified,
    render_prediction_prompt,
    size_ok,
)


def test_size_rule_thresholds() -> None:
    assert size_ok({"n": 5, "s": "abc"})
    assert not size_ok({"s": "x" * 100})  # strings < 100 characters
    assert not size_ok(list(range(20)))  # containers < 20 items
    assert not size_ok(10**300)  # scalars < 128 bytes
    # the whole value must be < 1 KiB, measured in memory
    assert not size_ok([[i + j + 0.5 for j in range(19)] for i in range(19)])
    assert deep_size([1, 2]) > deep_size([])


def test_extraction_keeps_strings_and_reads_python_literals() -> None:
    text = 'thinking {"a": 1}\nso: {"output": "a } b (x)", "k": True}'
    got = extract_answer(text, "output")
    assert got.ok and got.value == "a } b (x)"
    fenced = extract_answer('```json\n{"input": {"n": (1, 2)}}\n```', "input")
    assert fenced.ok and fenced.value == {"n": [1, 2]}
    assert extract_answer("\\boxed{\\{'output': 3\\}}", "output").value == 3
    assert extract_answer("no json here", "output").message.startswith("Fail to extract")
    assert extract_answer('{"x": 1}', "output").message == "No field 'output' in the last json!"
    assert extract_answer("[1]", "output").message.startswith("Fail")


def test_unified_parse_names_what_is_missing() -> None:
    good = (
        "## Main Function\n```python\ndef main_solution(n):\n    return n\n```\n"
        "## Input Output Description\nInput: n (int)\n"
        "## Input generator\n```python\ndef input_generator():\n    return {'n': 1}\n```\n"
        "## Problem Statement\nWhat is n?"
    )
    parsed = parse_unified(good)
    assert parsed.reason is None and "input_generator" in parsed.input_generator
    assert parse_unified("hello").reason == "missing_main_function"
    assert parse_unified(good.split("## Input generator")[0]).reason == "missing_input_generator"


def test_prediction_prompt_follows_the_paper() -> None:
    prompt = render_prediction_prompt(
        "o", query="Q {given}", io_req="R", given={"n": 1}, refcode="def main_solution(n): ..."
    )
    assert prompt.startswith("You are given a question")
    assert "Q {given}" in prompt and "{'n': 1}" in prompt
    assert '{"output": <your output>}' in prompt
    assert prompt.endswith(
        "Tip: Here is a reference code snippet for this question. You can "
        "refer to this code to guide your reasoning but not copy spans of "
        "code directly.\n\ndef main_solution(n): ..."
    )


def test_collect_reexecutes_stored_pairs_and_flags_mutation(data_dir: Path) -> None:
    records = load_function_records(
        data_dir / "codeio" / "rawcode_1k_parsed.jsonl", keep=3, limit=12
    )
    with Engine(workers=2, preload=SYNTH_PRELOAD) as engine:
        out = collect_functions(engine, records)
    classes: dict[str, int] = {}
    for record in out:
        for kind, count in record["collect"]["pair_classes"].items():
            classes[kind] = classes.get(kind, 0) + count
    assert sum(classes.values()) == sum(len(r["stored_ios"]) for r in records)
    assert classes.get("mutated_input", 0) >= 1  # the ropes-style bug of the reference
    for record in out:
        if not record.get("reject"):
            assert 2 <= len(record["pairs"]) <= 3


def test_generator_collect_records_inputs_before_the_call() -> None:
    record = {
        "id": "t/0",
        "keep": 3,
        "stored_ios": None,
        "refcode": "def main_solution(xs):\n    xs.sort()\n    return xs[0]\n",
        "input_generator": (
            "import random\ndef input_generator():\n"
            "    return {'xs': [random.randint(0, 99) for _ in range(4)]}\n"
        ),
    }
    with Engine(workers=1, preload=SYNTH_PRELOAD) as engine:
        [out] = collect_functions(engine, [record])
    assert not out.get("reject"), out.get("reject")
    assert len(out["pairs"]) == 3
    assert any(p["input"]["xs"] != sorted(p["input"]["xs"]) for p in out["pairs"])
    assert all(p["output"] == min(p["input"]["xs"]) for p in out["pairs"])


@pytest.mark.parametrize(
    "code",
    [
        "import time\ndef main_solution(n):\n    return time.time()\n",
        "import random\ndef main_solution(n):\n    return random.random()\n",
    ],
)
def test_clock_and_randomness_are_dropped(code: str) -> None:
    record = {
        "id": "t/1",
        "keep": 3,
        "refcode": code,
        "stored_ios": [{"input": {"n": i}, "output": 0} for i in range(3)],
    }
    with Engine(workers=1, preload=SYNTH_PRELOAD) as engine:
        [out] = collect_functions(engine, [record])
    assert out["reject"]["stage"] == "collect"
    assert out["reject"]["reason"] in ("nondeterministic", "reads_time", "unseeded_randomness")
