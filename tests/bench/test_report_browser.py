"""The HTML report opened in headless Chromium: tables and plots render, no console errors,
and a REval run's failure view shows what a reader needs to explain each failure
(``EXECLENS_SCREENSHOTS=DIR`` keeps its screenshot there)."""

from __future__ import annotations

import json
import os
import shutil
import zlib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from execlens.bench import EvalConfig, Generations, run_eval, run_score, write_report
from execlens.bench.cruxeval import load_cruxeval
from execlens.tasks import prediction_task

from ..standin_model import StandInModel, Thought, user_message

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
BROWSER_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="module")
def browser():  # type: ignore[no-untyped-def]
    if not os.path.exists(CHROMIUM):
        message = "Debian chromium is not installed (make test installs it)"
        if os.environ.get("EXECLENS_REQUIRE_DATA"):
            pytest.fail(message)
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=CHROMIUM, args=BROWSER_FLAGS)
        yield instance
        instance.close()


@pytest.fixture(scope="module")
def scored_runs(tmp_path_factory: pytest.TempPathFactory, data_dir: Path, engine) -> list[Path]:
    """Two real score runs of the official Code Llama generations (40 samples each)."""
    problems = {p.id: p for p in load_cruxeval(data_dir / "cruxeval").records}
    runs = []
    for task in ("input", "output"):
        generations = json.loads(
            (data_dir / "cruxeval" / f"codellama-7b_temp0.2_{task}_generations.json").read_text()
        )
        ids = sorted(generations, key=lambda key: int(key.split("_")[1]))[:40]
        items = [
            (
                prediction_task(
                    id=i,
                    code=problems[i].code,
                    input=problems[i].input,
                    output=problems[i].output,
                    kind=task,
                ),
                generations[i],
            )
            for i in ids
        ]
        out = tmp_path_factory.mktemp(f"score-{task}")
        run_score(out, "cruxeval", Generations(task, items, context=task), engine=engine)
        runs.append(out)
    return runs


def _open(browser, path: Path):  # type: ignore[no-untyped-def]
    page = browser.new_page(viewport={"width": 1280, "height": 1600})
    errors: list[str] = []
    page.on(
        "console", lambda message: errors.append(message.text) if message.type == "error" else None
    )
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(path.resolve().as_uri())
    page.wait_for_selector(".plot svg.chart", timeout=20_000)
    return page, errors


def test_single_run_report_renders(browser, scored_runs: list[Path]) -> None:  # type: ignore[no-untyped-def]
    report = write_report([scored_runs[0]], scored_runs[0] / "report.html")
    page, errors = _open(browser, report)
    assert errors == []
    assert page.locator("#summary tbody tr").count() == 2  # official and strict
    assert page.locator(".plot svg.chart rect").count() >= 1  # bars drawn
    failed = page.locator("details")
    assert failed.count() > 0
    failed.first.locator("summary").click()
    assert failed.first.get_attribute("open") is not None
    page.close()


