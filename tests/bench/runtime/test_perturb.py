"""``--perturb`` on the runtime benchmark: each question follows its line into the
perturbed program; every kept item's truth -- traced again here on the perturbed
program, independently of the runner -- is the original's at the mapped line (coverage,
the variable's values, the output), and the next line / full trace is the perturbed
run's own.  An oracle model answering the perturbed questions scores 100 % on every kind
through ``execlens eval --perturb`` (prompts, extraction and judges agree on them)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from execlens.bench import EvalConfig, perturb_plan, run_eval, write_report
from execlens.bench.runtime import RuntimeItem
from execlens.bench.runtime._benchmark import RuntimeBenchmark
from execlens.tasks import tasks_for_trace, trace_programs
from execlens.tasks.perturb import KINDS

from ._oracle import truth_answer

COMBOS = [[kind] for kind in KINDS] + [list(KINDS)]


@pytest.fixture(scope="module")
def tracer() -> Any:
    from execlens.trace import trace_engine

    with trace_engine(workers=2) as engine:
        yield engine


@pytest.fixture
def reval_dir(data_dir: Path) -> Path:
    path = data_dir / "reval"
    if not (path / "DREval_data.jsonl").is_file():
        pytest.skip("REval data missing")
    return path


def _retraced(bench: RuntimeBenchmark, items: list[RuntimeItem], engine: Any) -> dict[str, Any]:
    """Each item's question traced on its own (perturbed) program, here, by the truth
    code the benchmark's questions come from."""
    runs = {(p.problem_id, p.input_index): p for p in bench._programs}
    programs = {}
    for item in items:
        task = item.task
        key = (task.problem_id, task.input_index, task.program)
        programs.setdefault(key, replace(runs[key[:2]], program=task.program))
    traces = {id(t.tag): t for t in trace_programs(list(programs.values()), engine)}
    out = {}
    for item in items:
        task = item.task
        program = programs[(task.problem_id, task.input_index, task.program)]
        kind = "output" if task.kind == "input" else task.kind
        questions = ((task.line, task.var),) if task.line is not None else ()
        [again] = tasks_for_trace(
            replace(program, questions=questions),  # type: ignore[arg-type]
            traces[id(program)],
            "given",
            kinds=(kind,),
        )
        out[f"{task.kind}:{item.sample_id}"] = again.reference
    return out


@pytest.mark.parametrize("kinds", COMBOS, ids=["+".join(c) for c in COMBOS])
@pytest.mark.parametrize("source", ["cruxeval", "reval"])
def test_every_kept_item_has_the_original_truth_at_its_mapped_line(
    source: str, kinds: list[str], data_dir: Path, caches: Path, tracer: Any
) -> None:
    data = data_dir / "cruxeval" / "cruxeval.jsonl" if source == "cruxeval" else data_dir / "reval"
    bench = RuntimeBenchmark()
    # REval's runs from 700 on are ClassEval classes driven by a unittest method.
    offset = 40 if source == "cruxeval" else 700
    plan = bench.plan(bench.load(str(data)), "all", limit=12, offset=offset)
    if source == "cruxeval":  # full traces too (asked only when named)
        plan += bench.plan(bench.load(str(data)), "trace", limit=12, offset=offset)
    originals = {f"{kind}:{item.sample_id}": item for kind, items in plan for item in items}
    new_plan, summary = perturb_plan(bench, plan, kinds, 0, tracer)
    kept = [item for _, items in new_plan for item in items]
    assert summary["kept"] == len(kept) > 0.8 * len(originals)
    assert summary["kept"] + summary["dropped"] == summary["items"] == len(originals)
    again = _retraced(bench, kept, tracer)
    for item in kept:
        key = f"{item.kind}:{item.sample_id}"
        before = originals[key].task
        assert item.task.program != before.program or all(
            summary["per_kind"][k]["not_applicable"] for k in kinds
        )
        assert item.task.reference == again[key]  # what is judged: the perturbed run's
        if item.kind in ("coverage", "state", "output", "input"):
            assert again[key] == before.reference, key  # ... and it did not move
        if item.task.line is not None:
            assert item.task.code_line == item.task.program.split("\n")[item.task.line - 1].strip()
            assert item.task.var == before.var
    assert "line_questions" in summary


