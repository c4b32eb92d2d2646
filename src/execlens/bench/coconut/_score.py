"""CoCoNUT's official scoring, reproduced, and a strict one beside it.

**Official** (``generate_trace.py``, ``Performance_Analysis.py`` upstream, as
``../shared/data/coconut/SOURCE.md`` documents them):

* extraction: the last match of ``\\[.*?\\]`` (non-greedy, one line: a nested ``[`` cuts it
  short); none = the empty prediction;
* Match: the extracted text **equals the ground-truth string** ``"[a, b, c]"`` -- no list
  parsing: ``[1,2]`` does not match ``[1, 2]``;
* NoReps (what every published number uses, and this mode): consecutive duplicate lines
  of the **ground truth only** collapsed, re-serialised ``'[' + ', '.join(...) + ']'``;
* Distance (the papers' "Sim"): ``difflib.SequenceMatcher(None, ','.join(truth),
  ','.join(prediction)).ratio()`` over the two **strings** (a character-level ratio);
* Concurrency (a truth holding ``'('``/``')'``): equal lengths, each ``(``…``)``
  section starting and ending within one position of a truth section and equal to it
  as a set, everything else equal; Distance = the mean ratio of the parts before,
  inside and after the sections.

The official verdict keeps its Distance in its reason (``wrong:distance=0.8125``; a
match is 1.0), so that :func:`coconut_metrics` reads it back from ``samples.jsonl``.

**Strict**: the same extraction, parsed as a list of integers, compared exactly with
*our* tracer's executed lines for the run (``execlens.tasks.executed_lines``; see
``execlens.tasks._fulltrace`` for where it differs from settrace: comprehensions and
continuation lines), not with the CSV: formatting never decides, and nothing but the
whole sequence passes.  Advanced programs (their indentation stripped upstream) cannot
be run: their strict verdicts are ``reference_error``.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from execlens.judge import SampleScore, ScorePlan, Verdict, VerdictStatus, judge_trace

from ._data import CocoItem, truth_tokens

if TYPE_CHECKING:
    from execlens.engine import Engine

__all__ = ["OfficialScorer", "StrictScorer", "coconut_metrics", "concurrency_match",
           "distance", "extract_trace", "noreps", "official_verdict", "traced_truths"]

_LIST = re.compile(r"\[.*?\]")


def extract_trace(raw: str) -> str:
    """The last one-line ``[...]`` of ``raw`` (upstream's regex), or ``""``."""
    found = _LIST.findall(raw)
    return found[-1] if found else ""


def noreps(truth: str) -> str:
    """The ground truth with consecutive duplicate items collapsed (upstream's NoReps)."""
    collapsed: list[Any] = []
    for item in truth_tokens(truth):
        if not collapsed or collapsed[-1] != item:
            collapsed.append(item)
    return "[" + ", ".join(str(item) for item in collapsed) + "]"


def distance(truth: str, predicted: str) -> float:
    """Upstream's Distance: SequenceMatcher's ratio over the comma-joined characters."""
    return difflib.SequenceMatcher(a=",".join(truth), b=",".join(predicted)).ratio()


def _tokens(text: str) -> list[str]:
    inner = text.strip()[1:-1] if text.strip().startswith("[") else text
    return [t.strip().strip("'\"") for t in inner.split(",") if t.strip()]


def _sections(tokens: Sequence[str]) -> list[tuple[int, int]]:
    out, start = [], None
    for index, token in enumerate(tokens):
        if token == "(":
            start = index
        elif token == ")" and start is not None:
            out.append((start, index))
            start = None
    return out


def concurrency_match(truth: str, predicted: str) -> bool:
    """Upstream's Concurrency match (see the module docstring)."""
    want, got = _tokens(truth), _tokens(predicted)
    if len(want) != len(got):
        return False
    true_sections, sections = _sections(want), _sections(got)
    if len(true_sections) != len(sections):
        return False
    inside: set[int] = set()
    for (a, b), (c, d) in zip(true_sections, sections):
        if abs(a - c) > 1 or abs(b - d) > 1 or set(want[a + 1:b]) != set(got[c + 1:d]):
            return False
        inside.update(range(min(a, c), max(b, d) + 1))
    return all(want[i] == got[i] for i in range(len(want)) if i not in inside)


def _concurrency_distance(truth: str, predicted: str) -> float:
    def parts(text: str) -> list[str]:
        tokens = _tokens(text)
        first = tokens.index("(") if "(" in tokens else len(tokens)
        last = len(tokens) - 1 - tokens[::-1].index(")") if ")" in tokens else len(tokens)
        return [", ".join(tokens[:first]), ", ".join(tokens[first:last + 1]),
                ", ".join(tokens[last + 1:])]
    ratios = [distance(a, b) for a, b in zip(parts(truth), parts(predicted))]
    return sum(ratios) / len(ratios)


def official_verdict(item: CocoItem, raw: str) -> Verdict:
    """Extract, match against the NoReps truth, keep the Distance (module docstring)."""
    predicted = extract_trace(raw)
    truth = noreps(item.truth)
    if "(" in truth_tokens(item.truth):
        matched = concurrency_match(truth, predicted)
        ratio = 1.0 if matched else _concurrency_distance(truth, predicted)
    else:
        matched = predicted == truth
        ratio = distance(truth, predicted)
    if matched:
        return Verdict.passing(answer=predicted, distance=1.0)
    return Verdict.failing(VerdictStatus.WRONG, f"distance={ratio:.6f}",
                           answer=predicted[:200], distance=ratio)


class OfficialScorer:
    """CoCoNUT's Match (NoReps), one verdict per generation; no code runs."""

    name = "official"

    def plan(self, item: CocoItem, generations: Sequence[str]) -> ScorePlan:
        """Host-only verdicts."""
        verdicts = [official_verdict(item, g) for g in generations]
        return ScorePlan([], lambda outcomes: SampleScore(
            item.sample_id, self.name, verdicts, [v.passed for v in verdicts]))


def traced_truths(items: Sequence[CocoItem], engine: Engine) -> dict[str, list[int] | str]:
    """Our tracer's executed lines of every HumanEval run (``{sample id: lines}``), or
    why there are none (an Advanced program, a run that fails or is cut short)."""
    from execlens.tasks import trace_reference
    from execlens.trace import TraceRequest, trace_many

    truths: dict[str, list[int] | str] = {}
    requests = []
    for item in items:
        if item.call is None:
            truths[item.sample_id] = ("an Advanced program (indentation stripped "
                                      "upstream) cannot be run")
            continue
        requests.append(TraceRequest(program=item.code, call=item.call, tag=item.sample_id))
    for trace in trace_many(engine, requests):
        lines = trace_reference(trace) if trace.recorded else None
        truths[str(trace.tag)] = lines if lines is not None else (
            f"the run recorded no full trace ({trace.status}"
            f"{', truncated' if trace.truncated else ''})")
    return truths


class StrictScorer:
    """Integer lists against our tracer's lines (module docstring)."""

    name = "strict"

    def __init__(self, truths: Mapping[str, list[int] | str] | None = None) -> None:
        self.truths = truths or {}

    def plan(self, item: CocoItem, generations: Sequence[str]) -> ScorePlan:
        """Host-only verdicts against the truth ``prepare`` traced."""
        truth = self.truths.get(item.sample_id, "no truth traced")
        verdicts = []
        for raw in generations:
            if isinstance(truth, str):
                verdicts.append(Verdict.failing(VerdictStatus.REFERENCE_ERROR, "no_truth",
                                                truth))
                continue
            text = extract_trace(raw)
            verdicts.append(judge_trace(truth, text) if text else Verdict.failing(
                VerdictStatus.UNPARSEABLE, "no_list", "no [...] on one line"))
        return ScorePlan([], lambda outcomes: SampleScore(
            item.sample_id, self.name, verdicts, [v.passed for v in verdicts]))


def _distance_of(label: str) -> float:
    if label == "passed":
        return 1.0
    found = re.search(r"distance=([0-9.]+)", label)
    return float(found.group(1)) if found else 0.0


def coconut_metrics(records: Sequence[Mapping[str, Any]], items: Mapping[str, CocoItem],
                    modes: Sequence[str]) -> dict[str, Any]:
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
            result = (label == "passed", _distance_of(label))
            if item.call is not None:
                groups.setdefault(item.group, []).append(result)
            else:
                advanced.setdefault(item.category, []).append(result)
        scores: dict[str, float] = {}
        if groups:
            tasks = list(groups.values())
            scores["acc_hard"] = round(100 * sum(all(m for m, _ in t) for t in tasks)
                                       / len(tasks), 2)
            scores["acc_mean"] = round(100 * sum(sum(m for m, _ in t) / len(t) for t in tasks)
                                       / len(tasks), 2)
            if mode == "official":
                scores["sim"] = round(sum(sum(d for _, d in t) / len(t) for t in tasks)
                                      / len(tasks), 4)
                false = [[d for m, d in t if not m] for t in tasks]
                scores["false_sim"] = round(sum(sum(f) / len(f) if f else 0.0 for f in false)
                                            / len(tasks), 4)
        for category, runs in sorted(advanced.items()):
            scores[f"{category} acc"] = round(100 * sum(m for m, _ in runs) / len(runs), 2)
            if mode == "official":
                scores[f"{category} sim"] = round(sum(d for _, d in runs) / len(runs), 4)
        out[mode] = scores
    return out
