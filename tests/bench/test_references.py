"""Published reference numbers: which runs they apply to, and what is attached."""

from __future__ import annotations

from execlens.bench._references import attach_reference, find_reference, model_key


def test_model_names_match_across_spellings() -> None:
    assert model_key("codellama/CodeLlama-7b-hf") == "codellama-7b"
    assert model_key(" CodeLlama-7b ") == "codellama-7b"
    assert model_key("openai/gpt-4-0125-preview") == "gpt-4-0125-preview"


def test_a_reference_needs_benchmark_task_model_and_temperature() -> None:
    found = find_reference("cruxeval", "input", "codellama/CodeLlama-7b-hf", 0.2)
    assert found is not None and found.metrics["pass@1"] == 35.95
    assert find_reference("cruxeval", "input", "codellama-7b", 0.8) is None  # pass@5 runs
    assert find_reference("cruxeval", "input", "codellama-7b", None) is None
    assert find_reference("cruxeval", "input", "codellama-13b", 0.2) is None
    assert find_reference("lcb-exec", "output", "codellama-7b", 0.2) is None
    # REval's leaderboard figure does not depend on the run's temperature.
    assert find_reference("reval", "consistency", "gpt-4-0125-preview", 0.0) is not None
    assert find_reference("reval", "state", "gpt-4-turbo-0125", None) is not None


def test_only_the_metrics_a_run_reports_are_attached() -> None:
    results = {
        "task": "coverage",
        "metrics": {
            "official": {"coverage": 80.0, "coverage f1": 81.0},
            "strict": {"coverage": 79.0},
        },
    }
    attach_reference(
        results,
        benchmark="reval",
        task="coverage",
        model="gpt-4-0125-preview",
        temperature=0.0,
        full_benchmark=True,
    )
    assert results["reference_numbers"] == {"coverage": 88.4, "coverage f1": 89.8}
    assert "GPT-4-Turbo" in results["reference_source"]


def test_a_slice_is_not_compared_with_a_full_score() -> None:
    sliced = {"metrics": {"official": {"pass@1": 40.0}}, "samples": 800}
    attach_reference(
        sliced,
        benchmark="cruxeval",
        task="output",
        model="codellama-7b",
        temperature=0.2,
        full_benchmark=False,
    )
    assert "reference_numbers" not in sliced and "slice" in sliced["reference_source"]
    # A full run over a local file that is not the whole benchmark is a slice too.
    partial = {"metrics": {"official": {"pass@1": 40.0}}, "samples": 120}
    attach_reference(
        partial,
        benchmark="cruxeval",
        task="output",
        model="codellama-7b",
        temperature=0.2,
        full_benchmark=True,
    )
    assert "reference_numbers" not in partial


def test_unknown_models_get_nothing() -> None:
    results = {"metrics": {"official": {"pass@1": 40.0}}, "samples": 800}
    attach_reference(
        results,
        benchmark="cruxeval",
        task="output",
        model="local",
        temperature=0.2,
        full_benchmark=True,
    )
    assert "reference_numbers" not in results and "reference_source" not in results
