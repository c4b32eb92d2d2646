"""Every shape a model answers in, under the default ``--reasoning auto``: 100 official and
strict for a model that answers every question right in its final part and keeps a wrong
*draft* in its thought -- on CRUXEval, REval and CodeMind.

The stand-in server behaves as a real one: the request's stop strings end the generation
wherever they first occur, thought included (a stop sent to a thinker would end it at its
draft), and ``max_tokens`` (a token = a word here) cuts it with ``finish_reason="length"``.
Only the server is stood in: the client, cache, runner, reading, extraction, engine and
judges are real.  The shapes:

* **opened**: the chat template opened ``<think>``: the content holds the thought, a
  lone ``</think>`` and the final part (DeepSeek-R1 distills, QwQ, Qwen3 without a
  reasoning parser);
* **hybrid-***: the first reply the server gives has no thought, the later ones do --
  inline tags, vLLM's ``reasoning_content`` field, the newer ``reasoning`` field;
* **qwen3-empty**: Qwen3 with thinking switched off (``<think>\\n\\n</think>`` then the
  answer) on a server whose context is 8,192 tokens (it refuses more);
* **long-thought**: a thought far longer than the direct prompt's official budget.
"""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from execlens.bench import EvalConfig, get_benchmark, run_eval
from execlens.bench.cruxeval import load_cruxeval
from execlens.engine import Engine

from ..standin_model import StandInModel, Thought, user_message

LIMIT = 4
LONG = " ".join(f"step{i}" for i in range(1500))  # longer than every official budget
SCENARIOS = (
    "opened",
    "hybrid-tags",
    "hybrid-field",
    "hybrid-reasoning",
    "qwen3-empty",
    "long-thought",
)


