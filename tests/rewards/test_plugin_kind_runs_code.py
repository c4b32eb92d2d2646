"""A plug-in question kind whose judge runs code is rewarded through the engine (issue 24).

The test writes the module ``call_kind.py`` into ``tmp_path`` and names it in
``$EXECLENS_PLUGINS``: its question asks for a call of ``f`` returning a value, and its
judge plans one engine job running the answer's call, passing only when what the run
returns equals the reference (type-strictly).  No answer holds the value itself, so a
right reward needs the engine to have run it: the TRL and verl adapters, each in a fresh
process as a trainer runs them, on this process's judging engine and on judge workers.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

PLUGIN = '''
"""Which call of f returns the value?  (A question kind whose judge runs code.)"""

from execlens.tasks.kinds import KindBase, register_kind


def _judge(task, answer):
    from execlens.engine import Job
    from execlens.judge import JudgePlan, Verdict, VerdictStatus, failure_verdict

    def finish(outcomes):
        outcome = outcomes[0]
        if not outcome.ok:
            return failure_verdict(outcome)
        value = outcome.decoded()
        if type(value) is type(task.reference) and value == task.reference:
            return Verdict.passing(detail="the run returned the value")
        return Verdict.failing(VerdictStatus.WRONG, "value", f"the run returned {value!r}")

    return JudgePlan([Job(program=task.program, call=str(answer).strip())], finish)


class CallKind(KindBase):
    name = "call_that"
    scope = "given"
    answer_form = ("one call of f returning that value", "f(1)")
    judge_rule = staticmethod(_judge)
    description = "a call of f that returns the value asked for"

    def question(self, task):
        return f"Write a call of f that returns {task.reference!r}."

    def answer_text(self, task):
        return str(task.meta["call"])

    def well_formed(self, task, answer):
        return bool(answer.strip())


KIND = register_kind(CallKind())
'''

REWARD = """
import json, sys
from execlens.rewards import ExeclensReward, compute_score
from execlens.tasks import Task

task = Task(kind="call_that", program="def f(x):\\n    return x * x + 1\\n", reference=10,
            meta={"call": "f(3)"})
truth = task.to_json()
answers = json.loads(sys.argv[1])
completions = [f"[ANSWER]\\n{a}\\n[/ANSWER]" for a in answers]
reward = ExeclensReward()
verl = compute_score(data_sources=["t"] * len(answers), solution_strs=completions,
                     ground_truths=[truth] * len(answers))
print(json.dumps({
    "trl": reward(prompts=["?"] * len(answers), completions=completions,
                  ground_truth=[truth] * len(answers)),
    "verl": [row["score"] for row in verl],
    "verdicts": [row["verdict"] for row in verl],
}))
"""

#: answer -> whether it earns the reward: only the runs returning int 10 do.
ANSWERS = {
    "f(3)": True,
    "f(-3)": True,
    "f(2)": False,  # returns 5
    "f(3.0)": False,  # returns 10.0: equal under ==, not the same type
    "g(3)": False,  # NameError in the run
    "10": True,  # the value itself is a call-free expression that returns it too
}


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    src = Path(__file__).resolve().parents[2] / "src"
    path = os.pathsep.join(p for p in (str(tmp_path), str(src), os.environ.get("PYTHONPATH")) if p)
    return {**os.environ, "PYTHONPATH": path, "EXECLENS_PLUGINS": "call_kind", **extra}


def _rewards(env: dict[str, str]) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-c", REWARD, json.dumps(list(ANSWERS))],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize(
    "where",
    [
        {"EXECLENS_JUDGE_WORKERS": "0"},  # this process's judging engine
        {"EXECLENS_JUDGE_WORKERS": "1", "EXECLENS_JUDGE_MIN_BATCH": "1"},  # a judge worker
    ],
    ids=["local", "judge-worker"],
)
def test_a_plug_in_kind_whose_judge_runs_code_is_rewarded_by_its_runs(
    tmp_path: Path, where: dict[str, str]
) -> None:
    (tmp_path / "call_kind.py").write_text(PLUGIN)
    found = _rewards(_env(tmp_path, **where))
    expected = [1.0 if ok else 0.0 for ok in ANSWERS.values()]
    assert found["trl"] == expected
    assert found["verl"] == expected
    verdicts = dict(zip(ANSWERS, found["verdicts"]))
    assert verdicts["f(2)"] == verdicts["f(3.0)"] == "wrong:value"
    assert verdicts["g(3)"].startswith("exception")
