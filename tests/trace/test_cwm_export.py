"""The CWM trace export on real programs (CRUXEval, traced for real) and on the cases its
module docstring names: steps, locals as JSON strings, balanced calls and returns, the
documented gaps."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from execlens.bench import load_programs
from execlens.trace import CWM_TOKENS, cwm_frames, cwm_trace, trace_program

_FRAME = re.compile(r"<\|(call|line|return|exception)_sep\|>(.*?)<\|frame_sep\|>", re.DOTALL)
RUNS = 60


def _parsed(text: str) -> list[tuple[str, str]]:
    """(kind, body) of every frame in an exported text, read from the tokens alone."""
    trace_part = text.split(CWM_TOKENS["frame"], 1)[1]  # after the context's sentinel
    assert trace_part.endswith(CWM_TOKENS["end"])
    return _FRAME.findall(trace_part)


@pytest.fixture(scope="module")
def cruxeval(data_dir: Path, engine: Any) -> list[tuple[Any, Any]]:
    path = data_dir / "cruxeval" / "cruxeval.jsonl"
    if not path.is_file():
        pytest.skip(f"{path} is missing")
    programs = [p for p in load_programs(path)[:RUNS] if p.skip_reason is None]
    return [(p, trace_program(engine, p.program, p.call)) for p in programs]


def test_cruxeval_exports_match_the_traces(cruxeval: list[tuple[Any, Any]]) -> None:
    assert len(cruxeval) == RUNS
    for program, trace in cruxeval:
        text = cwm_trace(trace, program.program)
        frames = _parsed(text)
        kinds = [kind for kind, _ in frames]
        # One line frame per step of our trace, in order, each with its source line.
        lines = [f for f in cwm_frames(trace, program.program) if f.kind == "line"]
        assert len(lines) == kinds.count("line") == len(trace.steps), program.problem_id
        assert [f.line for f in lines] == [s.line + 1 for s in trace.steps]
        # Calls and returns balance, and nest: the entry's return ends the trace.
        depth = 0
        for kind in kinds:
            depth += {"call": 1, "return": -1}.get(kind, 0)
            assert depth >= 0
        assert depth == 0 and kinds[0] == "call" and kinds[-1] == "return"
        # Locals round-trip as a JSON object of strings; values are JSON strings.
        for kind, body in frames:
            if kind in ("call", "line"):
                observed, _ = body.split(CWM_TOKENS["action"], 1)
                loaded = json.loads(observed)
                assert isinstance(loaded, dict)
                assert all(isinstance(v, str) for v in loaded.values())
            else:
                _, value = body.split(CWM_TOKENS["arg"], 1)
                assert isinstance(json.loads(value), str)
        # The entry function's def line is marked in the context.
        context = text[len(CWM_TOKENS["context"]) :].split(CWM_TOKENS["frame"], 1)[0]
        assert context.count("# << START_OF_TRACE") == 1
        assert "def f(" in next(line for line in context.splitlines() if "START_OF_TRACE" in line)


def test_the_final_return_carries_the_output(cruxeval: list[tuple[Any, Any]]) -> None:
    from execlens.values import decode, literal_text

    checked = 0
    for program, trace in cruxeval:
        expected = literal_text(decode(trace.output_envelope)) if trace.ok else None
        if expected is None:
            continue
        last = cwm_frames(trace, program.program)[-1]
        assert last.kind == "return" and last.value == expected, program.problem_id
        checked += 1
    assert checked > RUNS // 2


_PROGRAM = """class A:
    pass
def g(x):
    if x < 0:
        raise ValueError("neg")
    return x * 2
def f(n):
    a = A()
    s = [g(i) for i in range(n)]
    try:
        g(-1)
    except ValueError:
        pass
    return n
"""


def test_exceptions_objects_and_comprehensions(engine: Any) -> None:
    trace = trace_program(engine, _PROGRAM, "f(2)")
    frames = cwm_frames(trace, _PROGRAM)
    kinds = [f.kind for f in frames]
    # The comprehension is folded: g is called twice from line 9, no <listcomp> frame.
    assert kinds.count("call") == 4 == kinds.count("return")
    # An exception leaving g: exception, then return None (settrace's order) ...
    at = kinds.index("exception")
    assert frames[at].value == "ValueError" and frames[at].line == 5
    assert frames[at + 1].kind == "return" and frames[at + 1].value == "None"
    # ... but no exception frame in f, which caught it (the documented gap).
    assert kinds.count("exception") == 1
    # An instance has no literal: a stable name, never an address.
    after = [f for f in frames if f.kind == "line" and f.locals and "a" in f.locals]
    assert after and after[0].locals["a"] == "<__main__.A object>"


def test_an_exception_ending_the_run_keeps_its_message(engine: Any) -> None:
    trace = trace_program(engine, _PROGRAM, "g(-3)")
    frames = cwm_frames(trace, _PROGRAM)
    assert [f.kind for f in frames] == ["call", "line", "line", "exception", "return"]
    assert frames[3].value == "ValueError('neg')"


def test_a_frame_blind_trace_is_refused(engine: Any) -> None:
    trace = trace_program(engine, _PROGRAM, "g(1)", mode="reval")
    with pytest.raises(ValueError, match="exact-mode"):
        cwm_frames(trace, _PROGRAM)


def test_the_trace_verb_writes_cwm_jsonl(tmp_path: Path) -> None:
    """``execlens trace DATA --format cwm``: one CWM text per run beside the REval layout."""
    import subprocess
    import sys

    shipped = Path(__file__).resolve().parents[2] / "src/execlens/bench/reval/data"
    rows = [
        json.loads(line) for line in (shipped / "DREval_data.jsonl").read_text().splitlines()[:2]
    ]
    ids = {row["task_id"] for row in rows}
    data = tmp_path / "data"
    data.mkdir()
    (data / "DREval_data.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    tasks = [
        line
        for line in (shipped / "DREval_tasks.jsonl").read_text().splitlines()
        if json.loads(line)["task_id"] in ids
    ]
    (data / "DREval_tasks.jsonl").write_text("\n".join(tasks) + "\n")
    out = tmp_path / "out"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "execlens",
            "trace",
            str(data),
            "--format",
            "cwm",
            "--out",
            str(out),
            "--no-progress",
        ],
        check=False,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    cwm = [json.loads(line) for line in (out / "cwm.jsonl").read_text().splitlines()]
    executions = (out / "executions.jsonl").read_text().splitlines()
    assert len(cwm) == len(executions) > 0
    assert all(row["cwm"].endswith(CWM_TOKENS["end"]) for row in cwm)
    refused = subprocess.run(
        [
            sys.executable,
            "-m",
            "execlens",
            "trace",
            str(data),
            "--format",
            "cwm",
            "--mode",
            "reval",
            "--out",
            str(tmp_path / "no"),
        ],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert refused.returncode != 0 and "cwm needs --mode exact" in refused.stderr