@pytest.fixture(scope="module")
def _truth(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("truth")


@pytest.fixture(autouse=True)
def _private_cache(tmp_path: Path, _truth: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EXECLENS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("EXECLENS_TRUTH_CACHE_DIR", str(_truth))
    monkeypatch.setenv("OPENAI_API_KEY", "stand-in")


# (draft, final) for a prompt: the draft is wrong, the final right.
Answers = Callable[[str], tuple[str, str]]


def _server(scenario: str, answers: Answers) -> StandInModel:
    """The stand-in model of ``scenario`` (see the module docstring)."""
    counter = itertools.count()
    lock = threading.Lock()

    def reply(body: dict[str, Any]) -> str | Thought:
        draft, final = answers(user_message(body))
        thought = f"Let me run it. {draft} Hmm, no: recount."
        with lock:
            first = next(counter) == 0
        if scenario == "opened":
            return Thought(thought, final, "opened")
        if scenario.startswith("hybrid-"):
            shape = {"tags": "tags", "field": "field", "reasoning": "reasoning"}[
                scenario.split("-", 1)[1]
            ]
            return final if first else Thought(thought, final, shape)
        if scenario == "qwen3-empty":
            return f"<think>\n\n</think>\n\n{final}"
        assert scenario == "long-thought"
        return Thought(f"{LONG} {thought}", final, "opened")

    return StandInModel(reply, context=8192 if scenario == "qwen3-empty" else None)


def _run(tmp_path: Path, config: dict[str, Any], server: StandInModel, engine: Engine) -> Any:
    with server:
        result = run_eval(
            EvalConfig(model="thinker", base_url=server.base_url, retries=0, **config),
            tmp_path / "run",
            show_progress=False,
            engine=engine,
        )
    return result


def _block(text: str) -> str:
    return f"[ANSWER]\n{text}\n[/ANSWER]"


# --- the three benchmarks: their right and wrong answers ----------------------------------


def _cruxeval(data_dir: Path, engine: Engine) -> tuple[dict[str, Any], Answers, str]:
    records = load_cruxeval(data_dir / "cruxeval").records[:LIMIT]

    def answers(prompt: str) -> tuple[str, str]:
        record = next(r for r in records if r.code in prompt)
        right = f"assert f({record.input}) == {record.output}"
        return _block("assert f(x) == 'draft'"), _block(right)

    config = {
        "benchmark": "cruxeval",
        "task": "output",
        "limit": LIMIT,
        "data": str(data_dir / "cruxeval"),
    }
    return config, answers, "pass@1"


def _reval(data_dir: Path, engine: Engine) -> tuple[dict[str, Any], Answers, str]:
    bench = get_benchmark("reval")
    [(_, items)] = bench.plan(bench.load(str(data_dir / "reval")), "coverage", limit=8, offset=0)
    context = bench.prepare(items, "coverage", engine)
    expected = {}
    for item in items:
        view = bench.explain(item, "coverage", context)
        assert "expected_by_mode" not in view  # one right answer for both modes
        expected[bench.render(item, "coverage", "direct").text] = view["expected"]

    def answers(prompt: str) -> tuple[str, str]:
        right = expected[prompt]
        return _block("NO" if right == "YES" else "YES"), f"{right}\n[/ANSWER]"

    config = {
        "benchmark": "reval",
        "task": "coverage",
        "limit": 8,
        "data": str(data_dir / "reval"),
    }
    return config, answers, "coverage"


def _codemind(data_dir: Path, engine: Engine) -> tuple[dict[str, Any], Answers, str]:
    bench = get_benchmark("codemind")
    [(_, items)] = bench.plan(bench.load(None), "ier-cruxeval", limit=LIMIT, offset=0)
    outputs = {bench.render(item, "ier-cruxeval", "direct").text: item.output for item in items}

    def ier(output: str) -> str:
        return f"<<<Analysis>>>\nStep by step.\n<<<Output>>>\n{output}\n[END-OF-RESPONSE]"

    def answers(prompt: str) -> tuple[str, str]:
        return ier("'draft'"), ier(outputs[prompt])

    return {"benchmark": "codemind", "task": "ier-cruxeval", "limit": LIMIT}, answers, "accuracy"


BENCHMARKS = {"cruxeval": _cruxeval, "reval": _reval, "codemind": _codemind}


def _score(metrics: dict[str, Any], key: str) -> float:
    """Every metric of the run at 100 (precision, recall and F1 too), else the lowest."""
    assert key in metrics, metrics
    return min(float(value) for value in metrics.values())


@pytest.mark.parametrize("scenario", SCENARIOS)
@pytest.mark.parametrize("benchmark", sorted(BENCHMARKS))
def test_every_shape_scores_its_final_answer(
    tmp_path: Path, data_dir: Path, engine: Engine, benchmark: str, scenario: str
) -> None:
    config, answers, key = BENCHMARKS[benchmark](data_dir, engine)
    server = _server(scenario, answers)
    result = _run(tmp_path, config, server, engine)
    metrics = result.results["metrics"]
    assert _score(metrics["official"], key) == 100.0, metrics
    assert _score(metrics["strict"], key) == 100.0, metrics
    # Nothing was sent that could end a thought at its draft.
    assert set(server.stops_seen) == {()}
    responses = result.results["responses"]
    assert responses["drafts_possible"] == 0
    assert responses["stop_sent"] == []
    samples = [json.loads(x) for x in (tmp_path / "run" / "samples.jsonl").read_text().splitlines()]
    shapes = [shape for sample in samples for shape in sample["read_as"]]
    if scenario == "qwen3-empty":  # an empty think block is no thought
        assert set(shapes) == {"none"}
        assert responses["reasoning_detected"] is False
        assert server.refused == []  # never asked past the server's 8k context
    elif scenario.startswith("hybrid-"):
        # Read per reply: the first (one request, its n samples) without a thought, every
        # later one with.
        plain = [sample for sample in samples if set(sample["read_as"]) == {"none"}]
        assert len(plain) == 1, shapes
        assert "none" not in {
            s for sample in samples if sample is not plain[0] for s in sample["read_as"]
        }
        assert responses["reasoning_detected"] is True
    else:
        assert set(shapes) == {"opened"}
    if scenario == "long-thought":
        # Cut at the official budget, asked again with room to think: nothing cut is kept.
        first = responses["budget"]["first"]
        assert responses["budget"]["asked_again_with_room"] == len(shapes)
        assert {b for sample in samples for b in sample["max_tokens"]} == {32768}
        assert responses["truncated"] == responses["truncated_in_reasoning"] == 0
        assert first in server.max_tokens_seen and 32768 in server.max_tokens_seen
    else:
        assert responses["budget"]["asked_again_with_room"] == 0


def test_a_thinker_on_a_small_server_is_asked_within_its_limit_and_told(
    tmp_path: Path, data_dir: Path, engine: Engine
) -> None:
    """A thought longer than the official budget on an 8k server that does not report its
    context: the 32k ask is refused, and asked again within the limit its message names."""
    config, answers, _ = _cruxeval(data_dir, engine)

    def reply(body: dict[str, Any]) -> Thought:
        draft, final = answers(user_message(body))
        return Thought(f"{LONG} {draft}", final, "opened")

    heard: list[str] = []
    server = StandInModel(reply, context=8192)
    with server:
        result = run_eval(
            EvalConfig(model="thinker", base_url=server.base_url, retries=0, n=1, **config),
            tmp_path / "run",
            show_progress=False,
            engine=engine,
            warn=heard.append,
        )
    assert result.results["metrics"]["strict"]["pass@1"] == 100.0
    assert server.refused and set(server.refused) == {32768}
    assert any("maximum context length is 8192" in note for note in heard), heard
    budget = result.results["responses"]["budget"]
    assert budget["within_server_limit"] == LIMIT
    assert any("server's context" in flag for flag in result.results["flags"])


def test_a_server_that_reports_its_context_is_never_asked_past_it(
    tmp_path: Path, data_dir: Path, engine: Engine
) -> None:
    config, answers, _ = _cruxeval(data_dir, engine)

    def reply(body: dict[str, Any]) -> Thought:
        draft, final = answers(user_message(body))
        return Thought(f"{LONG} {draft}", final, "opened")

    server = StandInModel(reply, context=8192, report_context=True, models=("thinker",))
    with server:
        result = run_eval(
            EvalConfig(model="thinker", base_url=server.base_url, retries=0, **config),
            tmp_path / "run",
            show_progress=False,
            engine=engine,
        )
    assert server.refused == []
    assert result.results["responses"]["budget"]["server_context"] == 8192
    assert result.results["metrics"]["official"]["pass@1"] == 100.0
    assert all(8192 > m > 100 for m in server.max_tokens_seen if m != 100)
