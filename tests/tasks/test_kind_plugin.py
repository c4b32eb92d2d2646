"""A new question kind is one module, and nothing else is edited (issue 24, item 2).

The test writes the module ``steps_kind.py`` (how many line executions does the call
make?) into ``tmp_path`` and names it in ``$EXECLENS_PLUGINS``.  Then, each in a fresh
process as a user runs it: ``execlens tasks build`` builds its questions, ``execlens
eval --benchmark runtime`` asks them of a stand-in model server (an oracle reading the
built truth) and scores them, synthesis' ``runtime-tasks`` stage writes them as SFT
records, ``execlens export`` writes the TRL and verl datasets, and the TRL and verl
reward adapters pay the right answer and not a wrong one.  The question is worded the
same everywhere: the kind's shown program and question appear in the eval prompt, and
the SFT record's user turn is the exported TRL and verl prompts' user turn.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from ..standin_model import StandInModel, user_message

LIMIT = 3

PLUGIN = '''
"""How many line executions does the call make?  (A question kind in one module.)"""

from execlens.tasks import trace_reference
from execlens.tasks.kinds import KindBase, register_kind, run_phrase


def _judge(task, answer):
    from execlens.judge import Verdict, VerdictStatus

    text = str(answer).strip()
    if not text.isdigit():
        return Verdict.failing(VerdictStatus.UNPARSEABLE, "count", f"not a count: {text!r}")
    if int(text) == task.reference:
        return Verdict.passing()
    return Verdict.failing(VerdictStatus.WRONG, "count", "another number of steps")


class StepsKind(KindBase):
    name = "steps"
    scope = "run"
    numbering = "prefix"
    answer_form = ("the number of line executions as a whole number", "12")
    judge_rule = staticmethod(_judge)
    description = "how many line executions the call makes"

    def run_reference(self, program, trace):
        steps = trace_reference(trace) if trace.mode == "exact" and not program.test else None
        return None if steps is None else len(steps)

    def question(self, task):
        return f"When {run_phrase(task)} runs, how many line executions does it make?"

    def answer_text(self, task):
        return str(task.reference)

    def well_formed(self, task, answer):
        return answer.isdigit()


KIND = register_kind(StepsKind())
'''

SYNTH = """
import json, sys
from execlens.synth import StageContext, SynthConfig
from execlens.synth.stages._runtime_tasks import RuntimeTasksStage

collected, data = json.loads(sys.argv[1]), sys.argv[2]
config = SynthConfig.model_validate({
    "out": "unused", "sources": [{"path": data}], "stages": ["collect", "runtime-tasks"],
    "runtime_tasks": {"kinds": ["steps"], "pairs_per_function": 1, "max_tasks_per_pair": 1},
})
for record in RuntimeTasksStage(StageContext(config)).run(collected, 0, 1):
    print(json.dumps(record, sort_keys=True))
"""

REWARD = """
import json, sys
import pyarrow.parquet as pq
from execlens.rewards import ExeclensReward, compute_score

trl = pq.read_table(sys.argv[1]).to_pylist()
verl = pq.read_table(sys.argv[2]).to_pylist()
right = [f"[ANSWER]{json.loads(r['ground_truth'])['reference']}[/ANSWER]" for r in trl]
wrong = [f"[ANSWER]{json.loads(r['ground_truth'])['reference'] + 1}[/ANSWER]" for r in trl]
truths = [r["ground_truth"] for r in trl]
reward = ExeclensReward()
print(json.dumps({
    "trl_right": reward(prompts=["?"] * len(trl), completions=right, ground_truth=truths),
    "trl_wrong": reward(prompts=["?"] * len(trl), completions=wrong, ground_truth=truths),
    "verl_right": [compute_score(r["data_source"], a, r["reward_model"]["ground_truth"])["score"]
                   for r, a in zip(verl, right)],
    "verl_wrong": [compute_score(r["data_source"], a, r["reward_model"]["ground_truth"])["score"]
                   for r, a in zip(verl, wrong)],
}))
"""

WORDING = """
import json, sys
from execlens.tasks import Task
from execlens.tasks.kinds import get_kind, task_prompt

for line in open(sys.argv[1]):
    task = Task.from_json(line.strip()) if line.startswith("{") else None
    if task is None:
        continue
    kind = get_kind(task.kind)
    print(json.dumps({"call": task.call, "shown": kind.show_program(task),
                      "question": kind.question(task), "prompt": task_prompt(task)}))
