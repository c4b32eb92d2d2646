"""CoCoNUT's official scoring, reproduced, and a strict one beside it.

**Official** (``generate_trace.py``, ``Performance_Analysis.py`` upstream, as
``../shared/data/coconut/SOURCE.md`` documents them; the code here is execlens's own --
upstream has no licence -- and matches its behaviour case by case):

* extraction: the last match of ``\\[.*?\\]`` (non-greedy, one line: a nested ``[`` cuts it
  short); a response with none is scored as ``"[]"``.  A prediction read from an
  upstream *results file* is scored as stored, never extracted again (``_results``):
  upstream's own scoring compares the stored text;
* Match: the extracted text **equals the ground-truth string** ``"[a, b, c]"`` -- no list
  parsing: ``[1,2]`` does not match ``[1, 2]``;
* NoReps (what every published number uses, and this mode): a ground truth with a
  repeated item has its consecutive duplicates collapsed and is re-serialised
  ``'[' + ', '.join(...) + ']'`` (:func:`noreps`; the **ground truth only**);
* Distance (the papers' "Sim"): ``difflib.SequenceMatcher(None, ','.join(truth),
  ','.join(prediction)).ratio()`` over the two **strings** (a character-level ratio);
* Concurrency (every run of a Concurrency program, picked by category as upstream picks
  by file name): :func:`concurrency_match` -- ``(``...``)`` sections within one
  position of a truth section compared as sets, everything else position by position,
  on the parsed lists or, where a bare ``(`` makes the text no literal, on the
  characters -- and :func:`concurrency_distance` (item-level ratio; the before / inside
  / after mean only for sections of quoted ``'('`` items).  A match keeps its own
  Distance, which a reordered section leaves below 1.

The official verdict keeps its Distance in its reason (``wrong:distance=0.8125``;
``passed`` alone is 1.0), so that :func:`coconut_metrics` reads it back from
``samples.jsonl``.

**Strict** is the core's (``CoCoNUT.strict_task``): the same extraction, parsed as a list
of integers, compared exactly with *our* tracer's executed lines for the run
(``execlens.tasks.executed_lines``; see ``execlens.tasks._fulltrace`` for where it
differs from settrace: comprehensions and continuation lines), not with the CSV:
formatting never decides, and nothing but the whole sequence passes.  Advanced programs
(their indentation stripped upstream) cannot be run: their strict verdicts are
``reference_error``.
"""

from __future__ import annotations

import ast
import difflib
import re
from collections.abc import Mapping, Sequence
from typing import Any

from execlens.judge import SampleScore, ScorePlan, Verdict, VerdictStatus

from ._data import CocoItem, truth_tokens

__all__ = [
    "OfficialScorer",
    "coconut_metrics",
    "concurrency_distance",
    "concurrency_match",
    "distance",
    "extract_trace",
    "is_concurrency",
    "noreps",
    "official_verdict",
]

_LIST = re.compile(r"\[.*?\]")


def extract_trace(raw: str) -> str:
    """The last one-line ``[...]`` of ``raw`` (upstream's regex), or ``""``."""
    found = _LIST.findall(raw)
    return found[-1] if found else ""


def noreps(truth: str) -> str:
    """The ground truth as upstream's NoReps re-scoring leaves it.

    A truth in which some item occurs twice (anywhere, not only in a row) has its
    consecutive duplicates collapsed and is re-serialised ``'[' + ', '.join(map(str,
    items)) + ']'`` -- so a Concurrency truth's quoted ``'('`` becomes a bare ``(``; a truth
    with no repeated item is kept as it is, character for character.
    """
    items = truth_tokens(truth)
    if len(items) == len(set(items)):
        return truth
    collapsed: list[Any] = []
    for item in items:
        if not collapsed or collapsed[-1] != item:
            collapsed.append(item)
    return "[" + ", ".join(str(item) for item in collapsed) + "]"


def distance(truth: str, predicted: str) -> float:
    """Upstream's Distance: SequenceMatcher's ratio over the comma-joined characters."""
    return difflib.SequenceMatcher(a=",".join(truth), b=",".join(predicted)).ratio()


def _literal_or_text(text: str) -> Sequence[Any]:
    """What the concurrency match compares: the parsed list, or -- when the text is not a
    Python literal (a bare ``(`` never is) -- the text itself, character by character."""
    try:
        # Upstream's own reader, not values.parse_literal: the answers' scoring depends on
        # what it accepts (`...` in "[1, 2, ..., 9]" among them: 204 released answers).
        value = ast.literal_eval(text)
    except Exception:  # noqa: BLE001 - upstream falls back on any failure, so must we
        return text
    return value if isinstance(value, list) else text


