"""Reasoning models through ``execlens eval``: the final answer is scored, never the draft.

The stand-in server answers as a thinking model does -- a thought holding a *draft*
answer block, then a final answer that disagrees with it -- in each shape servers use:
``<think>`` in the content, a separate ``reasoning_content`` field, harmony channels, and
a thought cut off by the token limit.  Like a real server it applies the request's stop
strings to the whole generation, thought included, so a run that sent ``[/ANSWER]`` to a
thinker would end it at its draft.  Everything but the server is real: the client,
cache, runner, extraction, judges and engine.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from execlens.bench import EvalConfig, run_eval
from execlens.bench.cruxeval import load_cruxeval

from ..standin_model import StandInModel, Thought, user_message
from .lcb_exec.test_score import ROWS

SHAPES = ("tags", "field", "harmony")
LIMIT = 4


@pytest.fixture(scope="module")
def _truth(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("truth")


@pytest.fixture(autouse=True)
def _private_cache(tmp_path: Path, _truth: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EXECLENS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("EXECLENS_TRUTH_CACHE_DIR", str(_truth))
    monkeypatch.setenv("OPENAI_API_KEY", "stand-in")


def _thinker(answer: Callable[[str], tuple[str, str]], shape: str) -> StandInModel:
    """A server whose model drafts ``answer(prompt)[0]`` in its thought and answers ``[1]``."""

    def reply(body: dict[str, Any]) -> Thought:
        draft, final = answer(user_message(body))
        return Thought(f"Let me run it. {draft} Hmm, no: recount.", final, shape)

    return StandInModel(reply)


def _block(text: str) -> str:
    return f"[ANSWER]\n{text}\n[/ANSWER]"


def _samples(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]


# --- CRUXEval: right and wrong answers known from the data --------------------------------


def _cruxeval_answers(data_dir: Path) -> Callable[[str], tuple[str, str]]:
    records = load_cruxeval(data_dir / "cruxeval").records[:LIMIT]

    def right(prompt: str) -> str:
        record = next(r for r in records if r.code in prompt)
        return f"assert f({record.input}) == {record.output}"

    return lambda prompt: (_block("assert f(x) == 'draft'"), _block(right(prompt)))


def _cruxeval(data_dir: Path, base_url: str, prompt: str = "direct", **fields: Any) -> EvalConfig:
    return EvalConfig(
        benchmark="cruxeval",
        task="output",
        prompt=prompt,
        model="thinker",
        base_url=base_url,
        n=1,
        temperature=0.0,
        limit=LIMIT,
        data=str(data_dir / "cruxeval"),
        retries=0,
        **fields,
    )


@pytest.mark.parametrize("prompt", ["direct", "cot"])
@pytest.mark.parametrize("shape", SHAPES)
def test_cruxeval_scores_the_final_answer_after_a_wrong_draft(
    tmp_path: Path, data_dir: Path, shape: str, prompt: str
) -> None:
    answers = _cruxeval_answers(data_dir)
    with _thinker(answers, shape) as server:
        result = run_eval(
            _cruxeval(data_dir, server.base_url, prompt), tmp_path / "run", show_progress=False
        )
        stops = list(server.stops_seen)
    assert result.results["metrics"]["strict"]["pass@1"] == 100.0
    assert result.results["metrics"]["official"]["pass@1"] == 100.0
    # No request carried the benchmark's stop string (a server would apply it inside the
    # thought, at the draft): it cut each final part afterwards.
    assert stops == [()] * LIMIT
    responses = result.results["responses"]
    assert responses["reasoning_detected"] is True
    assert responses["stop_sent"] == [] and responses["stop_applied_to_final"] == ["[/ANSWER]"]
    assert responses["with_reasoning"] == LIMIT and responses["truncated_in_reasoning"] == 0
    assert responses["read_as"] == {"field" if shape == "field" else shape: LIMIT}
    # Asked with the official budget: the short thought fitted, nothing was asked again.
    assert result.results["sampling"]["max_tokens"] == (100 if prompt == "direct" else 1000)
    assert responses["budget"]["thinking"] == 32768
    assert responses["budget"]["asked_again_with_room"] == 0
    for sample in _samples(tmp_path / "run"):
        assert "'draft'" in sample["reasoning"][0]
        assert "'draft'" not in sample["finals"][0] and "'draft'" not in sample["answers"][0]
        assert sample["response_status"] == ["complete"]
        assert sample["finish_reasons"] == ["stop"]


@pytest.mark.parametrize("shape", SHAPES)
def test_a_right_draft_with_a_wrong_final_answer_scores_zero(
    tmp_path: Path, data_dir: Path, shape: str
) -> None:
    right_then_wrong = _cruxeval_answers(data_dir)
    with _thinker(lambda p: right_then_wrong(p)[::-1], shape) as server:
        result = run_eval(
            _cruxeval(data_dir, server.base_url), tmp_path / "run", show_progress=False
        )
    for mode in ("official", "strict"):
        assert result.results["metrics"][mode]["pass@1"] == 0.0


def test_reasoning_off_sends_the_stop_and_scores_the_draft(tmp_path: Path, data_dir: Path) -> None:
    """What every run did before: the stop ends a thinker at its draft (kept as an option
    for models whose content must be read whole)."""
    with _thinker(_cruxeval_answers(data_dir), "tags") as server:
        result = run_eval(
            _cruxeval(data_dir, server.base_url, reasoning="off"),
            tmp_path / "run",
            show_progress=False,
        )
        stops = set(server.stops_seen)
    assert stops == {("[/ANSWER]",)}
    assert result.results["metrics"]["strict"]["pass@1"] == 0.0
    assert result.results["responses"]["reasoning_detected"] is False


def test_a_thought_cut_off_by_the_token_limit_has_no_answer_and_the_run_says_so(
    tmp_path: Path, data_dir: Path
) -> None:
    answers = _cruxeval_answers(data_dir)
    with _thinker(answers, "tags") as server:
        result = run_eval(
            _cruxeval(data_dir, server.base_url, reasoning="on", max_tokens=5),
            tmp_path / "run",
            show_progress=False,
        )
        stops = set(server.stops_seen)
    assert stops == {()}  # declared a thinker: no stop string, ever
    responses = result.results["responses"]
    assert responses["truncated_in_reasoning"] == LIMIT == responses["no_answer"]
    assert any("cut off by the token limit" in flag for flag in result.results["flags"])
    for mode in ("official", "strict"):
        assert result.results["metrics"][mode]["pass@1"] == 0.0
    for sample in _samples(tmp_path / "run"):
        assert sample["response_status"] == ["truncated_in_reasoning"]
        assert sample["extraction"] == ["truncated_in_reasoning"]
        assert sample["answers"] == [""] and sample["finish_reasons"] == ["length"]


def test_a_plain_model_is_not_taken_for_a_thinker(tmp_path: Path, data_dir: Path) -> None:
    answers = _cruxeval_answers(data_dir)
    with StandInModel(lambda body: answers(user_message(body))[1]) as server:
        result = run_eval(
            _cruxeval(data_dir, server.base_url), tmp_path / "run", show_progress=False
        )
        stops = set(server.stops_seen)
        budgets = set(server.max_tokens_seen)
    assert stops == {()}  # the official stop cut each final part afterwards instead
    assert result.results["responses"]["reasoning_detected"] is False
    assert result.results["responses"]["read_as"] == {"none": LIMIT}
    assert budgets == {100}  # the official budget, never more: no reply was cut
    assert result.results["sampling"]["max_tokens"] == 100
    assert result.results["metrics"]["strict"]["pass@1"] == 100.0


# --- LiveCodeBench execution --------------------------------------------------------------


@pytest.mark.parametrize("prompt", ["direct", "cot"])
@pytest.mark.parametrize("shape", SHAPES)
def test_lcb_scores_the_final_answer(tmp_path: Path, shape: str, prompt: str) -> None:
    data = tmp_path / "execution-v2.jsonl"
    data.write_text("".join(json.dumps(row) + "\n" for row in ROWS))

    def answer(text: str) -> tuple[str, str]:
        row = next(r for r in ROWS if r["code"] in text)
        return (
            _block(f"assert {row['input']} == 'draft'"),
            _block(f"assert {row['input']} == {row['output']}"),
        )

    with _thinker(answer, shape) as server:
        result = run_eval(
            EvalConfig(
                benchmark="lcb-exec",
                task="output",
                prompt=prompt,
                model="thinker",
                base_url=server.base_url,
                n=1,
                temperature=0.0,
                data=str(data),
                retries=0,
            ),
            tmp_path / "run",
            show_progress=False,
        )
    for mode in ("official", "strict"):
        assert result.results["metrics"][mode]["pass@1"] == 100.0


# --- REval and the runtime benchmark: a thinker scores as a plain model giving its final ---


def _constant(answer: str) -> StandInModel:
    return StandInModel(lambda body: f"{answer}\n[/ANSWER]")


def _metrics(config: EvalConfig, out: Path) -> dict[str, Any]:
    return dict(run_eval(config, out, show_progress=False).results["metrics"])


@pytest.mark.parametrize("prompt", ["direct", "cot"])
@pytest.mark.parametrize("shape", SHAPES)
def test_reval_coverage_scores_the_final_answer(
    tmp_path: Path, data_dir: Path, shape: str, prompt: str
) -> None:
    def config(base_url: str) -> EvalConfig:
        return EvalConfig(
            benchmark="reval",
            task="coverage",
            prompt=prompt,
            model="m",
            base_url=base_url,
            n=1,
            temperature=0.0,
            limit=8,
            retries=0,
            data=str(data_dir / "reval"),
        )

    # A direct prompt ends in [ANSWER]; a CoT prompt in [THOUGHT], which the answer closes
    # before opening its own block.
    opened = "1. Run it.\n[/THOUGHT]\n[ANSWER]\n" if prompt == "cot" else ""
    with _constant(f"{opened}YES") as yes:
        says_yes = _metrics(config(yes.base_url), tmp_path / "yes")
    with _constant(f"{opened}NO") as no:
        says_no = _metrics(config(no.base_url), tmp_path / "no")
    assert says_yes != says_no  # the slice tells the two answers apart
    with _thinker(lambda p: (_block("NO"), f"{opened}YES\n[/ANSWER]"), shape) as thinker:
        thought_yes = _metrics(config(thinker.base_url), tmp_path / "thinker")
    assert thought_yes == says_yes


@pytest.mark.parametrize("prompt", ["direct", "cot"])
@pytest.mark.parametrize("shape", SHAPES)
def test_runtime_benchmark_scores_the_final_answer(
    tmp_path: Path, data_dir: Path, shape: str, prompt: str
) -> None:
    def config(base_url: str) -> EvalConfig:
        return EvalConfig(
            benchmark="runtime",
            task="coverage",
            prompt=prompt,
            model="m",
            base_url=base_url,
            n=1,
            temperature=0.0,
            limit=12,
            retries=0,
            data=str(data_dir / "cruxeval" / "cruxeval.jsonl"),
        )

    opened = "1. Run it.\n[/THOUGHT]\n" if prompt == "cot" else ""
    with _constant(f"{opened}[ANSWER]\nYES") as yes:
        says_yes = _metrics(config(yes.base_url), tmp_path / "yes")
    with _constant(f"{opened}[ANSWER]\nNO") as no:
        assert _metrics(config(no.base_url), tmp_path / "no") != says_yes
    with _thinker(lambda p: (_block("NO"), f"{opened}[ANSWER]\nYES\n[/ANSWER]"), shape) as thinker:
        assert _metrics(config(thinker.base_url), tmp_path / "thinker") == says_yes


# --- execlens score: a generations file written by a thinker ------------------------------


def test_score_reads_the_final_answer_of_each_generation(
    tmp_path: Path, data_dir: Path, engine: Any
) -> None:
    from execlens.bench import Generations, run_score

    records = load_cruxeval(data_dir / "cruxeval").records[:LIMIT]
    items = [
        (
            record,
            [
                f"<think>maybe {record.output}[::-1]</think>{record.output}",  # right final
                f"<think>surely {record.output}</think>'not it'",  # right draft only
                f"<think>cut off while thinking about {record.output}",  # no final part
            ],
        )
        for record in records
    ]
    result = run_score(
        tmp_path / "score",
        "cruxeval",
        Generations("output", items, context="output", notes={"official_task": "output"}),
        engine=engine,
    )
    for sample in _samples(tmp_path / "score"):
        assert sample["official"] == [True, False, False]
        assert sample["strict"] == [True, False, False]
    assert result.results["samples"] == LIMIT


def test_a_plain_model_writing_on_past_its_answer_is_cut_asked_again_and_told(
    tmp_path: Path, data_dir: Path
) -> None:
    """No stop string is sent: a model that does not think but writes on after its answer
    is cut by the official budget, asked once more with room (it could have been a thought
    the chat template opened), read as it was -- and the run says those tokens bought
    nothing, and how to save them."""
    answers = _cruxeval_answers(data_dir)
    with StandInModel(lambda body: answers(user_message(body))[1] + " and so on" * 60) as server:
        result = run_eval(
            _cruxeval(data_dir, server.base_url), tmp_path / "run", show_progress=False
        )
        budgets = sorted(server.max_tokens_seen)
    assert budgets == [100] * LIMIT + [32768] * LIMIT
    assert result.results["metrics"]["strict"]["pass@1"] == 100.0
    budget = result.results["responses"]["budget"]
    assert budget["asked_again_with_room"] == budget["asked_again_without_thought"] == LIMIT
    assert any("--max-tokens" in flag for flag in result.results["flags"])
    for sample in _samples(tmp_path / "run"):
        assert sample["finals"][0].endswith("== " + sample["answers"][0] + "\n")
