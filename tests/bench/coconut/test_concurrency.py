"""CoCoNUT's Concurrency scoring, rule by rule, on a made-up trace file in its Advanced
layout (``Filename, Category, ExecutedLines, Code_Indices``, indentation stripped as
upstream strips it; ``Category`` as upstream names it, ``Concurrency_prepared``).

Upstream has no licence: the programs, traces and answers here are our own.  Expected
ratios are spelled out as the strings ``difflib`` compares, so each test states the
rule it checks rather than calling the code under test twice.
"""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest

from execlens.bench import get_benchmark
from execlens.bench.coconut import (
    CocoItem,
    coconut_metrics,
    concurrency_distance,
    concurrency_match,
    distance,
    is_concurrency,
    load_coconut,
    noreps,
    official_verdict,
)

DATA = Path(__file__).parent / "data" / "program_traces_Python_Concurrency_made_up.csv"


def ratio(a: str, b: str) -> float:
    """SequenceMatcher's ratio of two spelled-out strings."""
    return difflib.SequenceMatcher(a=a, b=b).ratio()


@pytest.fixture(scope="module")
def runs() -> dict[str, CocoItem]:
    return {item.group: item for item in load_coconut(DATA)}


def test_noreps_reserialises_only_a_truth_with_a_repeated_item() -> None:
    # No item twice: kept character for character (the quoted parens stay quoted).
    assert noreps("[4, 5, '(', 6, 2, ')', 7]") == "[4, 5, '(', 6, 2, ')', 7]"
    # A repeat anywhere: consecutive ones collapse, and str() writes the parens bare.
    assert noreps("[1, '(', 2, 2, 3, ')']") == "[1, (, 2, 3, )]"
    assert noreps("[9, '(', 2, 3, 2, 3, ')']") == "[9, (, 2, 3, 2, 3, )]"


def test_a_reserialised_truth_is_matched_character_by_character(runs: dict[str, CocoItem]) -> None:
    truth = noreps(runs["pair.py"].truth)
    assert truth == "[9, 10, (, 11, 2, 3, 12, 2, 3, 13, 14, ), 15]"
    # The two threads' lines swapped inside the section: the same characters there.
    assert concurrency_match(truth, "[9, 10, (, 12, 2, 3, 11, 2, 3, 13, 14, ), 15]")
    # Separators count: the same items without spaces are a different length.
    assert not concurrency_match(truth, "[9,10,(,11,2,3,12,2,3,13,14,),15]")
    # Quoted parens parse as a list, which never equals the truth's characters.
    assert not concurrency_match(truth, "[9, 10, '(', 11, 2, 3, 12, 2, 3, 13, 14, ')', 15]")
    # Outside the section every character must agree.
    assert not concurrency_match(truth, "[8, 10, (, 11, 2, 3, 12, 2, 3, 13, 14, ), 15]")
    # Inside, only the set of characters is compared: '11' and '12' swapped for '21'
    # and '11' keep the set {1, 2, 3, ',', ' '} and the length.
    assert concurrency_match(truth, "[9, 10, (, 21, 2, 3, 11, 2, 3, 13, 14, ), 15]")


def test_parsed_lists_match_sections_within_one_position_as_sets() -> None:
    truth = "[7, '(', 10, 10, ')', 13]"  # no repeat of a paren: a parsed list
    assert concurrency_match(truth, "[7, '(', 10, 10, ')', 13]")
    # The section opens one position later, its contents the same set {10}.
    assert concurrency_match(truth, "[7, 10, '(', 10, ')', 13]")
    # Two positions later is too far.
    assert not concurrency_match("[7, '(', 10, 10, 10, ')', 13]", "[7, 10, 10, '(', 10, ')', 13]")
    # Same place, another set.
    assert not concurrency_match(truth, "[7, '(', 10, 11, ')', 13]")
    # A section on one side only: the lists must be equal, and are not.
    assert not concurrency_match(truth, "[7, 8, 10, 10, 9, 13]")
    # Lengths differ.
    assert not concurrency_match(truth, "[7, '(', 10, ')', 13]")


