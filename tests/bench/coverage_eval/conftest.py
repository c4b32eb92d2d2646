"""Fixtures of CoverageEval's tests: the shared data (upstream's files as staged), one
tracing engine for the module's traces, a stand-in model server.

Only the model server is a stand-in: the runner, client, cache, store, tracer, engine and
scorers are the real ones.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from execlens.engine import Engine

from ...standin_model import StandInModel, user_message


class AnsweringModel(StandInModel):
    """An OpenAI-shaped chat server whose reply to a prompt is ``answer(user message)``."""

    def __init__(self, answer: Callable[[str], str]) -> None:
        self.answer = answer
        super().__init__(lambda body: self.answer(user_message(body)))


@pytest.fixture
def answering_model() -> type[AnsweringModel]:
    """``with answering_model(lambda prompt: "> def f():") as server: ...``."""
    return AnsweringModel


@pytest.fixture
def coverage_dir(data_dir: Path) -> Path:
    """The staged upstream files (``data/``, ``experiments/``)."""
    path = data_dir / "coverageeval"
    if not (path / "experiments" / "zero_shot.jsonl").is_file():
        pytest.skip(f"{path} is missing the staged CoverageEval files")
    return path


@pytest.fixture(autouse=True)
def private_truth_cache(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """One truth cache for the session's CoverageEval runs (never the user's): the
    strict truth is built by ``bench.build_truths`` and kept there."""
    path = tmp_path_factory.getbasetemp() / "coverage-eval-truth"
    monkeypatch.setenv("EXECLENS_TRUTH_CACHE_DIR", str(path))
    return path


@pytest.fixture(scope="module")
def tracer() -> Iterator[Engine]:
    """One tracing engine (2 servers) per test module."""
    from execlens.trace import trace_engine

    with trace_engine(workers=2) as engine:
        yield engine
