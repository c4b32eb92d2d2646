"""The demo's data: execlens's own programs, references computed in the sandbox."""

from __future__ import annotations

import json
from pathlib import Path

from execlens.bench import load_cruxeval, load_reval, reval_pairs, reval_questions
from execlens.bench._demo import build_demo_cruxeval, build_demo_reval
from execlens.bench.examples.programs import EXAMPLES
from execlens.engine import Engine
from execlens.values import parse_literal


def test_demo_data_loads_as_cruxeval_and_reval(tmp_path: Path, engine: Engine) -> None:
    crux = build_demo_cruxeval(engine, tmp_path / "cruxeval.jsonl")
    samples = load_cruxeval(crux)
    assert not samples.errors
    total_inputs = sum(len(e["inputs"]) for e in EXAMPLES)  # type: ignore[arg-type]
    assert len(samples.records) == total_inputs
    by_id = {s.id: s for s in samples.records}
    # Spot-check references against hand-computed answers.
    assert parse_literal(by_id["example_1_0"].output) == 8    # collatz steps from 6
    assert parse_literal(by_id["example_4_1"].output) is False  # '(]' is unbalanced
    assert parse_literal(by_id["example_7_2"].output) == 5    # gcd(0, 5)

    reval_dir = build_demo_reval(crux, tmp_path / "reval")
    problems = load_reval(reval_dir)
    assert not problems.errors and len(problems.records) == len(EXAMPLES)
    questions = reval_questions(problems.records)
    assert len(reval_pairs(problems.records)) == total_inputs
    assert questions and all(q.question.var for q in questions)
    rows = [json.loads(line) for line in (reval_dir / "DREval_data.jsonl").read_text().splitlines()]
    assert all(text.endswith(",)") for row in rows for text in row["inputs"])
