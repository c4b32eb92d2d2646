"""The HTML report opened in headless Chromium: tables and plots render, no console errors."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from execlens.bench import Generations, run_score, write_report
from execlens.bench.cruxeval import load_cruxeval
from execlens.judge import ExecProblem

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
BROWSER_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync"]


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
            (data_dir / "cruxeval" / f"codellama-7b_temp0.2_{task}_generations.json").read_text())
        ids = sorted(generations, key=lambda key: int(key.split("_")[1]))[:40]
        items = [(ExecProblem(i, problems[i].code, problems[i].input, problems[i].output),
                  generations[i]) for i in ids]
        out = tmp_path_factory.mktemp(f"score-{task}")
        run_score(out, "cruxeval", Generations(task, items, context=task), engine=engine)
        runs.append(out)
    return runs


def _open(browser, path: Path):  # type: ignore[no-untyped-def]
    page = browser.new_page(viewport={"width": 1280, "height": 1600})
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text)
            if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(path.resolve().as_uri())
    page.wait_for_selector(".js-plotly-plot .main-svg", timeout=20_000)
    return page, errors


def test_single_run_report_renders(browser, scored_runs: list[Path]) -> None:  # type: ignore[no-untyped-def]
    report = write_report([scored_runs[0]], scored_runs[0] / "report.html")
    page, errors = _open(browser, report)
    assert errors == []
    assert page.locator("#summary tbody tr").count() == 2  # official and strict
    assert page.locator(".js-plotly-plot .main-svg").count() >= 1
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
        browser, scored_runs: list[Path], tmp_path: Path) -> None:
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
        "Array.from(document.querySelectorAll('.js-plotly-plot'))"
        ".flatMap(plot => plot.data.map(trace => trace.name))")
    assert any(name.startswith("reference: CRUXEval") for name in names)
    assert "baseline: always_yes (official)" in names
    page.close()