def test_eval_perturb_scores_an_oracle_fully_and_the_report_shows_the_drop(
    tmp_path: Path, data_dir: Path, caches: Path, tracer: Any, answering_model: Any
) -> None:
    data = data_dir / "cruxeval" / "cruxeval.jsonl"
    kinds = ("garbage", "prints")
    bench = RuntimeBenchmark()
    plan, _ = perturb_plan(
        bench, bench.plan(bench.load(str(data)), "all", limit=6, offset=0), kinds, 0, tracer
    )
    answers = {}
    for _, items in plan:
        for item in items:
            answer = truth_answer(item, path_as_number=True)
            if answer is not None:
                answers[bench.render(item, item.kind, "direct").text] = answer

    with answering_model(
        lambda prompt: f"[ANSWER]\n{answers.get(prompt, 'NO')}\n[/ANSWER]"
    ) as server:
        plain = run_eval(
            EvalConfig(
                benchmark="runtime",
                task="all",
                model="fake-model",
                base_url=server.base_url,
                n=1,
                max_tokens=64,
                limit=6,
                data=str(data),
                retries=0,
            ),
            tmp_path / "plain",
            show_progress=False,
        )
        done = subprocess.run(  # the CLI, as a user runs it
            [
                sys.executable,
                "-m",
                "execlens",
                "eval",
                "--benchmark",
                "runtime",
                "--task",
                "all",
                "--data",
                str(data),
                "--model",
                "fake-model",
                "--base-url",
                server.base_url,
                "--limit",
                "6",
                "--perturb",
                ",".join(kinds),
                "--out",
                str(tmp_path / "perturbed"),
            ],
            capture_output=True,
            text=True,
            timeout=300,
            env=dict(os.environ),
        )
    assert done.returncode == 0, done.stderr
    results = json.loads((tmp_path / "perturbed" / "results.json").read_text())
    block = results["perturbation"]
    assert block["kinds"] == list(kinds) and block["kept"] == sum(len(i) for _, i in plan)
    assert block["recomputed"]["path"] > 0  # inserted lines run between some lines
    metrics = results["metrics"]["strict"]
    for kind in ("coverage", "path", "state", "output", "input"):
        assert metrics[kind] == 100.0, (kind, metrics)
    samples = [
        json.loads(line)
        for line in (tmp_path / "perturbed" / "samples.jsonl").read_text().splitlines()
    ]
    assert any("print(" in s["prompt"]["user"] for s in samples)  # the perturbed program
    assert "perturbation" not in plain.results
    page = write_report(
        [tmp_path / "plain", tmp_path / "perturbed"], tmp_path / "report.html"
    ).read_text()
    assert 'id="robustness"' in page and "garbage+prints" in page


def test_rename_keeps_every_name_a_state_expression_spells(
    reval_dir: Path, caches: Path, tracer: Any
) -> None:
    # DREval/97 (runs 708-711) asks about `(self.textLen, self.patLen)`: `self` is a
    # parameter a rename would otherwise call `stack`, and the question would name nothing.
    bench = RuntimeBenchmark()
    plan = bench.plan(bench.load(str(reval_dir)), "state", limit=4, offset=708)
    asked = [item for item in plan[0][1] if not item.task.var.isidentifier()]
    assert asked
    new_plan, summary = perturb_plan(bench, plan, ["rename"], 0, tracer)
    assert summary["per_kind"]["rename"]["dropped_reasons"].get("state_changed", 0) == 0
    kept = {item.sample_id: item for item in new_plan[0][1]}
    for item in asked:
        assert item.sample_id in kept
        assert "self." in kept[item.sample_id].task.program