"""


def _env(tmp_path: Path) -> dict[str, str]:
    src = Path(__file__).resolve().parents[2] / "src"
    path = os.pathsep.join(p for p in (str(tmp_path), str(src), os.environ.get("PYTHONPATH")) if p)
    return {
        **os.environ,
        "PYTHONPATH": path,
        "EXECLENS_PLUGINS": "steps_kind",
        "EXECLENS_CACHE_DIR": str(tmp_path / "request-cache"),
        "EXECLENS_TRUTH_CACHE_DIR": str(tmp_path / "truth-cache"),
    }


def _run(env: dict[str, str], *args: str, python: bool = False) -> str:
    command = [sys.executable, *args] if python else [sys.executable, "-m", "execlens", *args]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _collected(data: Path) -> list[dict[str, Any]]:
    """The first CRUXEval programs as ``collect`` records (``f`` as ``main_solution``)."""
    import ast

    from execlens.values import parse_call

    out = []
    for row in _rows(data):
        function = ast.parse(row["code"]).body[0]
        if not isinstance(function, ast.FunctionDef) or function.args.vararg:
            continue
        call = parse_call(f"f({row['input']})")
        names = [a.arg for a in function.args.args]
        if len(call.args) != len(names) or call.kwargs or "f(" in row["code"].split(":", 1)[1]:
            continue
        out.append(
            {
                "id": row["id"],
                "refcode": row["code"].replace("def f(", "def main_solution(", 1),
                "pairs": [{"input": dict(zip(names, call.args)), "output": None}],
            }
        )
        if len(out) == LIMIT:
            return out
    return out


@pytest.fixture
def cruxeval(data_dir: Path) -> Path:
    path = data_dir / "cruxeval" / "cruxeval.jsonl"
    if not path.is_file():
        pytest.skip(f"{path} is missing")
    return path


def test_a_kind_in_one_module_is_built_asked_synthesized_exported_and_rewarded(
    tmp_path: Path, cruxeval: Path
) -> None:
    (tmp_path / "steps_kind.py").write_text(textwrap.dedent(PLUGIN))
    env = _env(tmp_path)

    # tasks build: the plug-in kind is a --kinds choice and gets its truth from the trace.
    built = tmp_path / "tasks.jsonl"
    _run(
        env,
        "tasks",
        "build",
        str(cruxeval),
        "--out",
        str(built),
        "--kinds",
        "steps",
        "--limit",
        str(LIMIT),
        "--workers",
        "1",
    )
    tasks = _rows(built)
    assert len(tasks) == LIMIT and {t["kind"] for t in tasks} == {"steps"}
    assert all(type(t["reference"]) is int and t["reference"] > 0 for t in tasks)
    truth = {t["call"]: t["reference"] for t in tasks}

    # eval --benchmark runtime: an oracle reading the built truth scores 100 %.
    prompts: list[str] = []

    def oracle(body: dict[str, Any]) -> str:
        prompt = user_message(body)
        prompts.append(prompt)
        found = re.findall(r"\[QUESTION\]\nWhen `(.*)` runs", prompt)
        return f"[ANSWER]\n{truth.get(found[-1], -1) if found else '?'}\n[/ANSWER]"

    with StandInModel(oracle) as server:
        _run(
            env,
            "eval",
            "--benchmark",
            "runtime",
            "--task",
            "steps",
            "--data",
            str(cruxeval),
            "--model",
            "fake-model",
            "--base-url",
            server.base_url,
            "--limit",
            str(LIMIT),
            "--out",
            str(tmp_path / "eval"),
        )
    results = json.loads((tmp_path / "eval" / "results.json").read_text())
    assert results["metrics"]["strict"] == {"accuracy": 100.0}, results["metrics"]
    assert len(prompts) == LIMIT

    # runtime-tasks: SFT records of the new kind, answered in its form.
    records = [
        json.loads(line)
        for line in _run(
            env, "-c", SYNTH, json.dumps(_collected(cruxeval)), str(cruxeval), python=True
        ).splitlines()
    ]
    assert len(records) == LIMIT and {r["kind"] for r in records} == {"steps"}
    synthesized = tmp_path / "runtime_tasks.jsonl"
    synthesized.write_text("".join(json.dumps(r) + "\n" for r in records))

    # export: TRL and verl datasets of the synthesized tasks, then both reward adapters.
    _run(env, "export", str(synthesized), "--out", str(tmp_path / "export"), "--no-decontaminate")
    rewards = json.loads(
        _run(
            env,
            "-c",
            REWARD,
            str(tmp_path / "export" / "trl.parquet"),
            str(tmp_path / "export" / "verl.parquet"),
            python=True,
        ).splitlines()[-1]
    )
    assert rewards["trl_right"] == rewards["verl_right"] == [1.0] * LIMIT, rewards
    assert rewards["trl_wrong"] == rewards["verl_wrong"] == [0.0] * LIMIT, rewards

    # One wording: the SFT user turn is the TRL and verl prompts' user turn, and the eval
    # prompt asks the same question about the same shown program.
    import pyarrow.parquet as pq

    by_truth = {r["ground_truth"]: r["messages"][0]["content"] for r in records}
    for name in ("trl", "verl"):
        rows = pq.read_table(tmp_path / "export" / f"{name}.parquet").to_pylist()
        assert len(rows) == LIMIT
        for row in rows:
            truth_json = (
                row["ground_truth"] if name == "trl" else row["reward_model"]["ground_truth"]
            )
            task = json.loads(truth_json)
            sft = next(p for t, p in by_truth.items() if json.loads(t)["call"] == task["call"])
            assert row["prompt"][-1]["content"] == sft
    # ... and each is the kind's own wording of its task (read in a fresh process, so
    # that this one's registry never holds the plug-in).
    truths = tmp_path / "truths.jsonl"
    truths.write_text("".join(r["ground_truth"] + "\n" for r in records))
    for record, wording in zip(records, _wordings(env, truths)):
        assert record["messages"][0]["content"] == wording["prompt"]
        assert "how many line executions" in wording["question"]
    built_wording = {w["call"]: w for w in _wordings(env, built)}
    for prompt in prompts:
        asked = re.findall(r"\[QUESTION\]\nWhen `(.*)` runs", prompt)[-1]
        wording = built_wording[asked]
        assert f"[PYTHON]\n{wording['shown']}\n[/PYTHON]" in prompt
        assert f"[QUESTION]\n{wording['question']}\n[/QUESTION]" in prompt
        assert wording["shown"].startswith("1 ")  # the kind's numbered program


def _wordings(env: dict[str, str], path: Path) -> list[dict[str, Any]]:
    return [
        json.loads(line) for line in _run(env, "-c", WORDING, str(path), python=True).splitlines()
    ]