def _paren_sections(items: Sequence[Any], opening: str, closing: str) -> list[tuple[int, int]]:
    """``(start, end)`` of every ``opening`` ... ``closing`` run; a second opening before a
    closing restarts the section, a closing with none open is an ordinary item."""
    sections: list[tuple[int, int]] = []
    start = -1
    for index, item in enumerate(items):
        if item == opening:
            start = index
        elif item == closing and start != -1:
            sections.append((start, index))
            start = -1
    return sections


def concurrency_match(truth: str, predicted: str) -> bool:
    """Upstream's Concurrency match (``calculate_match_concurrency``).

    Both sides are read by :func:`_literal_or_text` (a list, or the raw characters) and
    must have the same length.  When both hold ``(``...``)`` sections, every predicted
    section needs a truth section whose start and end are each within one position of
    its own and whose contents are equal as sets (of ``str`` items); the positions
    between the two sections' outer bounds are then exempt, and every other position
    must hold the same item.  When neither or only one side has a section, the sides
    must be equal.  A bare ``(`` makes a list unparseable, so a re-serialised truth is
    compared with a bare-paren prediction character by character: separators count.
    """
    want, got = _literal_or_text(truth), _literal_or_text(predicted)
    if len(want) != len(got):
        return False
    true_sections = _paren_sections(want, "(", ")")
    sections = _paren_sections(got, "(", ")")
    if not true_sections or not sections:
        return bool(want == got)
    exempt: set[int] = set()
    for start, end in sections:
        content = {str(x) for x in got[start + 1 : end]}
        for true_start, true_end in true_sections:
            if (
                abs(start - true_start) <= 1
                and abs(end - true_end) <= 1
                and {str(x) for x in want[true_start + 1 : true_end]} == content
            ):
                exempt.update(range(min(start, true_start), max(end, true_end) + 1))
                break
        else:
            return False
    return all(want[i] == got[i] for i in range(len(want)) if i not in exempt)


def _quoted_parens_list(text: str) -> list[Any]:
    """The list upstream's concurrency Distance reads: every ``(`` and ``)`` of the text
    replaced by ``'('`` / ``')'`` before ``literal_eval``; ``[]`` when that fails (an
    already quoted ``'('`` then fails, as upstream's does)."""
    try:
        value = ast.literal_eval(text.replace("(", "'('").replace(")", "')'"))
    except Exception:  # noqa: BLE001 - upstream falls back on any failure, so must we
        return []
    return list(value) if isinstance(value, (list, tuple)) else []


def _joined_ratio(truth: Sequence[Any], predicted: Sequence[Any]) -> float:
    return difflib.SequenceMatcher(
        a=",".join(map(str, truth)), b=",".join(map(str, predicted))
    ).ratio()


def concurrency_distance(truth: str, predicted: str) -> float:
    """Upstream's Concurrency Distance (``calculate_distance_concurrency``).

    Both sides are read by :func:`_quoted_parens_list`; the items are joined with ``,``
    (item level, unlike :func:`distance`).  The before / inside (sorted) / after split
    applies only when both lists hold a section delimited by the three-character items
    ``'('`` and ``')'`` -- quotes included, which only a double-quoted ``"("`` in the text
    yields -- and then the Distance is the mean of the three ratios of the first sections;
    otherwise it is the ratio of the whole lists.
    """
    want, got = _quoted_parens_list(truth), _quoted_parens_list(predicted)
    true_sections = _paren_sections(want, "'('", "')'")[:1]
    sections = _paren_sections(got, "'('", "')'")[:1]
    if not true_sections or not sections:
        return _joined_ratio(want, got)
    (a, b), (c, d) = true_sections[0], sections[0]
    return (
        _joined_ratio(want[:a], got[:c])
        + _joined_ratio(sorted(map(str, want[a + 1 : b])), sorted(map(str, got[c + 1 : d])))
        + _joined_ratio(want[b + 1 :], got[d + 1 :])
    ) / 3


def is_concurrency(item: CocoItem) -> bool:
    """Whether ``item`` is scored by the Concurrency rules: upstream picks them by the
    results file's name (``...Concurrency...``), that is, for every run of a Concurrency
    program, whether or not its trace holds a section; here by the ``Category`` column
    (``Concurrency_prepared`` upstream)."""
    return "concurrency" in item.category.lower()


