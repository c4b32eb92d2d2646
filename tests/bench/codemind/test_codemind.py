"""CodeMind: data, prompts, extraction and both modes' rules, on the shipped data and the
real engine (the stand-in server runs are in ``test_eval.py``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from execlens.bench import DatasetError, get_benchmark
from execlens.bench.codemind import (
    DATA_DIR,
    IEROfficialScorer,
    SROfficialScorer,
    extract_ier,
    extract_sr,
    ier_normalise,
    load_codemind,
    render_ier,
    strip_fence,
)
from execlens.engine import Engine
from execlens.tasks import NoTruth
from execlens.values import decode, literal_text

FILES = ("ier_humaneval.jsonl", "ier_cruxeval.jsonl", "ier_classeval.jsonl", "sr_humaneval.jsonl")


def _shared(data_dir: Path) -> Path:
    path = data_dir / "codemind"
    if not (path / FILES[0]).exists():
        pytest.skip(f"CodeMind data not found under {path}")
    return path


def test_shipped_files_are_the_shared_copy_with_their_licences(data_dir: Path) -> None:
    shared = _shared(data_dir)
    for name in FILES:
        assert (DATA_DIR / name).read_bytes() == (shared / name).read_bytes(), name
    assert (DATA_DIR / "LICENSE.txt").read_bytes() == (shared / "LICENSE").read_bytes()
    for upstream in ("human-eval", "cruxeval", "ClassEval"):
        assert (DATA_DIR / f"LICENSE.{upstream}.txt").read_bytes() == (
            shared / f"LICENSE.{upstream}"
        ).read_bytes()


def test_every_part_loads_with_upstream_counts() -> None:
    bench = get_benchmark("codemind")
    records = bench.load(None)
    counts = {
        task: len(bench.plan(records, task, limit=None, offset=0)[0][1]) for task in bench.tasks
    }
    assert counts == {"ier-humaneval": 162, "ier-cruxeval": 800, "ier-classeval": 400, "sr": 164}
    sr = bench.plan(records, "sr", limit=1, offset=32)[0][1][0]
    assert (sr.sample_id, sr.entry_point) == ("HumanEval_32", "find_zero")  # after poly


def test_a_malformed_record_is_named_by_file_line_and_field(tmp_path: Path) -> None:
    good = (DATA_DIR / "ier_cruxeval.jsonl").read_text().splitlines()[:2]
    bad = json.loads(good[1])
    del bad["output.txt"]
    (tmp_path / "ier_cruxeval.jsonl").write_text(good[0] + "\n" + json.dumps(bad) + "\n")
    loaded = load_codemind(tmp_path)
    assert len(loaded.records) == 1
    assert "ier_cruxeval.jsonl:2" in str(loaded.errors[0]) and "output.txt" in str(loaded.errors[0])
    with pytest.raises(DatasetError, match="ier_cruxeval.jsonl:2"):
        get_benchmark("codemind").load(str(tmp_path))
    (tmp_path / "ier_cruxeval.jsonl").write_text("\n".join(good) + "\n")
    bench = get_benchmark("codemind")
    with pytest.raises(DatasetError, match="no records of part 'sr'"):  # its file is absent
        bench.plan(bench.load(str(tmp_path)), "sr", limit=None, offset=0)


def test_ier_prompt_is_upstreams_gpt_prompt() -> None:
    # The text of create_prompt_gpt_codeqwen for CRUXEval's first sample, written out.
    item = get_benchmark("codemind").plan(
        get_benchmark("codemind").load(None), "ier-cruxeval", limit=1, offset=0
    )[0][1][0]
    prompt = render_ier("crux", "direct", code=item.code, code_input=item.input)
    text = prompt.text
    assert text.startswith(
        "<Instruction> I want you to act as a Python code executor. I will give you a piece "
        "of Python code and its input. You need to think step by step and then print the "
        "output of code execution.\n</Instruction>\nBelow is an example:\n<Example>\n"
        'Consider the following code\n\ndef f(s):\n    return s + "a"\n\n[Question]\n'
        'What would be the return value of ```f("hi")```?\nFirst analyze step by step about '
        "how the code processes the input to generate the output. \n"
    )
    assert text.endswith(
        f"Consider the following code\n{item.code}\n[Question]\nWhat would be the return "
        f"value of ```{item.input}```?\n\nFirst analyze step by step about how the code "
        "processes the input to generate the output. \nThen print the output of the code "
        "based on your analysis.\n\nFollow the following format:\n<<<Analysis>>>\n"
        "{YOUR ANALYSIS}\n<<<Output>>>\n{OUTPUT}\n[END-OF-RESPONSE]\n\n[Answer]\n"
    )
    assert prompt.system is None and prompt.sampling.temperature == 0.0
    # ClassEval (no upstream branch) takes the function-call branch.
    classeval = render_ier("classeval", "direct", code="class A: pass", code_input="Test.test()")
    assert "sum_of_integer(20, 2, 5)" in classeval.text
    assert "What would be the return value of ```Test.test()```?" in classeval.text


@pytest.mark.parametrize(
    ("raw", "text", "failure"),
    [
        ("<<<Analysis>>>\nx\n<<<Output>>>\n'hia'\n[END-OF-RESPONSE]", "\n'hia'\n", None),
        ("<<<Output>>> 1 <<<Output>>> 2 [END-OF-RESPONSE] <<<Output>>>x", "x", None),  # last mark
        ("just 5", "just 5", "no_output_mark"),
        ("<<<Output>>>\n[END-OF-RESPONSE]", "\n", "empty"),
    ],
)
def test_ier_extraction_is_parse_chatgpt(raw: str, text: str, failure: str | None) -> None:
    got = extract_ier(raw)
    assert got.text == raw.split("<<<Output>>>")[-1].split("[END-OF-RESPONSE]")[0] == text
    assert got.failure == failure


def test_sr_extraction_takes_the_first_python_block() -> None:
    assert extract_sr("x\n```python\ndef f():\n    return 1\n```\n```python\n2\n```").text == (
        "\ndef f():\n    return 1\n"
    )
    assert extract_sr("def f(): pass").failure == "no_code_block"


@pytest.mark.parametrize(
    ("prediction", "truth", "equal"),
    [
        ("'a b'", "'ab'", True),  # spaces go everywhere, inside strings too
        ('"hia"', "'hia'", True),
        ("`[1, 2]`", "[1,2]", True),
        ("true", "True", False),
        ("1.0", "1", False),
        ("[1,\r\n 2]", " [1, 2]", True),  # the file round trip turns \r\n into \n, then it goes
        ("[1,\t2]", "[1, 2]", False),  # tabs stay
        ("'x'[END-OF-RESPONSE]", "x", False),  # stripped before the marker goes: 'x' keeps a '
    ],
)
def test_ier_official_normalisation(prediction: str, truth: str, equal: bool) -> None:
    assert (
        ier_normalise(prediction, prediction=True) == ier_normalise(truth, prediction=False)
    ) is equal


def test_strip_fence() -> None:
    assert strip_fence("```python\n[1, 2]\n```") == "[1, 2]"
    assert strip_fence(" `'a'` ") == "'a'"
    assert strip_fence("```\n3\n```") == "3"


def test_truths_come_from_the_engine_and_fail_by_name(engine: Engine) -> None:
    bench = get_benchmark("codemind")
    records = bench.load(None)
    humaneval = bench.plan(records, "ier-humaneval", limit=None, offset=0)[0][1]
    chosen = [
        i for i in humaneval if i.sample_id in ("HumanEval_0", "HumanEval_32", "HumanEval_71")
    ]
    classeval = [
        i
        for i in bench.plan(records, "ier-classeval", limit=None, offset=0)[0][1]
        if i.sample_id == "ClassEval_80@SQLQueryBuilder.delete"
    ]
    prepared = bench.prepare([*chosen, *classeval], "ier-humaneval", engine)
    truths = {ident: task.reference for ident, task in prepared.items()}

    def text(ident: str) -> str:
        return literal_text(decode(truths[ident]))

    assert text("HumanEval_0") == "True"
    assert text("HumanEval_71") == "6.0"  # output.txt says 6.00
    missing = truths["HumanEval_32"]
    assert isinstance(missing, NoTruth) and "NameError" in missing.reason
    # ClassEval's output.txt is str() of the value; the truth is the value itself.
    assert text("ClassEval_80@SQLQueryBuilder.delete") == "\"DELETE FROM items WHERE name='bbb'\""
    official = IEROfficialScorer().plan(chosen[2], ["6.00", "6.0"])
    assert official.finish([]).scored == [True, False]


def test_sr_official_and_strict_on_the_canonical_solutions(engine: Engine) -> None:
    bench = get_benchmark("codemind")
    items = bench.plan(bench.load(None), "sr", limit=3, offset=0)[0][1]
    strict = bench.scorers("sr", "direct", None)["strict"]  # the core's, over codemind_sr
    for scorer in (SROfficialScorer(), strict):
        plans = [scorer.plan(item, [item.code, "def nothing(): pass"]) for item in items]
        outcomes = list(engine.map([job for plan in plans for job in plan.jobs]))
        scores = [plan.finish(outcomes[2 * i : 2 * i + 2]) for i, plan in enumerate(plans)]
        assert [s.scored for s in scores] == [[True, False]] * 3, scorer.name
