"""``--perturb`` on REval's real data: each question follows its line into the perturbed
program, and every kept item's truth -- traced again on the perturbed program, here
independently of the runner -- is the original's at the mapped line (coverage and the
variable's values under both modes, the strict output truth); the next line is the
perturbed program's own.  Dropped items are counted under the kind that dropped them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from execlens.bench import perturb_plan
from execlens.bench.reval import REVAL_MODES, Reval, RevalProblem
from execlens.bench.reval._truth import build_reval_truth
from execlens.tasks.perturb import KINDS

#: HumanEval and ClassEval problems; DREval/11 has a statement reformat splits over two
#: lines, which moves REval's frame-blind state (a dropped question).
SUBSET = (
    "DREval/0",
    "DREval/11",
    "DREval/23",
    "DREval/47",
    "DREval/86",
    "DREval/110",
    "DREval/138",
)
COMBOS = [[kind] for kind in KINDS] + [list(KINDS)]


@pytest.fixture(scope="module")
def problems(data_dir: Path) -> list[RevalProblem]:
    loaded = Reval().load(str(data_dir / "reval"))
    chosen = [p for p in loaded if p.task_id in SUBSET]
    assert len(chosen) == len(SUBSET)
    return chosen


@pytest.fixture(scope="module")
def original_truth(problems: list[RevalProblem], tracing_engine: Any) -> dict[str, Any]:
    return build_reval_truth(problems, tracing_engine, REVAL_MODES)


@pytest.fixture
def truth_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("EXECLENS_TRUTH_CACHE_DIR", str(tmp_path))
    return tmp_path


def _accounted(summary: dict[str, Any]) -> None:
    assert summary["kept"] + summary["dropped"] == summary["items"]
    per_kind = summary["per_kind"]
    dropped = sum(entry["dropped"] for entry in per_kind.values())
    assert dropped + sum(summary.get("unverifiable", {}).values()) == summary["dropped"]


@pytest.mark.parametrize("kinds", COMBOS, ids=["+".join(c) for c in COMBOS])
def test_every_kept_question_has_the_original_truth_at_its_mapped_line(
    kinds: list[str],
    problems: list[RevalProblem],
    original_truth: dict[str, Any],
    tracing_engine: Any,
    truth_cache: Path,
) -> None:
    bench = Reval()
    plan = bench.plan(problems, "coverage", limit=None, offset=0)
    originals = {item.sample_id: item for item in plan[0][1]}
    new_plan, summary = perturb_plan(bench, plan, kinds, 0, tracing_engine)
    _accounted(summary)
    kept = new_plan[0][1]
    assert len(kept) == summary["kept"] > 0.75 * len(originals)
    perturbed = list({item.problem.task_id: item.problem for item in kept}.values())
    changed = [p.code not in {o.code for o in problems} for p in perturbed]
    # invert and loops need an if / a for loop: a program without one is asked as it is
    assert all(changed) if not set(kinds) <= {"invert", "loops"} else any(changed)
    again = build_reval_truth(perturbed, tracing_engine, REVAL_MODES)  # independently
    for item in kept:
        before_item = originals[item.sample_id]
        assert item.question is not None and before_item.question is not None
        assert item.question.var == before_item.question.var  # renaming kept it
        for mode in REVAL_MODES:
            before = original_truth[mode].questions[item.sample_id]
            after = again[mode].questions[item.sample_id]
            assert (after.covered, after.state) == (before.covered, before.state), (
                kinds,
                mode,
                item.sample_id,
            )
            # What is judged: this truth, the next lines included (the perturbed run's own).
            assert bench._truths[mode].questions[item.sample_id] == after
        # The asked line is the original's statement, moved: the same first word.
        old_text = before_item.problem.code.split("\n")[before_item.question.lineno - 1]
        new_text = item.problem.code.split("\n")[item.question.lineno - 1]
        assert (
            old_text.split()[0].rstrip(":") == new_text.split()[0].rstrip(":") or "rename" in kinds
        )
    if kinds == ["reformat"]:  # DREval/11's split assignment moves the frame-blind state
        reasons = summary["per_kind"]["reformat"]["dropped_reasons"]
        assert reasons.get("official.state_changed", 0) > 0


@pytest.mark.parametrize("kinds", [["rename"], list(KINDS)], ids=["rename", "all"])
def test_every_kept_output_pair_has_the_original_output_truth(
    kinds: list[str],
    problems: list[RevalProblem],
    original_truth: dict[str, Any],
    tracing_engine: Any,
    truth_cache: Path,
) -> None:
    bench = Reval()
    plan = bench.plan(problems, "output", limit=None, offset=0)
    new_plan, summary = perturb_plan(bench, plan, kinds, 0, tracing_engine)
    _accounted(summary)
    kept = new_plan[0][1]
    assert len(kept) == summary["kept"] == len(plan[0][1])  # no output moved here
    perturbed = list({item.problem.task_id: item.problem for item in kept}.values())
    again = build_reval_truth(perturbed, tracing_engine, ("strict",))["strict"]
    for item in kept:
        pair = item.pair.sample_id
        before, after = original_truth["strict"].outputs[pair], again.outputs[pair]
        assert [(m.hidden, m.other) for m in after.masks] == [
            (m.hidden, m.other) for m in before.masks
        ]
        assert after.error == before.error


def test_a_question_on_a_line_split_apart_is_dropped_as_unmapped(
    problems: list[RevalProblem], tracing_engine: Any, truth_cache: Path
) -> None:
    from dataclasses import replace

    from execlens.bench.reval import RevalQuestion

    problem = problems[0]  # DREval/0: put two statements on one asked line
    lines = problem.code.split("\n")
    asked = problem.pairs[0].questions[0].lineno
    indent = lines[asked - 1][: len(lines[asked - 1]) - len(lines[asked - 1].lstrip())]
    lines[asked - 1] = lines[asked - 1] + "; _unused = 0"
    code = "\n".join(lines)
    pair = replace(problem.pairs[0], questions=(RevalQuestion(asked, "distance"),))
    joined = replace(problem, code=code, pairs=(pair,))
    assert indent
    bench = Reval()
    plan = bench.plan([joined], "coverage", limit=None, offset=0)
    new_plan, summary = perturb_plan(bench, plan, ["prints"], 0, tracing_engine)
    assert new_plan[0][1] == []  # unparse splits the two statements apart
    assert summary["per_kind"]["prints"]["dropped_reasons"] == {"line_unmapped": 1}
    plan = bench.plan([joined], "coverage", limit=None, offset=0)
    new_plan, summary = perturb_plan(bench, plan, ["comments"], 0, tracing_engine)
    assert len(new_plan[0][1]) == 1  # comments edit the text: the line stays one line


@pytest.mark.slow
def test_all_of_reval_every_kept_item_keeps_its_truth(
    data_dir: Path, tracing_engine: Any, truth_cache: Path
) -> None:
    # Every question and pair of every third program, all eight kinds composed (all of
    # REval ran past ten minutes on two loaded cores); the counts per kind over every
    # program are what perf/perturb_reval.py prints.
    bench = Reval()
    records = bench.load(str(data_dir / "reval"))[::3]
    before = build_reval_truth(records, tracing_engine, REVAL_MODES)
    for task in ("coverage", "output"):
        plan = bench.plan(records, task, limit=None, offset=0)
        new_plan, summary = perturb_plan(bench, plan, list(KINDS), 0, tracing_engine)
        _accounted(summary)
        kept = new_plan[0][1]
        assert summary["kept"] > 0.9 * summary["items"]
        perturbed = list({item.problem.task_id: item.problem for item in kept}.values())
        after = build_reval_truth(perturbed, tracing_engine, REVAL_MODES)
        for item in kept:
            if task == "output":
                pair = item.pair.sample_id
                assert [(m.hidden, m.other) for m in after["strict"].outputs[pair].masks] == [
                    (m.hidden, m.other) for m in before["strict"].outputs[pair].masks
                ]
                continue
            for mode in REVAL_MODES:
                old, new = (
                    before[mode].questions[item.sample_id],
                    after[mode].questions[item.sample_id],
                )
                assert (new.covered, new.state) == (old.covered, old.state)


def test_eval_perturb_asks_the_perturbed_programs_and_an_oracle_scores_full(
    tmp_path: Path,
    data_dir: Path,
    tracing_engine: Any,
    truth_cache: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import json
    import os
    import subprocess
    import sys

    from execlens.bench import write_report

    from ...standin_model import StandInModel, user_message

    monkeypatch.setenv("EXECLENS_CACHE_DIR", str(tmp_path / "requests"))
    data, kinds, limit = data_dir / "reval", ("garbage", "comments"), 12
    bench = Reval()
    plan, _ = perturb_plan(
        bench,
        bench.plan(bench.load(str(data)), "coverage", limit=limit, offset=0),
        kinds,
        0,
        tracing_engine,
    )
    truth = bench._truths["official"].questions
    answers = {
        bench.render(item, "coverage", "direct").text: "YES"
        if truth[item.sample_id].covered
        else "NO"
        for item in plan[0][1]
    }

    def reply(body: dict[str, Any]) -> str:
        return f"{answers.get(user_message(body), 'NO')}\n[/ANSWER]"

    def cli(out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [
                sys.executable,
                "-m",
                "execlens",
                "eval",
                "--benchmark",
                "reval",
                "--task",
                "coverage",
                "--data",
                str(data),
                "--model",
                "fake-model",
                "--base-url",
                server.base_url,
                "--limit",
                str(limit),
                "--out",
                str(out),
                *extra,
            ],
            capture_output=True,
            text=True,
            timeout=300,
            env=dict(os.environ),
        )

    with StandInModel(reply) as server:
        plain = cli(tmp_path / "plain")
        perturbed = cli(tmp_path / "perturbed", "--perturb", ",".join(kinds))
    assert plain.returncode == 0, plain.stderr
    assert perturbed.returncode == 0, perturbed.stderr
    results = json.loads((tmp_path / "perturbed" / "results.json").read_text())
    block = results["perturbation"]
    assert block["kinds"] == list(kinds) and block["kept"] == len(plan[0][1])
    assert block["per_kind"]["garbage"]["applied"] == block["kept"]
    assert results["metrics"]["official"]["coverage"] == 100.0  # judged on its own truth
    samples = [
        json.loads(line)
        for line in (tmp_path / "perturbed" / "samples.jsonl").read_text().splitlines()
    ]
    assert all(s["question"]["program"] in s["prompt"]["user"] for s in samples)
    assert all("\n    # " in s["question"]["program"] for s in samples)  # comments kind
    page = write_report(
        [tmp_path / "plain", tmp_path / "perturbed"], tmp_path / "report.html"
    ).read_text()
    assert 'id="robustness"' in page and "garbage+comments" in page