def official_verdict(item: CocoItem, raw: str, *, stored: bool = False) -> Verdict:
    """Extract, match against the NoReps truth, keep the Distance (module docstring).

    ``stored``: ``raw`` is a prediction as an upstream results file stores it, scored as
    it is (``Performance_Analysis.py`` never extracts again); otherwise a response, read
    by ``generate_trace.py``'s regex.
    """
    # A response with no list is recorded upstream as the empty list, "[]".
    predicted = raw if stored else extract_trace(raw) or "[]"
    truth = noreps(item.truth)
    if is_concurrency(item):
        matched = concurrency_match(truth, predicted)
        ratio = concurrency_distance(truth, predicted)
    else:
        matched = predicted == truth
        ratio = distance(truth, predicted)
    if matched and ratio < 1.0:  # a Concurrency match with its sections reordered
        return Verdict(
            True,
            VerdictStatus.PASSED,
            f"distance={ratio:.6f}",
            data={"answer": predicted[:200], "distance": ratio},
        )
    if matched:
        return Verdict.passing(answer=predicted, distance=1.0)
    return Verdict.failing(
        VerdictStatus.WRONG, f"distance={ratio:.6f}", answer=predicted[:200], distance=ratio
    )


class OfficialScorer:
    """CoCoNUT's Match (NoReps), one verdict per generation; no code runs.

    ``stored``: the generations are predictions as upstream's results files store them
    (see ``_results``), scored as they are.
    """

    name = "official"

    def __init__(self, *, stored: bool = False) -> None:
        self.stored = stored

    def plan(self, item: CocoItem, generations: Sequence[str]) -> ScorePlan:
        """Host-only verdicts."""
        verdicts = [official_verdict(item, g, stored=self.stored) for g in generations]
        return ScorePlan(
            [],
            lambda outcomes: SampleScore(
                item.sample_id, self.name, verdicts, [v.passed for v in verdicts]
            ),
        )


def _distance_of(label: str) -> float:
    """The Distance an official label carries (``passed``: 1.0)."""
    if label == "passed":
        return 1.0
    found = re.search(r"distance=([0-9.]+)", label)
    return float(found.group(1)) if found else 0.0


def coconut_metrics(
    records: Sequence[Mapping[str, Any]], items: Mapping[str, CocoItem], modes: Sequence[str]
) -> dict[str, Any]:
    """Per mode, from each run's first generation (upstream samples one, greedily):

    * HumanEval runs: **Acc Hard** (share of tasks with every run matched), **Acc Mean**
      (mean over tasks of the share matched), **Sim** (mean over tasks of the mean
      Distance) and **False Sim** (mean over *all* tasks of the mean Distance of the
      unmatched runs, 0 for a task with none) -- official only for the two Sims;
    * Advanced runs: per category, the micro match rate and mean Distance.
    Percentages, as upstream's README gives them (Sims as fractions).
    """
    out: dict[str, Any] = {}
    for mode in modes:
        groups: dict[str, list[tuple[bool, float]]] = {}
        advanced: dict[str, list[tuple[bool, float]]] = {}
        for record in records:
            item = items.get(str(record["id"]))
            entries = record.get("generations") or []
            if item is None or not entries:
                continue
            label = str(entries[0].get(mode, ""))
            result = (label.split(":", 1)[0] == "passed", _distance_of(label))
            if item.call is not None:
                groups.setdefault(item.group, []).append(result)
            else:
                advanced.setdefault(item.category, []).append(result)
        scores: dict[str, float] = {}
        if groups:
            tasks = list(groups.values())
            # Kept to 6 places: README gives 1 (percent) or 2 (Sim): rounding twice, at 2
            # and then 1, turned 58.6507 into 58.6 where upstream prints 58.7.
            scores["acc_hard"] = round(
                100 * sum(all(m for m, _ in t) for t in tasks) / len(tasks), 6
            )
            scores["acc_mean"] = round(
                100 * sum(sum(m for m, _ in t) / len(t) for t in tasks) / len(tasks), 6
            )
            if mode == "official":
                scores["sim"] = round(
                    sum(sum(d for _, d in t) / len(t) for t in tasks) / len(tasks), 6
                )
                false = [[d for m, d in t if not m] for t in tasks]
                scores["false_sim"] = round(
                    sum(sum(f) / len(f) if f else 0.0 for f in false) / len(tasks), 6
                )
        for category, runs in sorted(advanced.items()):
            scores[f"{category} acc"] = round(100 * sum(m for m, _ in runs) / len(runs), 6)
            if mode == "official":
                scores[f"{category} sim"] = round(sum(d for _, d in runs) / len(runs), 6)
        out[mode] = scores
    return out
