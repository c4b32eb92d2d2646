"""``bench.build_truths``: the truth of ``tasks.TruthRun`` tasks built by the real engine
once and kept in the one ``bench.TruthCache`` (a rerun runs nothing; a torn file is
rebuilt; a run with no truth is not kept)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from execlens.bench import TruthCache, build_truths
from execlens.engine import Engine
from execlens.tasks import NoTruth, Task, TruthRun

PROGRAM = "def f(n):\n    return [n] * n\n"


def test_truths_are_built_once_and_served_from_the_cache(engine: Engine, tmp_path: Path) -> None:
    cache = TruthCache("run", tmp_path)
    tasks = [
        Task("output", PROGRAM, TruthRun(seeds=(0, 1)), call="f(2)", id="a"),
        Task("trace", PROGRAM, TruthRun(), call="f(1)", id="b"),
        Task("output", "def f():\n    return 1 // 0\n", TruthRun(), call="f()", id="c"),
        Task("output", PROGRAM, {"__type__": "int", "__value__": 1}, call="f(1)", id="d"),
    ]
    built = build_truths(tasks, engine, cache=cache)
    assert built[0].reference["__type__"] == "list"
    assert built[1].reference == [2]  # the lines of the call
    assert isinstance(built[2].reference, NoTruth)  # not kept: tried again next time
    assert built[3] is tasks[3]  # a truth in hand is left alone
    files = sorted(tmp_path.glob("run-*.json"))
    assert len(files) == 2
    # Served, not run again: a document changed on disk is what the next build returns.
    for path in files:
        document = json.loads(path.read_text())
        if document["truth"] == [2]:
            document["truth"] = [9]
            path.write_text(json.dumps(document))
        else:
            path.write_text('{"version": 1, "tru')  # torn: rebuilt
    again = build_truths(tasks, engine, cache=cache)
    assert again[1].reference == [9]
    assert again[0].reference == built[0].reference


LOOP = "def f(n):\n    for i in range(n):\n        pass\n    return 1 // (n - 3)\n"


def test_a_coverage_truth_is_the_set_of_lines_run_even_when_the_call_raises(
    engine: Engine, tmp_path: Path
) -> None:
    cache = TruthCache("run", tmp_path)
    tasks = [
        Task("trace", LOOP, TruthRun(coverage=True), call="f(3)", id="raises"),
        Task("trace", LOOP, TruthRun(), call="f(3)", id="steps"),
        Task("trace", LOOP, TruthRun(coverage=True), call="f(2)", id="returns"),
    ]
    raises, steps, returns = build_truths(tasks, engine, cache=cache)
    # Sorted, once each, and the lines before the ZeroDivisionError are kept.
    assert raises.reference == [2, 3, 4]
    assert returns.reference == [2, 3, 4]
    # The step truth of the same call is the ordered sequence (a raising call has one).
    assert steps.reference == [2, 3, 2, 3, 2, 3, 2, 4]
    # Coverage and steps are two truths: two cache keys, never served for each other.
    assert len(list(tmp_path.glob("run-*.json"))) == 3


def test_a_coverage_truth_is_for_trace_tasks_only(engine: Engine, tmp_path: Path) -> None:
    task = Task("output", PROGRAM, TruthRun(coverage=True), call="f(1)", id="x")
    with pytest.raises(ValueError, match="trace tasks only"):
        build_truths([task], engine, cache=TruthCache("run", tmp_path))


def test_with_no_engine_one_is_started_only_for_what_is_not_cached(tmp_path: Path) -> None:
    cache = TruthCache("run", tmp_path)
    task = Task("trace", LOOP, TruthRun(coverage=True), call="f(2)", id="a")
    [built] = build_truths([task], None, cache=cache)  # starts a tracing engine
    assert built.reference == [2, 3, 4]
    [path] = tmp_path.glob("run-*.json")
    document = json.loads(path.read_text())
    document["truth"] = [7]
    path.write_text(json.dumps(document))
    [again] = build_truths([task], None, cache=cache)  # served: the edited document
    assert again.reference == [7]
