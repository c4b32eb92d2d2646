"""A stand-in OpenAI-compatible *server* for eval runs (the client and runner are real),
and the official output-prediction prompt text the benchmarks' prompt tests share.

The embedded model is slow on a shared machine; these tests need a server that answers
fast, can be down, can fail chosen requests, and can be slow enough to kill a run mid-way.
"""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from ..standin_model import StandInModel

#: What the fake model answers: a CRUXEval-shaped assertion (right or wrong, it is scored).
ANSWER = "[ANSWER]\nassert f(x) == 'abc'\n[/ANSWER]"


class FakeModel(StandInModel):
    """Answers chat completions with :data:`ANSWER`; ``fail(body)`` picks requests to fail."""

    def __init__(
        self,
        port: int = 0,
        *,
        delay: float = 0.0,
        fail: Callable[[dict[str, Any]], bool] | None = None,
    ) -> None:
        self.fail = fail or (lambda body: False)
        super().__init__(lambda body: None if self.fail(body) else ANSWER, delay=delay, port=port)


def free_port() -> int:
    """A port nothing listens on (a model server that is down)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def model_server() -> type[FakeModel]:
    """The fake server class, for tests that start, stop and restart one on a port."""
    return FakeModel


@pytest.fixture
def down_port() -> int:
    """A port where no model server listens (yet)."""
    return free_port()


@pytest.fixture
def fake_model() -> Iterator[FakeModel]:
    """A running fake model server."""
    with FakeModel() as server:
        yield server


@pytest.fixture
def request_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Each test its own request cache (never the user's)."""
    directory = tmp_path / "request-cache"
    monkeypatch.setenv("EXECLENS_CACHE_DIR", str(directory))
    return directory


_OUTPUT_HEAD = (
    "You are given a Python function and an assertion containing an input to the function. "
    "Complete the assertion "
    "with a literal (no unsimplified expressions, no function calls) containing the output "
    "when executing the "
    "provided code on the given input, even if the function is incorrect or incomplete. "
    "Do NOT output any extra "
)


class OutputPromptText:
    """The official output-prediction text CRUXEval wrote (prompts.py) and LiveCodeBench's
    code-execution prompts repeat word for word (lcb_runner/prompts/code_execution.py),
    written out here independently of the templates (test modules cannot import conftest:
    they get it from the ``output_prompt_text`` fixture)."""

    SYSTEM = (
        "You are an expert at Python programming, code execution, test case generation, and "
        "fuzzing."
    )
    INSTRUCTIONS = {
        "direct": _OUTPUT_HEAD
        + "information. Provide the full assertion with the correct output in [ANSWER] and "
        "[/ANSWER] tags, following the examples.",
        "cot": _OUTPUT_HEAD
        + "information. Execute the program step by step before arriving at an answer, and "
        "provide the full assertion with the correct output in [ANSWER] and [/ANSWER] tags, "
        "following the examples.",
    }

    @classmethod
    def prompt(cls, style: str, rest: str) -> str:
        """The ``style`` instruction, then ``rest`` on the following lines."""
        return f"{cls.INSTRUCTIONS[style]}\n{rest}"


@pytest.fixture
def output_prompt_text() -> type[OutputPromptText]:
    """The official output-prediction instructions and system prompt."""
    return OutputPromptText


@pytest.fixture(scope="session")
def strict_truth_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One truth cache for a session's strict truths (``bench.build_truths``), never the
    user's."""
    return tmp_path_factory.mktemp("strict-truth")
