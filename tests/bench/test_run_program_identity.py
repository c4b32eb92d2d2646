"""A run's identity names the program environment its verdicts were computed under."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from execlens.bench import Generations, ScoreRunError, run_score
from execlens.bench.cruxeval import load_cruxeval
from execlens.engine import Engine, program_fingerprint


def test_a_rerun_under_another_program_interpreter_is_a_different_run(
    tmp_path: Path, data_dir: Path, engine: Any
) -> None:
    records = load_cruxeval(data_dir / "cruxeval").records[:3]
    generations = Generations(
        "output",
        [(r, [r.output]) for r in records],
        context="output",
        notes={"official_task": "output"},
    )
    out = tmp_path / "score"
    run_score(out, "cruxeval", generations, engine=engine)
    if program_fingerprint(engine.python).key() == program_fingerprint(sys.executable).key():
        pytest.skip("the host interpreter is the program interpreter here")
    with Engine(workers=1, python=sys.executable) as host:
        with pytest.raises(ScoreRunError, match="program"):
            run_score(out, "cruxeval", generations, engine=host)
    # The same interpreter resumes it: nothing is scored again.
    assert run_score(out, "cruxeval", generations, engine=engine).scored_now == 0
