"""Our tracer's coverage equals the published labels on every one of the 1,160 tests.

Each test runs the method with its test under the real tracer in the real engine (the
core's truth run, ``bench.build_truths``, kept in the truth cache); the executed lines
become labels by ``coverage annotate``'s rules (``coverage_labels``) and
must equal ``coverage_sequence``; the branch-labelled lines (``branch_mask``) must equal
``branch_sequence``'s non-``?`` lines.  The expected differences are listed, with why.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from execlens.bench import TruthCache, build_truths
from execlens.bench.coverage_eval import (
    SHOWN_TWIN,
    branch_mask,
    coverage_labels,
    load_coverage_eval,
    program_of,
    trace_coverage,
    traced_coverage,
    truth_task,
)
from execlens.engine import Engine, Job, Limits
from execlens.tasks import NoTruth, TruthRun

#: Tests where our traced labels may differ from the published ones, and why.  Every
#: test runs (the 6 that use HumanEval's free variables raise NameError in ``test()``
#: before calling the method, so only the ``def`` lines run -- as upstream recorded), and
#: none differs: the list is empty.
EXPECTED_DIFFERENCES: dict[str, str] = {}

#: The strict truth of these 12 pairs is of the method the prompt showed (the other
#: ``correct_bracketing``, data/46), not of the one the labels describe (data/7): see
#: ``SHOWN_TWIN``.  They are the only evaluated pairs whose two truths may differ.
TWIN_REASON = "upstream's prompt shows the other correct_bracketing (data/46)"


def test_traced_labels_equal_the_published_labels_on_all_1160(tracer: Engine) -> None:
    tests = load_coverage_eval(None)
    # The method the labels describe (for the 12 twins, not the one the prompt showed).
    own = [replace(item, shown_method=item.method) for item in tests]
    traced = trace_coverage(own, tracer)
    assert len(traced) == 1160
    untraced = {k: v.status for k, v in traced.items() if v.labels is None}
    assert untraced == {}
    differences = {
        item.test_id: (traced[item.test_id].labels, item.coverage_sequence)
        for item in tests
        if traced[item.test_id].labels != item.coverage_sequence
    }
    assert set(differences) == set(EXPECTED_DIFFERENCES), differences
    # The 6 free-variable tests raise (a plain run of the same call fails), and still
    # have the published labels: the lines that ran before the test raised.
    free = [item for item in own if item.test_id in {"204", "161", "1085", "250", "139", "231"}]
    runs = tracer.map([Job(program=program_of(item), call="test()") for item in free])
    assert [run.ok for run in runs] == [False] * 6
    for item in tests:
        assert tuple(branch_mask(item.method)) == tuple(b != "?" for b in item.branch_sequence)


def test_the_twin_pairs_strict_truth_is_the_shown_methods(tracer: Engine) -> None:
    twins = [item for item in load_coverage_eval(None) if item.test_id in SHOWN_TWIN]
    assert len(twins) == 12
    traced = trace_coverage(twins, tracer)
    for item in twins:
        truth = traced[item.test_id]
        assert truth.labels is not None, TWIN_REASON
        assert truth.labels == tuple(coverage_labels(item.shown_method, truth.executed))
        assert len(truth.labels) == len(branch_mask(item.shown_method))


def test_coverage_annotate_rules() -> None:
    source = (
        'def f(x):\n    """doc\n    # not a comment: in the docstring\n    """\n'
        "    # a comment\n    if x:\n        y = (1 +\n             2)\n    else:\n"
        "        y = 0\n    try:\n        return y\n    except Exception:\n"
        "        return -1"
    )
    # x false: the if body misses (its continuation line too); else: follows its body.
    executed = {1, 6, 10, 11, 12}
    labels = coverage_labels(source, executed)
    # def, docstring (its '#' line carries no label: annotate's test is textual), if,
    # y = (1 +, 2), else, y = 0, try, return y, except (missed), return -1
    assert labels == [">", ">", ">", ">", "!", "!", ">", ">", ">", ">", "!", "!"]
    assert branch_mask(source) == [False] * 3 + [True] * 7 + [False] * 2


def test_the_truth_is_cached_and_a_rerun_runs_nothing(tracer: Engine, tmp_path: Path) -> None:
    items = load_coverage_eval(None)[:3]
    cache = TruthCache("run", tmp_path)
    first = build_truths([truth_task(item) for item in items], tracer, cache=cache)
    assert len(list(tmp_path.glob("run-*.json"))) == 3
    # No engine and everything cached: nothing starts, the same truth comes back.
    again = build_truths([truth_task(item) for item in items], None, cache=cache)
    assert [task.reference for task in again] == [task.reference for task in first]
    labels = [traced_coverage(item, task.reference).labels for item, task in zip(items, again)]
    assert labels == [item.coverage_sequence for item in items]


def test_a_run_that_records_nothing_has_no_labels(tracer: Engine, tmp_path: Path) -> None:
    [item] = load_coverage_eval(None)[:1]
    hangs = replace(item, test="def test():\n    while True:\n        pass")
    task = replace(
        truth_task(hangs), reference=TruthRun(coverage=True, limits=Limits(wall_time=1.0))
    )
    [built] = build_truths([task], tracer, cache=TruthCache("run", tmp_path))
    assert isinstance(built.reference, NoTruth)
    assert "recorded no coverage" in built.reference.reason
    assert list(tmp_path.glob("run-*.json")) == []  # a missing truth is not kept
    truth = traced_coverage(hangs, built.reference)
    assert truth.labels is None and truth.status == built.reference.reason
