"""RE2-Bench on a made-up checkout: loader, malformed records, parsing, official scoring
with its quirks (correct prefix, exact type check, re-executed input misses) and strict."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from execlens.bench import DatasetError, DatasetUnavailableError, get_benchmark
from execlens.bench.re2bench import (
    compare_branch,
    compare_loop,
    extract_json_answer,
    load_re2bench,
    official_score,
    parse_branch_answer,
    parse_loop_answer,
    strict_score,
)
from execlens.engine import Engine
from execlens.judge import score_sample

BENCH = get_benchmark("re2bench")


def _items(checkout: Path, task: str) -> dict[str, Any]:
    items = BENCH.plan(BENCH.load(str(checkout)), task, limit=None, offset=0)[0][1]
    return {item.problem_id: item for item in items}


def test_no_default_source_names_what_to_pass() -> None:
    with pytest.raises(DatasetUnavailableError, match="--data"):
        BENCH.load(None)


def test_not_a_checkout_is_named(tmp_path: Path) -> None:
    with pytest.raises(DatasetUnavailableError, match="dataset/re2-bench"):
        BENCH.load(str(tmp_path))


def test_loads_every_task_with_upstreams_case_names(checkout: Path) -> None:
    loaded = load_re2bench(checkout)
    assert loaded.errors == []
    assert sorted({(i.task, i.sample_id) for i in loaded}) == sorted(
        [
            (t, s)
            for t in ("output", "input")
            for s in (
                "easy/sample_7",
                "easy/HumanEval_3",
                "easy/ClassEval_5@Counter.bump",
                "easy/atcoder_ABC001_A",
                "easy/codeforces_7_A",
                "difficult/proj__proj-1@@text.happy.py@@clean",
            )
        ]
        + [("loop", "easy/sample_7"), ("branch", "easy/sample_7")]
    )
    io = _items(checkout, "output")
    # the recorded call on the sampled line (index 1), and the .rstrip(".py") case name
    assert io["HumanEval_3"].inputs["args"] == {"a": 2, "b": 3}
    assert io["proj__proj-1@@text.happy.py@@clean"].output == "hi"
    assert io["ClassEval_5@Counter.bump"].class_name == "Counter"
    assert io["ClassEval_5@Counter.bump"].code.startswith("class Counter")
    # the data's own dataset/re2-bench folder works as --data too
    assert len(BENCH.load(str(checkout / "dataset" / "re2-bench"))) == 14
    assert _items(checkout, "loop")["sample_7"].truth == {
        "3": {"n": [1, 2, 3], "out": [[], [2], [2]]}
    }
    assert _items(checkout, "branch")["sample_7"].truth == {"4": [True, False, True]}


def test_prompt_is_the_rendered_file(checkout: Path) -> None:
    item = _items(checkout, "input")["sample_7"]
    prompt = BENCH.render(item, "input", "direct")
    path = checkout / "prompts" / "input_prediction" / "easy" / "sample_7.txt"
    assert prompt.text == path.read_text()
    assert "[PYTHON]" in prompt.text and "[STRUCTURE]" in prompt.text


@pytest.mark.parametrize(
    ("damage", "where"),
    [
        (
            lambda root: (
                root / "dataset/re2-bench/input-output/HumanEval/HumanEval_3.jsonl"
            ).write_text('{"name": "pair"}\n{"name": "pair", "values": {"return": 1}}\n'),
            ("HumanEval_3.jsonl", 2, "values.inputs"),
        ),
        (
            lambda root: (
                root / "dataset/re2-bench/input-output/cruxeval/cruxeval_7.jsonl"
            ).write_text("not json\n"),
            ("cruxeval_7.jsonl", 1, None),
        ),
        (
            lambda root: (root / "dataset/re2-bench/loop/easy/sample_7.json").write_text(
                json.dumps({"loops": {"0": {"iterations": []}}})
            ),
            ("sample_7.json", None, "loops.0.line"),
        ),
        (
            lambda root: (root / "dataset/re2-bench/branch/easy/sample_7.json").write_text(
                json.dumps({"branches": {"decisions": [{"line": 4, "taken": "Y"}]}})
            ),
            ("sample_7.json", None, "branches.decisions[0].taken"),
        ),
        (
            lambda root: (root / "prompts/output_prediction/easy/sample_7.txt").unlink(),
            ("sample_7.txt", None, None),
        ),
        (
            lambda root: (root / "dataset/re2-bench/sampled_problems.json").write_text(
                json.dumps({"easy": {"sample_7": {"benchmark": "cruxeval", "input-output": "0"}}})
            ),
            ("sampled_problems.json", None, "easy.sample_7.input-output"),
        ),
    ],
)
def test_malformed_records_are_named(checkout: Path, damage: Any, where: Any) -> None:
    damage(checkout)
    errors = load_re2bench(checkout).errors
    assert errors, "the damage went unnoticed"
    name, line, field = where
    assert any(
        Path(e.source).name == name and e.line == line and e.field == field for e in errors
    ), [str(e) for e in errors]
    with pytest.raises(DatasetError, match=name.replace(".", r"\.")):
        BENCH.load(str(checkout))


def test_json_answer_parsing_repairs_as_upstream() -> None:
    raw = '[THOUGHT]...[/THOUGHT]\n[OUTPUT]\n```json\n{"output": [1, 2,], # two\n}\n```\n[/OUTPUT]'
    assert extract_json_answer(raw, "output").value == {"output": [1, 2]}
    # an unquoted value is quoted by a repair pass
    repaired = extract_json_answer('[OUTPUT]\n{"output": hello world}\n[/OUTPUT]', "output")
    assert repaired.value == {"output": "hello world"} and repaired.repaired == 1
    assert not extract_json_answer("no tags here", "output").ok
    assert extract_json_answer('[input]{"args": {}}', "input").value == {"args": {}}


def test_official_compare_quirks_and_strict() -> None:
    # the correct-prefix hole: a shorter non-empty list is scored on its prefix
    assert official_score([1, 2], [1, 2, 3]) == (1, 1.0)
    assert strict_score([1, 2], [1, 2, 3]) == (0, 0.0)
    # a longer list zeroes it in both
    assert official_score([1, 2, 3, 4], [1, 2, 3])[0] == 0
    # the exact type() check: 1.0 is not 1, True is not 1
    assert official_score(1.0, 1) == (0, 0.0)
    assert official_score(True, 1) == (0, 0.0)
    assert strict_score(True, 1) == (0, 0.0)
    # strings are stripped officially, exact strictly
    assert official_score(" hi ", "hi") == (1, 1.0)
    assert strict_score(" hi ", "hi") == (0, 0.0)
    # an extra dict key zeroes the dict; a missing one is one wrong leaf
    assert official_score({"a": 1, "b": 2, "c": 3}, {"a": 1, "b": 2}) == (0, 0.0)
    assert official_score({"a": 1}, {"a": 1, "b": 2}) == (0, 0.5)
    # a predicted string of another type is "evaluated" (a literal only, never run)
    assert official_score("5", 5) == (1, 1.0)
    assert official_score("{'a': [1]}", {"a": [1]}) == (1, 1.0)
    # ... but a "[...]" string holding a digit is sniffed as a NumPy dump of floats
    assert official_score("[1, 2]", [1, 2]) == (0, 0.0)
    assert official_score("[1, 2]", [1.0, 2.0]) == (1, 1.0)
    assert official_score("__import__('os').getcwd()", "x") == (0, 0.0)
    assert strict_score("[1, 2]", [1, 2]) == (0, 0.0)
    assert strict_score({"x": [1, {"y": "z"}]}, {"x": [1, {"y": "z"}]}) == (1, 1.0)


def test_loop_and_branch_compare() -> None:
    truth = {"3": {"n": [1, 2, 3], "out": [[], [2], [2]]}}
    loose = parse_loop_answer(
        "[ANSWER]\n3 for n in nums: [STATE]n=[1.0, 2, 3][/STATE] "
        "[STATE]out=([], [2], [2])[/STATE]\n[/ANSWER]"
    )
    assert compare_loop(loose.states, truth) == (1, 1.0)  # == and tuples read as lists
    assert compare_loop(loose.states, truth, strict=True) == (0, 0.0)
    assert compare_loop({}, truth) == (0, 0.0)
    branch = parse_branch_answer(
        "[ANSWER]\n4 if n % 2: ## [BRANCH]taken=[Y, 'N', maybe, y][/BRANCH]\n[/ANSWER]"
    )
    assert branch.taken == {"4": [True, False, True]} and branch.dropped == ["4:maybe"]
    assert compare_branch(branch.taken, {"4": [True, False, True], "9": [False]}) == (0, 0.5)


def _score(engine: Engine, item: Any, task: str, answers: list[str]) -> dict[str, list[str]]:
    out = {}
    for mode, scorer in BENCH.scorers(task, "direct", None).items():
        result = score_sample(scorer, item, answers, engine)
        out[mode] = [v.label for v in result.verdicts]
    return out


def _io(tag: str, value: Any) -> str:
    return f"[THOUGHT]\nthinking\n[/THOUGHT]\n[{tag}]\n```\n{json.dumps(value)}\n```\n[/{tag}]"


def test_output_scoring_both_modes(checkout: Path, engine: Engine) -> None:
    item = _items(checkout, "output")["sample_7"]
    labels = _score(
        engine,
        item,
        "output",
        [
            _io("OUTPUT", {"output": [2, 6]}),  # right
            _io("OUTPUT", {"output": [2]}),  # correct prefix: official full marks
            _io("OUTPUT", {"output": [2.0, 6.0]}),  # floats: the type check fails both
            "I cannot tell.",  # no answer
        ],
    )
    assert labels["official"] == [
        "passed",
        "passed",
        "wrong:partial=0.0000",
        "wrong:no_marker,partial=0.0000",
    ]
    assert labels["strict"] == [
        "passed",
        "wrong:partial=0.0000",
        "wrong:partial=0.0000",
        "unparseable:no_marker",
    ]


def test_input_misses_are_re_executed(checkout: Path, engine: Engine) -> None:
    items = _items(checkout, "input")
    other = {"self": {}, "args": {"nums": [1, 3]}, "kwargs": {}}  # also gives [2, 6]
    labels = _score(
        engine,
        items["sample_7"],
        "input",
        [_io("INPUT", other), _io("INPUT", {"self": {}, "args": {"nums": [4]}, "kwargs": {}})],
    )
    assert labels["official"][0] == "passed" and labels["strict"][0] == "passed"
    assert labels["official"][1].startswith("wrong") and labels["strict"][1].startswith("wrong")
    # pair() returns a tuple; the record holds [5, 6]: upstream's str() check can never
    # match "(5, 6)", strict compares the returned value (tuples read as lists)
    labels = _score(
        engine,
        items["HumanEval_3"],
        "input",
        [_io("INPUT", {"self": {}, "args": {"a": 3, "b": 2}, "kwargs": {}})],
    )
    assert labels["official"][0].startswith("wrong") and labels["strict"] == ["passed"]
    # a method: the object is rebuilt from the predicted attributes
    labels = _score(
        engine,
        items["ClassEval_5@Counter.bump"],
        "input",
        [_io("INPUT", {"self": {"count": 4}, "args": {"k": 1}, "kwargs": {}})],
    )
    assert labels == {"official": ["passed"], "strict": ["passed"]}
    # SWE-bench problems are not re-executed officially (upstream's own harness)
    labels = _score(
        engine,
        items["proj__proj-1@@text.happy.py@@clean"],
        "input",
        [_io("INPUT", {"self": {}, "args": {"text": "HI"}, "kwargs": {}})],
    )
    assert labels["official"][0].startswith("wrong:partial_not_rerun")
    assert labels["strict"] == ["passed"]


def test_input_rerun_never_runs_the_answer_in_the_host(
    checkout: Path, engine: Engine, tmp_path: Path
) -> None:
    marker = tmp_path / "pwned"
    item = _items(checkout, "input")["sample_7"]
    hostile = {
        "self": {},
        "args": {"nums": f"__import__('pathlib').Path('{marker}').touch()"},
        "kwargs": {},
    }
    labels = _score(engine, item, "input", [_io("INPUT", hostile)])
    assert all(label[0].startswith(("wrong", "exception")) for label in labels.values())
    assert not marker.exists()


def test_metrics_average_rs_and_partial_rs_per_difficulty() -> None:
    records = [
        {
            "id": "easy/a",
            "official": [True],
            "strict": [False],
            "n": 1,
            "generations": [{"official": "passed", "strict": "wrong:partial=0.5000"}],
        },
        {
            "id": "difficult/b",
            "official": [False],
            "strict": [False],
            "n": 1,
            "generations": [{"official": "wrong:partial=0.2500", "strict": "unparseable:json"}],
        },
    ]
    metrics = BENCH.metrics(records, "output")
    assert metrics["official"] == {
        "total_rs": 50.0,
        "total_partial_rs": 62.5,
        "easy_rs": 100.0,
        "easy_partial_rs": 100.0,
        "difficult_rs": 0.0,
        "difficult_partial_rs": 25.0,
    }
    assert metrics["strict"]["total_partial_rs"] == 25.0


def test_avatar_records_hold_the_fed_input_as_they_are(checkout: Path) -> None:
    io = _items(checkout, "input")
    assert io["atcoder_ABC001_A"].inputs == "3 4" and io["atcoder_ABC001_A"].output == 12
    assert io["codeforces_7_A"].inputs == 10 and io["codeforces_7_A"].output == 3
    assert io["codeforces_7_A"].name is None


def test_avatar_input_official_re_executes_on_stdin_and_strict(
    checkout: Path, engine: Engine
) -> None:
    item = _items(checkout, "input")["atcoder_ABC001_A"]
    labels = _score(
        engine,
        item,
        "input",
        [
            _io("INPUT", {"input": "2 6"}),  # another input with the same output
            _io("INPUT", {"input": "3 4"}),  # the recorded one: str(truth) == fed text,
            # which upstream's detector refuses, and the dict never equals the string
            _io("INPUT", {"input": "5 5"}),  # wrong
        ],
    )
    assert labels["official"] == [
        "passed",
        "wrong:partial=0.0000",
        "wrong:partial=0.0000",
    ]
    output = _items(checkout, "output")["codeforces_7_A"]
    labels = _score(engine, output, "output", [_io("OUTPUT", {"output": 3})])
    assert labels == {"official": ["passed"], "strict": ["passed"]}


def test_official_reads_the_first_output_tag_even_inside_a_thought(
    checkout: Path, engine: Engine, tmp_path: Path
) -> None:
    """Upstream reads the whole response; the score runner hands scorers the final part:
    the official scorer gets the whole texts from the generations file."""
    from execlens.bench import run_score

    thinker = (
        '<think>\nDrafting: [OUTPUT]\n```\n{"output": [2, 6]}\n```\n[/OUTPUT]\n'
        'on reflection no.\n</think>\n[OUTPUT]\n```\n{"output": [6]}\n```\n[/OUTPUT]'
    )
    plain = _io("OUTPUT", {"output": [2, 6]})
    answers = {item.sample_id: ["", ""] for item in _items(checkout, "output").values()}
    answers["easy/sample_7"] = [thinker, plain]
    path = tmp_path / "generations.json"
    path.write_text(json.dumps(answers))
    generations = BENCH.read_generations(path, str(checkout), "output")
    result = run_score(tmp_path / "run", BENCH, generations, engine=engine)
    (sample,) = [
        s
        for s in map(json.loads, (tmp_path / "run" / "samples.jsonl").read_text().splitlines())
        if s["id"] == "easy/sample_7"
    ]
    assert [g["official"] for g in sample["generations"]] == ["passed", "passed"]
    # strict reads the final part only: [6] is wrong there
    assert [g["strict"] for g in sample["generations"]] == ["wrong:partial=0.0000", "passed"]
    assert result.results["modes"]["official"]["solved"] == 1


def test_upstreams_reader_quirks_and_bounds() -> None:
    # a decoding error at the very end: upstream's repair indexes past the end and raises
    cut = extract_json_answer('[OUTPUT]\n{"output": [1, 2\n[/OUTPUT]', "output")
    assert cut.status == "repair_index_error" and not cut.ok
    # one quoting pass repairs a bare word, as upstream's does
    fixed = extract_json_answer('[OUTPUT]\n{"output": hello world, "n": 1}\n[/OUTPUT]', "output")
    assert fixed.value == {"output": "hello world", "n": 1} and fixed.repaired == 1
    # an unquoted key: each pass re-quotes the value before it, doubling its backslashes
    # (upstream's loop ran minutes and gigabytes on released answers like this one)
    runaway = '[INPUT]\n{\n    "self": {},\n    "args": {"a": 10},\n    kwargs: {}\n}\n[/INPUT]'
    answer = extract_json_answer(runaway, "input")
    assert answer.status == "repair_runaway" and not answer.ok and answer.repaired > 5
    # JSON null decodes, but upstream's parse_results records it as {}: official wrong
    null = extract_json_answer("[OUTPUT]\nnull\n[/OUTPUT]", "output")
    assert null.ok and null.value is None


def test_an_answer_read_as_null_is_not_a_none_truth(checkout: Path, engine: Engine) -> None:
    item = _items(checkout, "output")["sample_7"]
    none_item = type(item)(**{**item.__dict__, "output": None})
    labels = _score(
        engine,
        none_item,
        "output",
        ["[OUTPUT]\nnull\n[/OUTPUT]", "no answer", _io("OUTPUT", {"output": None})],
    )
    assert labels["official"] == [
        "wrong:null_read_as_empty,partial=0.0000",
        "wrong:no_marker,partial=0.0000",
        "passed",
    ]
    assert labels["strict"] == ["passed", "unparseable:no_marker", "passed"]
