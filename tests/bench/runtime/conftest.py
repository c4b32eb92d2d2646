"""Fixtures of the runtime benchmark's tests: a stand-in model server that answers each
prompt as a test tells it to, a private request cache and truth cache.

Only the model server is a stand-in: the runner, client, cache, store, tracer, engine and
judges are the real ones.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from ...standin_model import StandInModel, user_message

Answer = Callable[[str], str]


class AnsweringModel(StandInModel):
    """An OpenAI-shaped chat server whose reply to a prompt is ``answer(user message)``."""

    def __init__(self, answer: Answer, *, delay: float = 0.0, port: int = 0) -> None:
        self.answer = answer
        super().__init__(lambda body: self.answer(user_message(body)), delay=delay, port=port)


@pytest.fixture
def answering_model() -> type[AnsweringModel]:
    """``with answering_model(lambda prompt: "[ANSWER]YES[/ANSWER]") as server: ...``."""
    return AnsweringModel


@pytest.fixture(scope="session")
def truth_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One truth cache for the session: programs are traced once."""
    return tmp_path_factory.mktemp("runtime-truth")


@pytest.fixture
def caches(tmp_path: Path, truth_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh request cache per test (never the user's); the session's truth cache."""
    monkeypatch.setenv("EXECLENS_CACHE_DIR", str(tmp_path / "request-cache"))
    monkeypatch.setenv("EXECLENS_TRUTH_CACHE_DIR", str(truth_dir))
    return tmp_path / "request-cache"


@pytest.fixture
def cruxeval_file(data_dir: Path) -> Path:
    """CRUXEval's 800 programs (the shared data)."""
    path = data_dir / "cruxeval" / "cruxeval.jsonl"
    if not path.is_file():
        pytest.skip(f"{path} is missing")
    return path
