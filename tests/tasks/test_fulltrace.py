"""Full-trace tasks built by the real tracer: CRUXEval programs checked against
``sys.settrace`` line events (CoCoNUT's ground truth, recorded inside the engine), the
documented differences, the answer form and the judge."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from execlens.bench import load_programs
from execlens.engine import Engine, Job
from execlens.judge import VerdictStatus, judge_task, step_credit
from execlens.tasks import (
    RuntimeProgram,
    Task,
    TaskError,
    build_tasks,
    numbered_program,
)
from execlens.tasks.prompts import answer_instruction, render_answer

# CoCoNUT's tracer, run in the sandbox: line events of the program's own frames.
ORACLE = """
import sys
def oracle(source, call):
    namespace = {}
    exec(compile(source, "<coconut>", "exec"), namespace)
    lines = []
    def tracer(frame, event, arg):
        if frame.f_code.co_filename == "<coconut>" and event == "line":
            lines.append(frame.f_lineno)
        return tracer
    sys.settrace(tracer)
    try:
        eval(call, namespace)
    except Exception:
        pass
    finally:
        sys.settrace(None)
    return lines
"""


def _settrace_lines(engine: Engine, source: str, call: str) -> list[int]:
    outcome = engine.run(Job(program=ORACLE, call=f"oracle({source!r}, {call!r})"))
    assert outcome.ok, outcome.message
    return list(outcome.decoded())


def _plain(source: str) -> bool:
    """No comprehension, lambda or generator, and one line per statement: where our
    steps and settrace's line events must agree exactly."""
    tree = ast.parse(source)
    folded = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.Lambda)
    if any(isinstance(node, folded) for node in ast.walk(tree)):
        return False
    return all(
        node.lineno == node.end_lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.stmt) and not hasattr(node, "body")
    )


@pytest.fixture(scope="module")
def cruxeval(data_dir: Path) -> list[RuntimeProgram]:
    return list(load_programs(str(data_dir / "cruxeval" / "cruxeval.jsonl")))[:60]


def test_cruxeval_traces_are_settraces_line_events(
    cruxeval: list[RuntimeProgram], engine: Engine
) -> None:
    tasks = build_tasks(cruxeval, engine=engine, kinds=("trace",))
    assert tasks and all(t.kind == "trace" and t.call for t in tasks)
    plain = [t for t in tasks if _plain(t.program)]
    assert len(plain) >= 10
    for task in plain:
        assert task.reference == _settrace_lines(engine, task.program, str(task.call)), (
            task.problem_id
        )
    # Every trace starts inside the called function, never at its def line.
    for task in tasks:
        defs = {
            n.lineno for n in ast.walk(ast.parse(task.program)) if isinstance(n, ast.FunctionDef)
        }
        assert task.reference[0] not in defs
    # Asked only when named: the default kinds are unchanged.
    assert not [t for t in build_tasks(cruxeval[:3], engine=engine) if t.kind == "trace"]


def test_loop_header_recursion_and_the_documented_differences(engine: Engine) -> None:
    programs = [
        (
            "def simple_loop(x):\n    for i in range(3):\n        print(i+x)\n    return i\n",
            "simple_loop(5)",
            [2, 3, 2, 3, 2, 3, 2, 4],
        ),
        (
            "def g(n):\n    if n <= 1:\n        return 1\n    return n * g(n-1)\n",
            "g(3)",
            [2, 4, 2, 4, 2, 3],
        ),
        # settrace repeats a comprehension's line per iteration; we keep one step.
        ("def h(xs):\n    return [x for x in xs if x]\n", "h([1, 0, 2])", [2]),
        # settrace also reports the continuation line; we keep the statement's first.
        ("def k(xs):\n    total = sum(\n        xs)\n    return total\n", "k([1])", [2, 4]),
    ]
    runs = [
        RuntimeProgram("t", f"p{i}", 0, src, call=call) for i, (src, call, _) in enumerate(programs)
    ]
    tasks = {t.problem_id: t for t in build_tasks(runs, engine=engine, kinds=("trace",))}
    for i, (source, call, expected) in enumerate(programs):
        assert tasks[f"p{i}"].reference == expected
        settrace = _settrace_lines(engine, source, call)
        assert (settrace == expected) == (i < 2)
    assert _settrace_lines(engine, programs[2][0], programs[2][1]) == [2, 2, 2, 2, 2]


def test_answer_form_numbering_and_task_checks() -> None:
    task = Task("trace", "def f(x):\n    return x\n", [2], call="f(1)")
    assert render_answer(task) == "[ANSWER][2][/ANSWER]"
    assert "[2, 3, 2, 4]" in answer_instruction("trace")
    assert (
        numbered_program("def f(x):\n\n    return x\n")
        == "def f(x):  # 1\n  # 2\n    return x  # 3"
    )
    assert Task.from_json(task.to_json()) == task
    with pytest.raises(TaskError, match="executed line numbers"):
        Task("trace", "def f(x):\n    return x\n", "[2]", call="f(1)")
    with pytest.raises(ValueError, match="unknown task kinds"):
        build_tasks([], traces=[], kinds=("trace", "lines"))


def test_judge_is_exact_on_ints_and_credits_the_right_prefix() -> None:
    task = Task("trace", "p", [2, 3, 2, 3, 2, 4], call="f()")
    assert judge_task(task, "[2,3,2,3,2,4]").passed  # spacing does not matter
    assert judge_task(task, "(2, 3, 2, 3, 2, 4)").passed
    wrong = judge_task(task, "[2, 3, 2, 4]")
    assert wrong.status is VerdictStatus.WRONG and wrong.data["step_credit"] == 0.5
    assert judge_task(task, "['2', 3]").status is VerdictStatus.UNPARSEABLE
    assert judge_task(task, "[True, 3]").status is VerdictStatus.UNPARSEABLE
    assert judge_task(task, "2, 3 and more").status is VerdictStatus.UNPARSEABLE
    # No exploit: padding after a wrong step, or past the truth's length, never earns
    # more than the answer without it.
    right = [2, 3, 2, 3, 2, 4]
    for cut in range(len(right) + 1):
        base = step_credit(right[:cut] + [99], right)
        assert step_credit(right[:cut] + [99] + [2, 3] * 5, right) <= base
        longer = right[:cut] + [4, 2, 3] * 4
        assert step_credit(longer, right) <= step_credit(longer[: len(right)], right)
    assert step_credit(right + [2], right) < 1.0
    assert json.dumps(wrong.to_dict())  # JSON-ready data