def test_a_truth_without_sections_compares_parsed_lists(runs: dict[str, CocoItem]) -> None:
    plain = runs["plain.py"]
    assert is_concurrency(plain)  # scored by the Concurrency rules all the same
    # Parsed, so the spacing no longer matters -- unlike the plain string match.
    assert official_verdict(plain, "so: [4,2,5]").passed
    assert not official_verdict(plain, "[4, 5]").passed


def test_concurrency_distance_is_item_level_over_the_whole_lists(runs: dict[str, CocoItem]) -> None:
    truth = noreps(runs["pair.py"].truth)
    predicted = "[9, 10, (, 11, 2, 3, 13, 14, ), 15]"
    expected = ratio("9,10,(,11,2,3,12,2,3,13,14,),15", "9,10,(,11,2,3,13,14,),15")
    assert concurrency_distance(truth, predicted) == pytest.approx(expected)
    # Not the character-interleaved ratio of the plain Distance.
    assert concurrency_distance(truth, predicted) != pytest.approx(distance(truth, predicted))
    # An already quoted '(' no longer parses once its paren is quoted again: an empty list.
    assert concurrency_distance("[4, 5, '(', 6, 2, ')', 7]", "[4, 5, 6, 2, 7]") == (
        pytest.approx(ratio("", "4,5,6,2,7"))
    )


def test_concurrency_distance_splits_at_double_quoted_sections() -> None:
    # Only a double-quoted "(" becomes the three-character item '(' the split looks for.
    truth = '[1, "(", 3, 2, ")", 4]'
    reordered = '[1, "(", 2, 3, ")", 4]'
    assert concurrency_distance(truth, reordered) == pytest.approx(1.0)  # sorted inside
    shifted = '[1, 5, "(", 2, 3, ")", 4]'
    expected = (ratio("1", "1,5") + ratio("2,3", "2,3") + ratio("4", "4")) / 3
    assert concurrency_distance(truth, shifted) == pytest.approx(expected)


def test_verdicts_keep_the_distance_a_match_has(runs: dict[str, CocoItem]) -> None:
    pair = runs["pair.py"]
    swapped = "[9, 10, (, 12, 2, 3, 11, 2, 3, 13, 14, ), 15]"
    verdict = official_verdict(pair, f"Executed lines: {swapped}")
    expected = ratio("9,10,(,11,2,3,12,2,3,13,14,),15", "9,10,(,12,2,3,11,2,3,13,14,),15")
    assert expected < 1.0
    assert verdict.passed and verdict.data["distance"] == pytest.approx(expected)
    assert verdict.label == f"passed:distance={expected:.6f}"
    exact = official_verdict(pair, noreps(pair.truth))
    assert exact.passed and exact.label == "passed"
    missed = official_verdict(pair, "no list at all")  # scored as "[]", as upstream records it
    assert not missed.passed and missed.data["answer"] == "[]"
    # The Advanced metrics: the micro match rate and the mean Distance, a match's included.
    labels = [verdict.label, exact.label, missed.label]
    records = [
        {"id": f"pair.py#{k}", "generations": [{"official": label}]}
        for k, label in enumerate(labels)
    ]
    items = {f"pair.py#{k}": pair for k in range(3)}
    scores = coconut_metrics(records, items, ("official",))["official"]
    assert scores["Concurrency_prepared acc"] == pytest.approx(100 * 2 / 3, abs=0.01)
    assert scores["Concurrency_prepared sim"] == pytest.approx(
        (expected + 1.0 + missed.data["distance"]) / 3, abs=1e-4
    )


def test_the_prompt_asks_for_bare_parens_for_a_concurrency_program(
    runs: dict[str, CocoItem],
) -> None:
    bench = get_benchmark("coconut")
    text = bench.render(runs["solo.py"], "trace", "direct").text
    assert "[7, 8, (, 10, 2, 11, 2, ), 16]" in text
    humaneval_like = CocoItem(
        "HumanEval/1#0", "HumanEval/1", "def f():  # 1\n", "[1]", name="f", category="HumanEval"
    )
    assert "concurrently" not in bench.render(humaneval_like, "trace", "direct").text
