"""What a report says about how a run answered (issue 27): each warning once, a defaulted
answer shown as no answer, how the answers were read, and charts that weigh kilobytes.

Real runs against the stand-in server (only the server is stood in).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from execlens.bench import EvalConfig, run_eval
from execlens.engine import Engine

from ..standin_model import StandInModel, Thought


@pytest.fixture(autouse=True)
def _private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EXECLENS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("EXECLENS_TRUTH_CACHE_DIR", str(tmp_path / "truth"))
    monkeypatch.setenv("OPENAI_API_KEY", "stand-in")


def _eval(tmp_path: Path, engine: Engine, server: StandInModel, **fields: object) -> str:
    config = EvalConfig(model="m", base_url=server.base_url, retries=0, n=1, **fields)  # type: ignore[arg-type]
    result = run_eval(config, tmp_path / "run", show_progress=False, engine=engine)
    assert result.report is not None
    return result.report.read_text(encoding="utf-8")


def test_a_warning_is_shown_once_and_the_report_is_light(
    tmp_path: Path, data_dir: Path, engine: Engine
) -> None:
    long = Thought("step " * 50, "[ANSWER]\nassert f(1) == 1\n[/ANSWER]")
    with StandInModel(lambda body: long) as server:
        report = _eval(
            tmp_path,
            engine,
            server,
            benchmark="cruxeval",
            task="output",
            limit=4,
            data=str(data_dir / "cruxeval"),
            max_tokens=5,  # every thought cut off: the run warns
        )
    assert len(re.findall(r"cut off by the token limit", report)) == 1
    # How the answers were read, per run.
    assert 'class="read-as"' in report and "drafts-possible" in report
    # Charts as inline SVG: no plotting script (it was ~4.8 MB in every report).
    assert '<svg class="chart"' in report and "Plotly" not in report
    assert len(report.encode()) < 200_000


def test_a_defaulted_answer_is_shown_as_no_answer(
    tmp_path: Path, data_dir: Path, engine: Engine
) -> None:
    """REval reads a coverage answer it cannot find as NO: the report says the model gave
    no answer and what it was read as, never that the model answered NO."""
    with StandInModel(lambda body: "Hard to say.\n[/ANSWER]") as server:
        report = _eval(
            tmp_path,
            engine,
            server,
            benchmark="reval",
            task="coverage",
            limit=6,
            data=str(data_dir / "reval"),
        )
    assert "no answer (read as NO)" in report
    assert 'answered <code class="answered">NO</code>' not in report
