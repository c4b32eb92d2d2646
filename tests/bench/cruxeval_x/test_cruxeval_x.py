"""CRUXEval-X (Python split) on made-up records in upstream's ``py.jsonl`` format (no
upstream data: it has no licence): loader, named errors, prompt, extraction, the
official Python judge with its holes, strict, and ``execlens eval`` end to end."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from execlens.bench import (
    DatasetError,
    DatasetUnavailableError,
    EvalConfig,
    get_benchmark,
    run_eval,
)
from execlens.bench.cruxeval_x import UnsupportedLanguageError, load_cruxeval_x
from execlens.engine import Engine
from execlens.judge import score_sample

from ...standin_model import StandInModel, user_message

BENCH = get_benchmark("cruxeval-x")
_HARNESS_END = "\ndef test_check():\n    check(f)\n\ntest_check()\n"


def _record(ident: int, head: str, call: str, expected: str) -> dict[str, Any]:
    def tail(assertion: str) -> str:
        return f"def check(candidate):\n    assert {assertion}\n{_HARNESS_END}"

    return {
        "id": ident,
        "code": head + tail(f"candidate({call}) == {expected}"),
        "input_reasoning": tail(f"candidate(????) == {expected}"),
        "output_reasoning": tail(f"candidate({call}) == ????"),
    }


RECORDS = [
    _record(
        0,
        "from typing import List, Tuple\n\ndef f(nums: List[int]) -> "
        "List[Tuple[int, int]]:\n    return [(n, n * n) for n in nums if n > 0]\n\n",
        "[2, -1, 3]",
        "[(2, 4), (3, 9)]",
    ),
    _record(3, "def f(s: str) -> str:\n    return s.upper()[::2]\n\n", "'hello'", "'HLO'"),
]


@pytest.fixture
def data(tmp_path: Path) -> Path:
    folder = tmp_path / "cruxeval-x" / "datasets" / "cruxeval_preprocessed"
    folder.mkdir(parents=True)
    (folder / "py.jsonl").write_text("".join(json.dumps(r) + "\n" for r in RECORDS))
    return folder / "py.jsonl"


def test_loads_from_the_file_its_folder_or_the_checkout(data: Path) -> None:
    for where in (data, data.parent, data.parent.parent.parent):
        items = BENCH.load(str(where))
        assert [i.sample_id for i in items] == ["0", "3"]
    assert items[0].head.startswith("from typing import") and "check" not in items[0].head


def test_no_default_source_and_other_languages_are_named(data: Path, tmp_path: Path) -> None:
    with pytest.raises(DatasetUnavailableError, match="has no default source.*--data PATH"):
        BENCH.load(None)
    java = tmp_path / "java.jsonl"
    java.write_text("{}\n")
    with pytest.raises(UnsupportedLanguageError, match="'java' is not supported"):
        BENCH.load(str(java))
    only_rust = tmp_path / "rs_only"
    only_rust.mkdir()
    (only_rust / "rs.jsonl").write_text("{}\n")
    with pytest.raises(UnsupportedLanguageError, match="'rs'"):
        BENCH.load(str(only_rust))
    with pytest.raises(UnsupportedLanguageError):
        load_cruxeval_x(data, language="go")


def test_malformed_records_name_file_line_and_field(tmp_path: Path) -> None:
    good = RECORDS[0]
    rows = [
        good,
        {**good, "id": "1"},
        {**good, "id": 2, "output_reasoning": "no hole"},
        {**good, "id": 4, "code": "def f(): pass\n"},
        "not json",
        {k: v for k, v in good.items() if k != "input_reasoning"} | {"id": 5},
    ]
    path = tmp_path / "py.jsonl"
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    errors = load_cruxeval_x(path).errors
    assert [(e.line, e.field) for e in errors] == [
        (2, "id"),
        (3, "output_reasoning"),
        (4, "code"),
        (5, None),
        (6, "input_reasoning"),
    ]
    assert str(errors[1]).startswith(f"{path}:3: field 'output_reasoning': expected exactly one")
    with pytest.raises(DatasetError, match="py.jsonl:2"):
        BENCH.load(str(path))


def test_prompt_shape_and_extraction(data: Path) -> None:
    item = BENCH.load(str(data))[1]
    prompt = BENCH.render(item, "output", "direct")
    assert prompt.text.count("[ANSWER]\n") == 3 and prompt.text.count("\n[/ANSWER]\n") == 3
    assert prompt.text.endswith(
        "```python\ndef f(s: str) -> str:\n    return s.upper()[::2]\n\n"
        + item.output_reasoning
        + "\n```\n"
    )
    assert prompt.stop == ("[/ANSWER]",) and prompt.sampling.max_tokens == 512
    assert "candidate(????)" in BENCH.render(item, "input", "direct").text
    raw = "thinking [ANSWER] no [ANSWER]\n'HLO'\n"  # the stop string cut [/ANSWER]
    assert BENCH.extract(raw, item, "output", "direct", "openai").text == "'HLO'"
    # upstream removes "[/ANSWER" (no "]"): an uncut closing tag leaves a "]" behind
    assert BENCH.extract(raw + "[/ANSWER]", item, "output", "direct", "openai").text == ("'HLO'\n]")
    assert BENCH.extract("[ANSWER]\n'HLO'\n", item, "output", "direct", "harness").text == "'HLO'"


def _labels(engine: Engine, item: Any, task: str, answers: list[str]) -> dict[str, list[str]]:
    context = BENCH.prepare([item], task, engine)
    return {
        mode: [v.label for v in score_sample(scorer, item, answers, engine).verdicts]
        for mode, scorer in BENCH.scorers(task, "direct", context).items()
    }


def test_output_official_holes_and_strict(data: Path, engine: Engine) -> None:
    item = BENCH.load(str(data))[0]
    labels = _labels(
        engine,
        item,
        "output",
        [
            "[(2, 4), (3, 9)]",  # right
            "[[2, 4], [3, 9]]",  # lists for tuples: the assert fails
            "[] or True",  # upstream's hole: the assert holds
            "candidate([2, -1, 3])",  # the call itself: the assert holds
            "__import__('sys').exit(0)",  # exit status 0: MultiPL-E's OK
            "__import__('os')._exit(0)",  # leaves the process at once, status 0: OK too
            "__import__('sys').exit('0')",  # prints "0" to stderr, status 1: not OK
            "__import__('os')._exit(1)",
        ],
    )
    assert labels["official"][0] == "passed"
    assert labels["official"][1] == "exception:AssertionError"
    assert labels["official"][2:6] == ["passed", "passed", "passed", "passed"]
    assert labels["official"][6:] == ["exception:exit_status_1", "exception:exit_status_1"]
    assert labels["strict"] == [
        "passed",
        "wrong:value",
        "unparseable:boolop",
        "unparseable:call",
        "unparseable:call",
        "unparseable:call",
        "unparseable:call",
        "unparseable:call",
    ]


def test_input_official_and_strict(data: Path, engine: Engine) -> None:
    item = BENCH.load(str(data))[0]
    labels = _labels(
        engine,
        item,
        "input",
        ["f([2, 3])", "f([2, -5, 3])", "f([5])", "f([2, 3]) or True", "[2, 3]"],
    )
    assert labels["official"][:2] == ["passed", "passed"]
    assert labels["official"][2].startswith("exception")
    assert labels["official"][3] == "passed"  # `assert f(..) or True == ...` holds
    assert labels["strict"][:3] == ["passed", "passed", "wrong:value"]
    assert labels["strict"][3:] == ["unparseable:multiple", "unparseable:not_a_call"]


def test_eval_end_to_end(tmp_path: Path, data: Path, engine: Engine, request_cache: Path) -> None:
    items = BENCH.load(str(data))
    answers = {"0": "[ANSWER]\n[(2, 4), (3, 9)]\n[/ANSWER]", "3": "[ANSWER]\n[] or True\n"}
    replies = {BENCH.render(i, "output", "direct").text: answers[i.sample_id] for i in items}
    with StandInModel(lambda body: replies[user_message(body)]) as server:
        config = EvalConfig(
            benchmark="cruxeval-x",
            task="output",
            model="stand-in",
            base_url=server.base_url,
            data=str(data),
            retries=0,
        )
        result = run_eval(config, tmp_path / "run", show_progress=False, engine=engine)
    samples = {
        s["id"]: s
        for s in map(json.loads, (tmp_path / "run" / "samples.jsonl").read_text().splitlines())
    }
    assert samples["0"]["generations"][0] == {"official": "passed", "strict": "passed"}
    assert samples["3"]["generations"][0]["official"] == "passed"
    assert samples["3"]["generations"][0]["strict"] == "unparseable:boolop"
    assert result.results["metrics"]["official"]["pass@1"] == 100.0
    assert result.results["metrics"]["strict"]["pass@1"] == 50.0


def test_strict_output_computes_its_truth_when_none_was_prepared(
    data: Path, engine: Engine
) -> None:
    """``execlens score`` prepares nothing: the strict scorer runs the tail's call itself."""
    item = BENCH.load(str(data))[0]
    scorer = BENCH.scorers("output", "direct", None)["strict"]
    result = score_sample(scorer, item, ["[(2, 4), (3, 9)]", "[[2, 4], [3, 9]]"], engine)
    assert [v.label for v in result.verdicts] == ["passed", "wrong:value"]
