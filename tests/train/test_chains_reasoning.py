"""``execlens train chains`` with a reasoning teacher: judged on its final answer, never
its draft, and its thought kept in the SFT target.

The teacher is the stand-in server (``tests/standin_model.py``) answering in each shape a
thinking model reaches a client in -- ``<think>`` tags in the content, a separate
``reasoning_content``, harmony channels, a thought cut off by ``max_tokens`` -- with drafts
that disagree with the final answer.  The command, client, cache, judge and engine are
real.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from execlens.rewards import Task, export_tasks, score

from ..standin_model import Thought, user_message

PROGRAM = "def f(x):\n    return x * 3\n"
MAX_TOKENS = 60


def _task(n: int) -> Task:
    return Task("output", PROGRAM, str(3 * n), call=f"f({n})", id=f"o{n}")


def _answer(value: int) -> str:
    return f"So the call returns this.\n[ANSWER]{value}[/ANSWER]"


# Per task (its argument): how the teacher answers, and what the run must make of it.
CASES: dict[int, tuple[str | Thought, str]] = {
    # right final after a wrong draft, in three shapes: accepted
    1: (Thought(f"f(1): 1 * 3 ... [ANSWER]{4}[/ANSWER]? no, 3.", _answer(3), "tags"), "accepted"),
    2: (Thought(f"Draft: [ANSWER]{5}[/ANSWER]. Recount: 6.", _answer(6), "field"), "accepted"),
    3: (Thought(f"Maybe [ANSWER]{8}[/ANSWER]; no: 9.", _answer(9), "harmony"), "accepted"),
    # right draft, wrong final: rejected as the wrong answer it is
    4: (Thought(f"It is [ANSWER]{12}[/ANSWER].", _answer(13), "tags"), "wrong:value"),
    5: (Thought(f"It is [ANSWER]{15}[/ANSWER].", _answer(16), "field"), "wrong:value"),
    # the answer only inside the thought
    6: (
        Thought(f"It is [ANSWER]{18}[/ANSWER].", "That is my answer.", "tags"),
        "answer_only_in_reasoning",
    ),
    # a thought the token limit cut, its draft right: no answer
    7: (
        Thought(f"[ANSWER]{21}[/ANSWER] " + "checking " * MAX_TOKENS, _answer(21), "tags"),
        "truncated_in_reasoning",
    ),
    8: (
        Thought(f"[ANSWER]{24}[/ANSWER] " + "checking " * MAX_TOKENS, _answer(24), "field"),
        "truncated_in_reasoning",
    ),
    # no reasoning at all: the whole response is the target
    9: (_answer(27), "accepted"),
}


def _reply(body: dict[str, Any]) -> str | Thought:
    question = user_message(body)
    n = next(k for k in CASES if f"`f({k})`" in question)
    return CASES[n][0]


def _chains(
    tmp_path: Path, tasks: list[Task], reply: Any, **settings: Any
) -> subprocess.CompletedProcess[str]:
    """``execlens train chains`` on ``tasks`` against a stand-in teacher answering ``reply``."""
    from ..standin_model import StandInModel

    export_tasks(tasks, tmp_path / "export", formats=["trl"])
    env = {**os.environ, "EXECLENS_CACHE_DIR": str(tmp_path / "cache")}
    with StandInModel(reply) as server:
        config = {
            "kind": "chains",
            "model": "thinker",
            "base_url": server.base_url,
            "data": "export",
            "output_dir": "chains",
            "samples": 1,
            "max_tokens": MAX_TOKENS,
            **settings,
        }
        (tmp_path / "chains.json").write_text(json.dumps(config))
        return subprocess.run(
            [sys.executable, "-m", "execlens", "train", "chains", str(tmp_path / "chains.json")],
            capture_output=True,
            text=True,
            timeout=600,
            env=env,
            cwd=tmp_path,
            check=False,
        )


def test_chains_judge_the_final_answer_and_keep_the_thought(tmp_path: Path) -> None:
    tasks = [_task(n) for n in CASES]
    # The second ask's room is too small for the long thoughts too: they stay cut.
    result = _chains(tmp_path, tasks, _reply, thinking_max_tokens=MAX_TOKENS + 1)
    assert result.returncode == 0, result.stderr[-3000:]
    # Cut chains are said, with what to change.
    assert "2 of 9 chains were cut off inside their reasoning" in result.stderr
    assert "raise thinking_max_tokens" in result.stderr
    assert "asking the teacher: 9/9" in result.stdout, result.stdout  # progress
    stats = json.loads((tmp_path / "chains" / "chains.stats.json").read_text())
    expected: dict[str, int] = {}
    for _, outcome in CASES.values():
        if outcome != "accepted":
            expected[outcome] = expected.get(outcome, 0) + 1
    assert stats["rejected"] == expected
    assert stats["accepted"] == {"output": 4} and stats["sampled"] == {"output": len(CASES)}

    rows = {
        row["task_id"]: row
        for row in map(json.loads, (tmp_path / "chains" / "chains.jsonl").read_text().splitlines())
    }
    assert sorted(rows) == ["o1", "o2", "o3", "o9"]
    by_id = {t.id: t for t in tasks}
    for task_id, row in rows.items():
        target = row["messages"][-1]["content"]
        case = CASES[int(task_id[1:])][0]
        if isinstance(case, Thought):
            # The teacher's thought, draft and all, in one shape whatever the server's.
            assert target == f"<think>\n{case.thought}\n</think>\n\n{case.final}"
        else:
            assert target == case
        # The kept target scores as the final answer it ends with: the draft in its
        # thought (a wrong one here) does not count.
        assert score(by_id[task_id], target).passed


def test_a_cut_chain_gets_room_to_finish(tmp_path: Path) -> None:
    """The budget rule every path shares: a chain the token limit cut is asked once more
    with ``thinking_max_tokens`` (32,768 by default), and judged on its final answer."""
    tasks = [_task(n) for n in (1, 7, 8, 9)]
    result = _chains(tmp_path, tasks, _reply)
    assert result.returncode == 0, result.stderr[-3000:]
    stats = json.loads((tmp_path / "chains" / "chains.stats.json").read_text())
    assert stats["accepted"] == {"output": 4} and stats["rejected"] == {}
    assert stats["asked_again_with_room"] == 2
    assert "cut off" not in result.stderr


def test_no_chain_accepted_is_an_error_naming_why(tmp_path: Path) -> None:
    """ "0 of N accepted, all truncated_in_reasoning" never ends with exit 0 and no hint."""
    tasks = [_task(n) for n in (7, 8)]
    result = _chains(tmp_path, tasks, _reply, thinking_max_tokens=None)
    assert result.returncode == 2
    [line] = result.stderr.strip().splitlines()
    assert line.startswith("error: 0 of 2 chains accepted (2 truncated_in_reasoning)")
    assert "set thinking_max_tokens" in line
