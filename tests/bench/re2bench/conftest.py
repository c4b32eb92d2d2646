"""A made-up RE2-Bench checkout in upstream's layout (no upstream data: it has no licence).

Programs, records and prompts are written here; only their *formats* follow upstream:
``dataset/re2-bench/{sampled_problems.json, input-output/, code/, loop/, branch/}``,
``dataset/original_datasets/ClassEval/code/`` and ``prompts/<task>_prediction/``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

ODD_DOUBLES = """def f(nums):
    out = []
    for n in nums:
        if n % 2:
            out.append(n * 2)
    return out
"""

SUM_PRODUCT = """def pair(a, b):
    return (a + b, a * b)
"""

COUNTER = """class Counter:
    def __init__(self):
        self.count = 0

    def bump(self, k):
        self.count += k
        return self.count
"""

CLEAN = """def clean(text):
    return text.strip().lower()
"""

# Avatar programs read stdin; their records hold the input as the fed text (or a number)
PRODUCT = """a, b = map(int, input().split())
print(a * b)
"""

MOD_SEVEN = """n = int(input())
print(n % 7)
"""

#: problem id -> (benchmark, case file, line index, record, code path, code)
IO_PROBLEMS: dict[str, dict[str, Any]] = {
    "sample_7": {
        "difficulty": "easy",
        "benchmark": "cruxeval",
        "case": "cruxeval_7.jsonl",
        "lines": [
            {
                "name": "f",
                "types": {
                    "inputs": {"self": "dict", "args": {"nums": "list of 3 int"}, "kwargs": "dict"},
                    "return": "list of 2 int",
                },
                "values": {
                    "inputs": {"self": {}, "args": {"nums": [1, 2, 3]}, "kwargs": {}},
                    "return": [2, 6],
                },
            }
        ],
        "index": 0,
        "code_file": "code/cruxeval_7.py",
        "code": ODD_DOUBLES,
    },
    "HumanEval_3": {
        "difficulty": "easy",
        "benchmark": "HumanEval",
        "case": "HumanEval_3.jsonl",
        "lines": [
            {
                "name": "pair",
                "values": {
                    "inputs": {"self": {}, "args": {"a": 1, "b": 1}, "kwargs": {}},
                    "return": [2, 1],
                },
            },
            {
                "name": "pair",
                "values": {
                    "inputs": {"self": {}, "args": {"a": 2, "b": 3}, "kwargs": {}},
                    "return": [5, 6],
                },
            },
        ],
        "index": 1,
        "code_file": "code/HumanEval_3.py",
        "code": SUM_PRODUCT,
    },
    "ClassEval_5@Counter.bump": {
        "difficulty": "easy",
        "benchmark": "Classeval",
        "case": "Counter@bump.jsonl",
        "lines": [
            {
                "name": "bump",
                "values": {
                    "inputs": {"self": {"count": 3}, "args": {"k": 2}, "kwargs": {}},
                    "return": 5,
                },
            }
        ],
        "index": 0,
        "code_file": "../original_datasets/ClassEval/code/Counter.py",
        "code": COUNTER,
    },
    "atcoder_ABC001_A": {
        "difficulty": "easy",
        "benchmark": "Avatar",
        "case": "atcoder_ABC001_A.jsonl",
        "lines": [
            {
                "types": {"input": "2 integers separated by space", "output": "int"},
                "values": {"input": "3 4", "output": 12},
            }
        ],
        "index": 0,
        "code_file": "code/atcoder_ABC001_A.py",
        "code": PRODUCT,
    },
    "codeforces_7_A": {
        "difficulty": "easy",
        "benchmark": "Avatar",
        "case": "codeforces_7_A.jsonl",
        "lines": [
            {"types": {"input": "int", "output": "int"}, "values": {"input": 5, "output": 5}},
            {"types": {"input": "int", "output": "int"}, "values": {"input": 10, "output": 3}},
        ],
        "index": 1,
        "code_file": "code/codeforces_7_A.py",
        "code": MOD_SEVEN,
    },
    # .rstrip(".py") turns "text.happy.py" into "text.ha": the case file is named so
    "proj__proj-1@@text.happy.py@@clean": {
        "difficulty": "difficult",
        "benchmark": "Swebench",
        "case": "proj__proj-1@@text.ha.clean.jsonl",
        "lines": [
            {
                "name": "clean",
                "values": {
                    "inputs": {"self": {}, "args": {"text": " Hi "}, "kwargs": {}},
                    "return": "hi",
                },
            }
        ],
        "index": 0,
        "code_file": "code/proj__proj-1@@text.happy.py@@clean.py",
        "code": CLEAN,
    },
}

LOOP = {
    "input": {"self": {}, "args": {"nums": [1, 2, 3]}, "kwargs": {}},
    "loops": {
        "0": {
            "line": 3,
            "code": "for n in nums:",
            "loop_var": "n",
            "control_var": "out",
            "iterations": [
                {"loop_variables": {"n": 1}, "control_variable": {"name": "out", "value": []}},
                {"loop_variables": {"n": 2}, "control_variable": {"name": "out", "value": [2]}},
                {"loop_variables": {"n": 3}, "control_variable": {"name": "out", "value": [2]}},
            ],
        }
    },
}

BRANCH = {
    "input": {"self": {}, "args": {"nums": [1, 2, 3]}, "kwargs": {}},
    "branches": {
        "total": 3,
        "taken": 2,
        "not_taken": 1,
        "decisions": [
            {
                "line": 4,
                "type": "if",
                "condition": "n % 2",
                "taken": True,
                "function": "f",
                "variables": {"n": 1},
            },
            {
                "line": 4,
                "type": "if",
                "condition": "n % 2",
                "taken": False,
                "function": "f",
                "variables": {"n": 2},
            },
            {
                "line": 4,
                "type": "if",
                "condition": "n % 2",
                "taken": True,
                "function": "f",
                "variables": {"n": 3},
            },
        ],
    },
    "name": "f",
}


def _io_prompt(task: str, code: str, record: dict[str, Any]) -> str:
    values = record["values"]
    stdin = "input" in values  # an Avatar record
    if task == "output":
        given = {"input": values["input"]} if stdin else values["inputs"]
        tag, skeleton = "INPUT", '{"output": XXX}'
    else:
        given = {"output": values["output" if stdin else "return"]}
        tag = "OUTPUT"
        skeleton = '{"input": XXX}' if stdin else '{"self": XXX, "args": XXX, "kwargs": XXX}'
    name = record.get("name", "the program")
    return (
        f"[PYTHON]\n{code}[/PYTHON]\n\nWhat will be the {task} of `{name}`, "
        f"given the following {'input' if task == 'output' else 'output'}:\n[{tag}]\n"
        f"```\n{json.dumps(given)}\n```\n[/{tag}]\n\n[STRUCTURE]\n```\n{skeleton}\n```\n"
        "[/STRUCTURE]\n\n[THOUGHT]\n"
    )


def build_checkout(root: Path) -> Path:
    """Write the made-up checkout under ``root``; returns ``root``."""
    base = root / "dataset" / "re2-bench"
    sampled: dict[str, dict[str, Any]] = {"easy": {}, "difficult": {}}
    for pid, problem in IO_PROBLEMS.items():
        sampled[problem["difficulty"]][pid] = {
            "benchmark": problem["benchmark"],
            "input-output": problem["index"],
        }
        case = base / "input-output" / problem["benchmark"] / problem["case"]
        case.parent.mkdir(parents=True, exist_ok=True)
        case.write_text("".join(json.dumps(line) + "\n" for line in problem["lines"]))
        code = (base / problem["code_file"]).resolve()
        code.parent.mkdir(parents=True, exist_ok=True)
        code.write_text(problem["code"])
        record = problem["lines"][problem["index"]]
        for task in ("output", "input"):
            prompt = root / "prompts" / f"{task}_prediction" / problem["difficulty"] / f"{pid}.txt"
            prompt.parent.mkdir(parents=True, exist_ok=True)
            prompt.write_text(_io_prompt(task, problem["code"], record))
    (base / "sampled_problems.json").write_text(json.dumps(sampled))
    for task, record in (("loop", LOOP), ("branch", BRANCH)):
        path = base / task / "easy" / "sample_7.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(record))
        prompt = root / "prompts" / f"{task}_prediction" / "easy" / "sample_7.txt"
        prompt.parent.mkdir(parents=True, exist_ok=True)
        prompt.write_text(
            f"[PYTHON]\n{ODD_DOUBLES}[/PYTHON]\nAnnotate the {task}s of f([1, 2, 3]).\n[ANSWER]\n"
        )
    return root


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """A fresh made-up checkout."""
    return build_checkout(tmp_path / "RE2Bench")
