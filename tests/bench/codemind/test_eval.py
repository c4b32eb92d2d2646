"""``execlens eval --benchmark codemind`` end to end: a stand-in server (the client,
runner, engine and judges are real) gives right, wrong and hostile answers."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from execlens.bench import EvalConfig, get_benchmark, run_eval
from execlens.engine import Engine

from ...standin_model import StandInModel, user_message

PWNED = "/tmp/execlens-codemind-pwned"


def _by_prompt(task: str, limit: int, answer: Callable[[int, Any], str]) -> dict[str, str]:
    """The reply to each planned item's prompt: ``answer(position, item)``."""
    bench = get_benchmark("codemind")
    items = bench.plan(bench.load(None), task, limit=limit, offset=0)[0][1]
    return {
        bench.render(item, task, "direct").text: answer(i, item) for i, item in enumerate(items)
    }


def _run(
    tmp_path: Path, engine: Engine, task: str, replies: dict[str, str]
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    with StandInModel(lambda body: replies[user_message(body)]) as server:
        config = EvalConfig(
            benchmark="codemind",
            task=task,
            model="stand-in",
            base_url=server.base_url,
            limit=len(replies),
            retries=0,
        )
        result = run_eval(config, tmp_path / task, show_progress=False, engine=engine)
    samples = [
        json.loads(line) for line in (tmp_path / task / "samples.jsonl").read_text().splitlines()
    ]
    return result.results, samples


def _ier(output: str) -> str:
    return f"<<<Analysis>>>\nStep by step.\n<<<Output>>>\n{output}\n[END-OF-RESPONSE]"


def test_ier_right_wrong_and_hostile_answers(
    tmp_path: Path, engine: Engine, request_cache: Path
) -> None:
    hostile = [
        lambda item: _ier(item.output),  # right
        lambda item: _ier("'certainly not this'"),  # wrong
        lambda item: _ier(f"__import__('os').system('touch {PWNED}')"),  # runs code
        lambda item: _ier("type('E', (), {'__eq__': lambda s, o: True})()"),  # always equal
        lambda item: _ier("[" + "1," * 500_000 + "]"),  # 1 MB (one "token": nothing cuts it)
        lambda item: _ier(item.output.replace("'", '"') + "  "),  # official's quirks: equal
    ]
    replies = _by_prompt("ier-cruxeval", len(hostile), lambda i, item: hostile[i](item))
    results, samples = _run(tmp_path, engine, "ier-cruxeval", replies)
    labels = [(s["generations"][0]["official"], s["generations"][0]["strict"]) for s in samples]
    assert labels[0] == ("passed", "passed")
    assert labels[1] == ("wrong:string", "wrong:value")
    assert labels[2] == ("wrong:string", "unparseable:call")
    assert labels[3] == ("wrong:string", "unparseable:call")
    assert labels[4] == ("wrong:string", "unparseable:too_long")
    assert labels[5][0] == "passed"
    assert not Path(PWNED).exists()  # nothing the model wrote ran
    passed_strict = sum(label[1] == "passed" for label in labels)
    assert results["metrics"] == {
        "official": {"accuracy": round(100 * 2 / 6, 2)},
        "strict": {"accuracy": round(100 * passed_strict / 6, 2)},
    }


def test_ier_strict_judges_classeval_against_the_engines_value(
    tmp_path: Path, engine: Engine, request_cache: Path
) -> None:
    # ClassEval's output.txt is str(value): the bare text would pass upstream's string
    # rule, the literal too (it strips one quote from each end); but get_result skips
    # every id holding a dot -- all of ClassEval's -- and then divides by zero: official
    # keeps that (skipped, no accuracy).  The literal passes strict.
    def answer(i: int, item: Any) -> str:
        return _ier(item.output if i == 0 else repr(item.output))

    bench = get_benchmark("codemind")
    items = bench.plan(bench.load(None), "ier-classeval", limit=None, offset=0)[0][1]
    offset = next(
        i for i, item in enumerate(items) if item.sample_id == "ClassEval_80@SQLQueryBuilder.delete"
    )
    chosen = items[offset : offset + 2]
    replies = {
        bench.render(item, "ier-classeval", "direct").text: answer(i, item)
        for i, item in enumerate(chosen)
    }
    with StandInModel(lambda body: replies[user_message(body)]) as server:
        config = EvalConfig(
            benchmark="codemind",
            task="ier-classeval",
            model="stand-in",
            base_url=server.base_url,
            limit=2,
            offset=offset,
            retries=0,
        )
        result = run_eval(config, tmp_path / "c", show_progress=False, engine=engine)
    samples = [
        json.loads(line) for line in (tmp_path / "c" / "samples.jsonl").read_text().splitlines()
    ]
    assert [(s["generations"][0]["official"], s["generations"][0]["strict"]) for s in samples] == [
        ("skipped:dotted_id", "unparseable:syntax"),
        ("skipped:dotted_id", "passed"),
    ]
    assert "accuracy" not in result.results["metrics"]["official"]
    assert result.results["metrics"]["strict"]["accuracy"] == 50.0
    assert any("cannot score" in flag for flag in result.results.get("flags", []))


def _sr(code: str) -> str:
    return f"Here it is.\n```python\n{code}\n```\n"


def test_sr_right_wrong_and_hostile_programs(
    tmp_path: Path, engine: Engine, request_cache: Path
) -> None:
    always_equal = (
        "class E:\n    def __eq__(self, other):\n        return True\n"
        "    def __ne__(self, other):\n        return False\n\n"
        "def {name}(*args, **kwargs):\n    return E()"
    )
    programs = [
        lambda item: _sr(item.code),  # right (HumanEval's canonical solution)
        lambda item: _sr(f"def {item.entry_point}(*args):\n    return None"),  # wrong
        lambda item: _sr("import sys\nsys.exit(0)"),  # exits before the tests
        lambda item: _sr(always_equal.format(name=item.entry_point)),  # fools ==
        lambda item: "no-code-block-here" * 60_000,  # ~1 MB in one "token", no program
        lambda item: _sr(f"import sys\nprint('debug', file=sys.stderr)\n{item.code}"),
        lambda item: _sr("import os\nos._exit(0)"),  # leaves the process: nothing on stderr
        lambda item: _sr("import os\nos._exit(1)"),  # status 1: upstream reads only stderr
        lambda item: _sr("import sys\nsys.exit('0')"),  # prints 0 to stderr
        lambda item: _sr(  # failing tests, their traceback sent to /dev/null
            "import os, sys\nsys.stderr = open(os.devnull, 'w')\n"
            f"def {item.entry_point}(*args):\n    return None"
        ),
        lambda item: _sr(  # the same at the file-descriptor level
            "import os\nos.dup2(os.open(os.devnull, os.O_WRONLY), 2)\n"
            f"def {item.entry_point}(*args):\n    return None"
        ),
    ]
    replies = _by_prompt("sr", len(programs), lambda i, item: programs[i](item))
    results, samples = _run(tmp_path, engine, "sr", replies)
    labels = [(s["generations"][0]["official"], s["generations"][0]["strict"]) for s in samples]
    assert labels[0] == ("passed", "passed")
    assert labels[1] == ("exception:AssertionError", "exception:AssertionError")
    assert labels[2] == ("passed", "exception:SystemExit")  # upstream's stderr-only rule
    assert labels[3] == ("passed", "wrong:non_plain_return")
    assert labels[4] == ("exception:NameError", "exception:NameError")  # check(<undefined>)
    assert labels[5] == ("wrong:stderr", "wrong:stderr")
    assert labels[6] == ("passed", "crashed")
    assert labels[7] == ("passed", "crashed")
    assert labels[8] == ("exception:exit_status_1", "exception:SystemExit")
    assert labels[9][0] == "passed" and labels[9][1].startswith("exception")
    assert labels[10][0] == "passed" and labels[10][1].startswith("exception")
    assert samples[4]["extraction"] == ["no_code_block"]
    assert results["metrics"] == {
        "official": {"accuracy": round(100 * 7 / 11, 2)},
        "strict": {"accuracy": round(100 / 11, 2)},
    }
