"""Metrics from sample records: accuracy per kind, coverage precision/recall/F1, baselines."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from execlens.bench import get_benchmark
from execlens.bench.runtime import RuntimeItem, runtime_metrics
from execlens.tasks import RuntimeTask


def _item(ident: str, kind: str, reference: Any) -> RuntimeItem:
    task = RuntimeTask(
        id=ident,
        kind=kind,
        source="mine",
        problem_id=ident,
        input_index=0,
        program="def f(x):\n    y = x\n    return y",
        call="f(1)",
        reference=reference,
        mode="exact",
        selection="balanced",
        line=2,
        code_line="y = x",
        var="y" if kind == "state" else None,
    )
    return RuntimeItem(task, ident)


def _record(ident: str, kind: str, label: str) -> dict[str, Any]:
    return {
        "id": ident,
        "task": kind,
        "strict": [label == "passed"],
        "generations": [{"strict": label}],
    }


def test_coverage_precision_recall_and_f1_count_yes_as_positive() -> None:
    # Truth: a, b executed; c, d not.  Answers: a YES (tp), b NO (fn), c YES (fp),
    # d unparseable (neither a YES nor right).
    truth = {"a": True, "b": True, "c": False, "d": False}
    items = {("coverage", k): _item(k, "coverage", v) for k, v in truth.items()}
    records = [
        _record("a", "coverage", "passed"),
        _record("b", "coverage", "wrong:executed"),
        _record("c", "coverage", "wrong:not_executed"),
        _record("d", "coverage", "unparseable:format"),
    ]
    metrics = runtime_metrics(records, "coverage", items)
    assert metrics["strict"] == {"accuracy": 25.0, "precision": 50.0, "recall": 50.0, "f1": 50.0}
    yes, no = metrics["baselines"].values()
    assert yes == {"accuracy": 50.0, "precision": 50.0, "recall": 100.0, "f1": 66.67}
    assert no == {"accuracy": 50.0, "precision": 0.0, "recall": 0.0, "f1": 0.0}
    assert metrics["detailed"]["strict"]["questions"] == {"coverage": 4}


def test_a_composite_run_names_each_kinds_metrics() -> None:
    nil = [{"__type__": "Nil"}]
    one = [{"__type__": "int", "__value__": 1}]
    items = {
        ("state", "s1"): _item("s1", "state", nil),
        ("state", "s2"): _item("s2", "state", one),
        ("path", "p1"): _item("p1", "path", [3]),
    }
    records = [
        _record("state:s1", "state", "passed"),
        _record("state:s2", "state", "wrong:nil"),
        _record("path:p1", "path", "passed"),
    ]
    metrics = runtime_metrics(records, "all", items, notes=["a note"])
    assert metrics["strict"] == {"path": 100.0, "state": 50.0}
    # Nil is right on s1 only; -1 is never right after line 2 (line 3 runs next).
    assert metrics["baselines"]["always YES / -1 / Nil / None"] == {"path": 0.0, "state": 50.0}
    assert metrics["flags"] == ["a note"]


def test_the_demo_hook_asks_every_kind_about_the_examples(
    tmp_path: Path, caches: Path, engine: Any
) -> None:
    bench = get_benchmark("runtime")
    [(label, fields)] = bench.demo_evals(tmp_path, engine)  # type: ignore[attr-defined]
    assert label == "runtime-all" and fields["task"] == "all" and fields["limit"] > 0
    plan = dict(bench.plan(bench.load(fields["data"]), "all", limit=fields["limit"], offset=0))
    assert set(plan) == {"coverage", "path", "state", "output", "input"}
    covered = [item.task.reference for item in plan["coverage"]]
    assert covered.count(True) == covered.count(False) > 0


@pytest.mark.parametrize("task", ["coverage", "all"])
def test_metrics_before_any_plan_still_give_accuracy(task: str) -> None:
    metrics = runtime_metrics([_record("x", "coverage", "passed")], task, {})
    assert metrics["strict"]["accuracy"] == 100.0 and metrics["baselines"] == {}
