"""A new benchmark is one module: rows -> ``Task`` and an official scorer; strict is free.

The test writes a third party's benchmark module into ``tmp_path`` (nothing else in the
tree is edited), names it in ``EXECLENS_PLUGINS``, and runs the real CLI on it:
``execlens eval`` against the stand-in model server, then ``execlens score`` on the
generations the eval wrote.  The official verdicts are the module's (an exact text
match); the strict ones come from the core (the judge parses the answer as a literal,
and re-executes an input prediction in the engine), so the two modes differ exactly
where a text match and the program disagree.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from ..standin_model import StandInModel, user_message

MODULE = '''
"""A made-up benchmark: predict what f returns (or a call giving an output)."""

import json

from execlens.bench import TASK_STYLES, TaskBenchmark, TaskSpec
from execlens.judge import SampleScore, ScorePlan, Verdict, VerdictStatus
from execlens.tasks import Task


class TextMatch:
    """The official rule: the answer's text equals the reference text, nothing run."""

    name = "official"

    def __init__(self, field: str) -> None:
        self.field = field

    def plan(self, task, generations):
        wanted = task.meta[self.field]

        def finish(outcomes):
            verdicts = [
                Verdict(True, VerdictStatus.PASSED)
                if text.strip() == wanted
                else Verdict(False, VerdictStatus.WRONG, "text differs")
                for text in generations
            ]
            return SampleScore(task.id, self.name, verdicts, [v.passed for v in verdicts])

        return ScorePlan([], finish)


class Squares(TaskBenchmark):
    name = "squares"
    description = "what does f return, and which call returns this?"
    tasks = {
        "output": TaskSpec("output", TASK_STYLES, "f's return value"),
        "input": TaskSpec("input", TASK_STYLES, "a call returning the output"),
    }

    def load(self, data):
        out = []
        with open(data, encoding="utf-8") as handle:
            for line in handle:
                row = json.loads(line)
                meta = {"output": row["output"], "input": row["call"]}
                for kind in ("output", "input"):
                    out.append(
                        Task(kind, row["code"], row["output"], function="f", call=row["call"],
                             id=f"{row['id']}-{kind}", meta=meta)
                    )
        return out

    def official(self, task):
        return TextMatch(task)


BENCHMARK = Squares()
'''

ROWS = [
    {"id": "a", "code": "def f(x):\n    return [x, x * x]", "call": "f(3)", "output": "[3, 9]"},
    {"id": "b", "code": "def f(x):\n    return x * x", "call": "f(2)", "output": "4"},
    {"id": "c", "code": "def f(s):\n    return s + '!'", "call": "f('hi')", "output": "'hi!'"},
]

#: What the stand-in model answers to each call's output question: a spacing the text
#: match refuses and the program accepts (a), the exact text (b), a wrong value (c).
OUTPUT_ANSWERS = {"f(3)": "[3,9]", "f(2)": "4", "f('hi')": "'hi'"}


def _environment(tmp_path: Path) -> dict[str, str]:
    src = Path(__file__).resolve().parents[2] / "src"
    path = os.pathsep.join([str(tmp_path), str(src), os.environ.get("PYTHONPATH", "")])
    return {
        **os.environ,
        "PYTHONPATH": path,
        "EXECLENS_PLUGINS": "squares_bench",
        "EXECLENS_CACHE_DIR": str(tmp_path / "request-cache"),
        "COLUMNS": "200",
    }


def _execlens(tmp_path: Path, *args: str) -> dict[str, Any]:
    """Run the CLI in a fresh interpreter (the plug-in is imported there); the run's
    ``results.json``."""
    done = subprocess.run(
        [sys.executable, "-m", "execlens", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env=_environment(tmp_path),
    )
    assert done.returncode == 0, done.stderr
    out = Path(args[args.index("--out") + 1])
    result: dict[str, Any] = json.loads((out / "results.json").read_text(encoding="utf-8"))
    return result


def _answer(body: dict[str, Any]) -> str:
    prompt = user_message(body)
    call = next(c for c in OUTPUT_ANSWERS if c in prompt)
    return f"[ANSWER]\nassert {call} == {OUTPUT_ANSWERS[call]}\n[/ANSWER]"


def _verdicts(run: Path) -> dict[str, tuple[bool, bool]]:
    lines = (run / "samples.jsonl").read_text(encoding="utf-8").splitlines()
    return {(s := json.loads(line))["id"]: (s["official"][0], s["strict"][0]) for line in lines}


@pytest.mark.slow
def test_a_benchmark_module_with_load_and_an_official_scorer_runs_eval_and_score(
    tmp_path: Path,
) -> None:
    (tmp_path / "squares_bench.py").write_text(textwrap.dedent(MODULE), encoding="utf-8")
    data = tmp_path / "squares.jsonl"
    data.write_text("".join(json.dumps(row) + "\n" for row in ROWS), encoding="utf-8")

    with StandInModel(_answer) as server:
        evaluated = _execlens(
            tmp_path,
            "eval",
            "--benchmark",
            "squares",
            "--task",
            "output",
            "--data",
            str(data),
            "--model",
            "stand-in",
            "--base-url",
            server.base_url,
            "--out",
            str(tmp_path / "eval"),
        )
    assert evaluated["benchmark"] == "squares"
    expected = {"a-output": (False, True), "b-output": (True, True), "c-output": (False, False)}
    assert _verdicts(tmp_path / "eval") == expected
    assert evaluated["metrics"]["official"]["pass@1"] < evaluated["metrics"]["strict"]["pass@1"]

    # `execlens score` on the responses the eval wrote: the same verdicts.
    lines = (tmp_path / "eval" / "samples.jsonl").read_text(encoding="utf-8").splitlines()
    generations = tmp_path / "generations.json"
    generations.write_text(json.dumps({(s := json.loads(x))["id"]: s["responses"] for x in lines}))
    _execlens(
        tmp_path,
        "score",
        str(generations),
        "--benchmark",
        "squares",
        "--task",
        "output",
        "--data",
        str(data),
        "--out",
        str(tmp_path / "scored"),
    )
    assert _verdicts(tmp_path / "scored") == expected

    # Input prediction: strict re-executes the call in the engine (f(-2) returns 4 too),
    # the official text match wants the data's own call.
    answers = {"a-input": ["f(3)"], "b-input": ["f(-2)"], "c-input": ["f('no')"]}
    generations.write_text(json.dumps(answers))
    _execlens(
        tmp_path,
        "score",
        str(generations),
        "--benchmark",
        "squares",
        "--task",
        "input",
        "--data",
        str(data),
        "--out",
        str(tmp_path / "inputs"),
    )
    assert _verdicts(tmp_path / "inputs") == {
        "a-input": (True, True),
        "b-input": (False, True),
        "c-input": (False, False),
    }