def test_comparison_report_renders(browser, scored_runs: list[Path], tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    report = write_report(scored_runs, tmp_path / "compare.html")
    page, errors = _open(browser, report)
    assert errors == []
    assert page.locator("#summary tbody tr").count() == 4
    headings = page.locator("h2").all_inner_texts()
    assert any("input" in h for h in headings) and any("output" in h for h in headings)
    page.close()


def test_reference_and_baselines_are_shown_beside_the_scores(  # type: ignore[no-untyped-def]
    browser, scored_runs: list[Path], tmp_path: Path
) -> None:
    run = tmp_path / "with-reference"
    shutil.copytree(scored_runs[1], run)
    results = json.loads((run / "results.json").read_text())
    results["reference_numbers"] = {"pass@1": 34.21, "pass@5": 40.29}
    results["reference_source"] = "CRUXEval official scored generations, Code Llama 7B, T = 0.2"
    results["baselines"] = {"always_yes (official)": {"pass@1": 50.0}}  # REval's nested shape
    (run / "results.json").write_text(json.dumps(results))
    page, errors = _open(browser, write_report([run], run / "report.html"))
    assert errors == []
    row = page.locator("#summary tr.reference")
    assert row.count() == 1 and "34.21" in row.inner_text()
    assert "Code Llama 7B" in page.locator(".reference-source").inner_text()
    names = page.evaluate(
        "Array.from(document.querySelectorAll('.plot svg.chart g.series'))"
        ".map(series => series.dataset.name)"
    )
    assert any(name.startswith("reference: CRUXEval") for name in names)
    assert "baseline: always_yes (official)" in names
    page.close()


# --------------------------------------------------------------------------- failure view
REVAL_LIMIT = 12


def _reval_reply(body: dict[str, Any]) -> Thought:
    """A thinker that answers every coverage question NO after a short thought, and on
    about a third of the prompts (chosen by their text, so every run picks the same)
    thinks past its token budget and is cut off before answering."""
    prompt = user_message(body)
    if zlib.crc32(prompt.encode()) % 3 == 0:
        return Thought(
            " ".join(["tracing the loop by hand, one more iteration..."] * 200),
            "YES\n[/ANSWER]",
            shape="field",
        )
    return Thought(
        "The loop runs over every pair; the early return needs two numbers "
        "closer than the threshold, so I think the line is not reached.",
        "NO\n[/ANSWER]",
        shape="field",
    )


@pytest.fixture(scope="module")
def reval_run(tmp_path_factory: pytest.TempPathFactory, data_dir: Path) -> Path:
    """A real REval coverage run (runner, client, cache, traced truth, both judges) against
    a stand-in reasoning model that answers NO everywhere: its YES questions fail."""
    out = tmp_path_factory.mktemp("reval-coverage") / "run"
    with pytest.MonkeyPatch.context() as env:
        env.setenv("EXECLENS_CACHE_DIR", str(out.parent / "cache"))
        env.setenv("EXECLENS_TRUTH_CACHE_DIR", str(out.parent / "truth"))
        env.setenv("OPENAI_API_KEY", "stand-in")
        with StandInModel(_reval_reply) as server:
            config = EvalConfig(
                benchmark="reval",
                task="coverage",
                prompt="direct",
                model="stand-in",
                base_url=server.base_url,
                n=1,
                temperature=0.0,
                max_tokens=300,
                limit=REVAL_LIMIT,
                data=str(data_dir / "reval"),
                retries=0,
            )
            # Playwright's sync API keeps an event loop running in this thread once the
            # browser is up; the runner starts its own, so it runs in a thread of its own.
            with ThreadPoolExecutor(1) as pool:
                pool.submit(run_eval, config, out, show_progress=False).result()
    return out


def test_reval_failure_view(browser, reval_run: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    samples = [
        json.loads(line)
        for line in (reval_run / "samples.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    results = json.loads((reval_run / "results.json").read_text(encoding="utf-8"))
    failed = [s for s in samples if not any(s["strict"]) or not any(s["official"])]
    assert failed, "the constant NO must fail the questions whose line ran"
    page, errors = _open(browser, reval_run / "report.html")
    assert errors == []

    # The summary: how the model answered, and a warning when many were cut off.
    responses = results["responses"]
    cut = responses["truncated"] + responses["truncated_in_reasoning"]
    assert cut / responses["generations"] >= 0.2  # a third of the prompts think too long
    table = page.locator(".responses-table")
    assert table.is_visible()
    assert (
        str(responses["truncated_in_reasoning"])
        in table.locator("td.truncated_in_reasoning").inner_text()
    )
    # the runner's flag, shown once (the report adds no warning of its own beside it)
    flags = page.locator(".flag").all_inner_texts()
    assert sum("cut off by the token limit" in flag for flag in flags) == 1, flags
    assert page.locator(".warning").count() == 0

    # The first failure, opened: question, program, expected and true value.
    view = page.locator("details.sample").first
    first = failed[0]
    question = first["question"]
    view.locator(":scope > summary").click()
    assert view.get_attribute("open") is not None
    assert view.locator("p.question").inner_text() == question["question"]
    expected = view.locator(".facts td.expected")
    assert expected.is_visible() and expected.inner_text() == question["expected"]
    assert view.locator(".facts td.true-value").is_visible()
    assert view.locator(".facts td.predicted").is_visible()
    executed = view.locator("table.code tr.executed")
    assert executed.count() == len(question["executed_lines"]) > 0
    assert executed.first.is_visible()
    assert [
        int(n) for n in executed.evaluate_all("rows => rows.map(row => row.dataset.line)")
    ] == question["executed_lines"]
    asked = view.locator("table.code tr.asked")
    assert asked.count() == 1 and asked.is_visible()
    assert asked.get_attribute("data-line") == str(question["asked_line"])
    # Every verdict with its reason, the stop reason and the tokens.
    generation = view.locator("section.generation").first
    for mode in ("official", "strict"):
        label = first["generations"][0][mode]
        assert (
            label.split(":")[0]
            in generation.locator("td.verdict").all_inner_texts()[
                ("official", "strict").index(mode)
            ]
        )
    assert generation.locator(".finish-reason").inner_text() == first["finish_reasons"][0]
    # The reasoning is there but collapsed until asked for.
    reasoning = generation.locator("details.reasoning")
    assert reasoning.count() == 1 and reasoning.get_attribute("open") is None
    assert not reasoning.locator("pre").is_visible()
    # The view as a reader first sees it (reasoning and prompt collapsed), kept as a PNG.
    shots = Path(os.environ.get("EXECLENS_SCREENSHOTS") or tmp_path)
    shots.mkdir(parents=True, exist_ok=True)
    view.screenshot(path=str(shots / "reval-failure-view.png"))
    assert (shots / "reval-failure-view.png").stat().st_size > 10_000
    reasoning.locator("summary").click()
    assert reasoning.locator("pre").inner_text().strip() == first["reasoning"][0].strip()
    # The prompt is the text the model read, not escaped JSON.
    prompt = view.locator("details.prompt")
    prompt.locator("summary").click()
    text = prompt.locator("pre.prompt-text").inner_text()
    assert "[PYTHON]" in text and "\\n" not in text and first["prompt"]["user"] in text
    page.close()


def test_old_records_still_render(browser, reval_run: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A run directory from before reasoning, stop reasons and ``question`` were recorded."""
    old = tmp_path / "old-run"
    shutil.copytree(reval_run, old)
    new_keys = (
        "reasoning",
        "finals",
        "finish_reasons",
        "response_status",
        "completion_tokens",
        "question",
    )
    lines = []
    for line in (old / "samples.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        lines.append(json.dumps({k: v for k, v in record.items() if k not in new_keys}))
    (old / "samples.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    results = json.loads((old / "results.json").read_text(encoding="utf-8"))
    results.pop("responses")
    (old / "results.json").write_text(json.dumps(results), encoding="utf-8")
    page, errors = _open(browser, write_report([old], old / "report.html"))
    assert errors == []
    view = page.locator("details.sample").first
    view.locator(":scope > summary").click()
    assert view.locator("section.generation").count() == 1
    assert view.locator("table.code").count() == 0  # no program without a question
    assert view.locator("details.reasoning").count() == 0
    # The no-answer rate is still counted, from the extraction failures.
    assert page.locator(".responses-table").is_visible()
    page.close()
