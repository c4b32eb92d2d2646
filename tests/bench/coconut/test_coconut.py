"""CoCoNUT on made-up fixtures in its CSV layouts (no upstream data: it has no licence;
the HumanEval-like fixture's ExecutedLines were recorded with sys.settrace in the engine,
as upstream's tracer does): loader, named errors, official scoring (NoReps, Distance,
Concurrency), strict against our tracer, the metrics, and ``execlens eval`` end to end."""

from __future__ import annotations

import difflib
import json
from pathlib import Path

import pytest

from execlens.bench import (
    DatasetError,
    DatasetUnavailableError,
    EvalConfig,
    get_benchmark,
    run_eval,
)
from execlens.bench.coconut import (
    concurrency_match,
    distance,
    extract_trace,
    load_coconut,
    noreps,
    official_verdict,
)
from execlens.engine import Engine
from execlens.judge import VerdictStatus
from execlens.tasks import NoTruth

from ...standin_model import StandInModel, user_message

DATA = Path(__file__).parent / "data"
HUMANEVAL = DATA / "HumanEval_trace.csv"
ADVANCED = DATA / "program_traces_Python_made_up.csv"
BENCH = get_benchmark("coconut")


def test_loads_the_file_or_a_checkout_and_names_bad_input(tmp_path: Path) -> None:
    items = load_coconut(HUMANEVAL)
    assert [i.sample_id for i in items][:3] == [
        "HumanEval/900#0",
        "HumanEval/900#1",
        "HumanEval/901#0",
    ]
    assert items[0].call == "below_zero([1, 2, -4, 5])"
    checkout = tmp_path / "repo" / "Dataset" / "HumanEval"
    checkout.mkdir(parents=True)
    (checkout / "HumanEval_trace.csv").write_text(HUMANEVAL.read_text())
    assert len(BENCH.load(str(tmp_path / "repo"))) == len(items)
    advanced = load_coconut(ADVANCED)
    assert advanced[0].call is None and advanced[0].category == "Concurrency"
    with pytest.raises(DatasetUnavailableError, match="no default source"):
        load_coconut(None)
    with pytest.raises(DatasetUnavailableError, match="no HumanEval_trace.csv"):
        load_coconut(tmp_path)
    bad = tmp_path / "bad.csv"
    bad.write_text("HumanEval_ID,Name\nHumanEval/0,f\n")
    with pytest.raises(DatasetError, match="missing columns"):
        load_coconut(bad)
    rows = HUMANEVAL.read_text().splitlines()
    broken = tmp_path / "broken.csv"
    broken.write_text(rows[0] + "\n" + rows[1].replace("[9, 10,", "[9, x,", 1) + "\n")
    with pytest.raises(DatasetError, match="row 2"):
        load_coconut(broken)


def test_official_scoring_reproduces_upstreams_rules() -> None:
    assert extract_trace("first [1, 2] then\n[3,\n 4] finally [9, 10]") == "[9, 10]"
    assert extract_trace("[[1], [2]]") == "[2]"  # nested brackets: matches, not the list
    assert noreps("[3, 3, 3, 3, 3]") == "[3]" and noreps("[2, 3, 2]") == "[2, 3, 2]"
    assert (
        distance("[1, 2]", "[1, 3]")
        == difflib.SequenceMatcher(a="[,1,,, ,2,]", b="[,1,,, ,3,]").ratio()
    )
    [comp] = [i for i in load_coconut(HUMANEVAL) if i.sample_id == "HumanEval/901#0"]
    assert official_verdict(comp, "so [3]").passed  # NoReps collapses the truth only
    assert not official_verdict(comp, "[3, 3, 3, 3, 3]").passed
    spaced = official_verdict(load_coconut(HUMANEVAL)[4], "[2,4,2,4,2,3]")
    assert not spaced.passed and spaced.reason.startswith("distance=")  # string equality
    # Concurrency (rule by rule in test_concurrency): the re-serialised truth has bare
    # parens, so an answer is compared with it character by character.
    truth = "[7, 8, (, 10, 2, 3, 11, 2, 3, ), 13]"
    assert noreps(load_coconut(ADVANCED)[0].truth) == truth
    assert concurrency_match(truth, "[7, 8, (, 11, 2, 3, 10, 2, 3, ), 13]")
    assert not concurrency_match(truth, "[7, 8, '(', 11, 2, 3, 10, 2, 3, ')', 13]")
    assert not concurrency_match(truth, "[7, 8, (, 10, 2, 3, 11, 2, ), 13]")
    assert official_verdict(
        load_coconut(ADVANCED)[0], "[7, 8, (, 11, 2, 3, 10, 2, 3, ), 13]"
    ).passed


def test_strict_uses_our_tracer(engine: Engine) -> None:
    items = load_coconut(HUMANEVAL) + load_coconut(ADVANCED)
    prepared = BENCH.prepare(items, "trace", engine)  # the core traces the strict truth
    truths = {ident: task.reference for ident, task in prepared.items()}
    by_id = {i.sample_id: i for i in items}
    assert set(truths) == set(by_id)
    for ident, truth in truths.items():
        item = by_id[ident]
        if item.call is None:
            assert isinstance(truth, NoTruth)  # not runnable: indentation stripped
        elif ident.startswith("HumanEval/901"):
            assert truth == [3]  # one step for the comprehension line (settrace: one a turn)
        else:
            assert json.loads(item.truth) == truth  # no comprehension: settrace agrees
    strict = BENCH.scorers("trace", "direct", prepared)["strict"]
    plan = strict.plan(by_id["HumanEval/902#0"], ["[2,4,2,4,2,3]", "[2, 4]", "none"])
    verdicts = plan.finish([]).verdicts
    assert verdicts[0].passed and verdicts[1].data["step_credit"] == pytest.approx(2 / 6)
    assert verdicts[2].status is VerdictStatus.UNPARSEABLE
    adv = strict.plan(by_id["workers_1.py#0"], ["[1]", "none"]).finish([]).verdicts
    assert [v.label for v in adv] == ["reference_error:no_truth"] * 2  # whatever the answer
    assert "Advanced" in adv[0].detail


def test_eval_end_to_end(tmp_path: Path, engine: Engine, request_cache: Path) -> None:
    items = load_coconut(HUMANEVAL)
    # Right on every run of HumanEval/900 and /902; /901 answered as settrace lists it.
    replies = {BENCH.render(i, "trace", "direct").text: f"Executed lines: {i.truth}" for i in items}
    with StandInModel(lambda body: replies[user_message(body)]) as server:
        config = EvalConfig(
            benchmark="coconut",
            task="trace",
            model="stand-in",
            base_url=server.base_url,
            data=str(HUMANEVAL),
            retries=0,
        )
        result = run_eval(config, tmp_path / "run", show_progress=False, engine=engine)
    metrics = result.results["metrics"]
    official, strict = metrics["official"], metrics["strict"]
    # Official (NoReps): /901's truth collapses to [3], the raw answer misses: 2 of 3 tasks.
    assert official["acc_hard"] == pytest.approx(100 * 2 / 3, abs=0.01)
    assert official["sim"] < 1.0 and official["false_sim"] > 0.0
    # Strict (our tracer, one step for the comprehension): the same two tasks pass.
    assert strict["acc_hard"] == pytest.approx(100 * 2 / 3, abs=0.01)
