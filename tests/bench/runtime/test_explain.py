"""The runtime benchmark's ``explain`` on CRUXEval's programs, traced for real: its expected
answer is one the judges accept, and the executed lines agree with the coverage truth."""

from __future__ import annotations

from pathlib import Path

from execlens.bench import get_benchmark
from execlens.judge import score_samples
from execlens.trace import trace_engine

LIMIT = 6


def test_expected_answers_pass_and_lines_agree(caches: Path, cruxeval_file: Path) -> None:
    bench = get_benchmark("runtime")
    plan = bench.plan(bench.load(str(cruxeval_file)), "all", limit=LIMIT, offset=0)
    assert {task for task, _ in plan} >= {"coverage", "path", "state", "output", "input"}
    with trace_engine(workers=2) as engine:
        for task, items in plan:
            context = bench.prepare(items, task, engine)
            views = {item.sample_id: bench.explain(item, task, context) for item in items}
            for item in items:
                view = views[item.sample_id]
                assert view["program"] == item.task.program
                if task in ("coverage", "path", "state"):
                    assert view["asked_line"] == item.task.line
                    lines = view["executed_lines"]
                    assert lines and lines == sorted(set(lines))
                    if task == "coverage":
                        assert (item.task.line in lines) == (view["expected"] == "YES")
                    if task == "path":  # only lines that ran are asked about
                        assert item.task.line in lines
            # A value without a literal has no right text: nothing to check there.
            answerable = [
                item for item in items if not views[item.sample_id]["expected"].startswith("<")
            ]
            assert answerable, task
            scorers = list(bench.scorers(task, "direct", context).values())
            answers = [
                (
                    item,
                    [
                        bench.extract(
                            f"[ANSWER]\n{views[item.sample_id]['expected']}\n[/ANSWER]",
                            item,
                            task,
                            "direct",
                            "openai",
                        ).text
                    ],
                )
                for item in answerable
            ]
            for item, scores in score_samples(scorers, answers, engine):
                for mode, score in scores.items():
                    assert score.scored == [True], (
                        task,
                        item.sample_id,
                        mode,
                        views[item.sample_id],
                        score.verdicts,
                    )
