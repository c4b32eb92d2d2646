"""Scoring REval answers in official and strict modes: per-question verdicts, metrics, IC,
and the constant-answer baselines beside them.

``answers`` maps a task (``coverage``, ``state``, ``path``, ``output``) to ``{item id:
[raw model responses]}``: question ids ``DREval/<n>/<input>/<k>`` for the first three
(one question serves all three tasks), pair ids ``DREval/<n>/<input>/output`` for the
output task (:attr:`execlens.bench.RevalItem.sample_id`).  Responses are *raw* model
text: the official extraction for ``style`` (``direct``/``cot``) is applied here.

Denominators: every question (pair) in scope counts, in both modes, except those of
problems that cannot run here (DREval/117 and /149 import gensim): they are reported as
skipped, with the reason, and left out of every metric.  A question without an answer
counts as wrong (reason ``missing``).  With several responses per item, each metric is
the mean over response indices (IC pairs the k-th responses of all four tasks).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from execlens.judge import Verdict, VerdictStatus, guarded

from ._judge import plan_reval
from ._metrics import (
    ConfusionCounts,
    baselines,
    incremental_consistency,
    percent,
)
from ._plan import REVAL_MODES, REVAL_TASKS, RevalPlan
from ._records import QuestionTruth
from ._truth import (
    RevalTruth,
    build_reval_truth,
    reval_context,
)

if TYPE_CHECKING:
    from execlens.engine import Engine

    from ._data import RevalItem, RevalProblem

__all__ = ["RevalScoreError", "RevalScores", "format_reval_scores", "score_reval", "summarise"]

_QUESTION_TASKS = ("coverage", "state", "path")


class RevalScoreError(ValueError):
    """Answers or items that cannot be scored as given."""


@dataclass
class RevalScores:
    """Verdicts and metrics of one REval scoring run.

    ``verdicts[mode][task][item_id]`` is the list of verdicts of that item's responses.
    ``metrics[mode]`` holds each task's numbers (percent), ``ic``, breakdowns by problem
    kind and the leak-free output accuracy; ``baselines[mode]`` the constant answers'
    numbers on the same questions.  ``skipped`` maps item ids to why they were not scored.
    """

    style: str
    modes: tuple[str, ...]
    tasks: tuple[str, ...]
    verdicts: dict[str, dict[str, dict[str, list[Verdict]]]]
    metrics: dict[str, dict[str, Any]]
    baselines: dict[str, dict[str, Any]]
    skipped: dict[str, str] = field(default_factory=dict)
    kinds: dict[str, str] = field(default_factory=dict, repr=False)

    def records(self) -> Iterator[dict[str, Any]]:
        """One JSON-ready record per (task, item): its verdicts in every mode."""
        first = self.modes[0]
        for task in self.tasks:
            for item_id in self.verdicts[first].get(task, {}):
                yield {
                    "id": item_id,
                    "task": task,
                    "kind": self.kinds.get(item_id, ""),
                    "verdicts": {
                        mode: [v.to_dict() for v in self.verdicts[mode][task][item_id]]
                        for mode in self.modes
                    },
                }

    def to_dict(self) -> dict[str, Any]:
        """Everything as JSON-ready data (metrics, baselines, skips, per-item verdicts)."""
        return {
            "benchmark": "reval",
            "style": self.style,
            "modes": list(self.modes),
            "tasks": list(self.tasks),
            "metrics": self.metrics,
            "baselines": self.baselines,
            "skipped": dict(self.skipped),
            "records": list(self.records()),
        }


# ------------------------------------------------------------------ scope
def _scope(source: Any) -> tuple[list[RevalProblem], list[RevalItem], list[RevalItem]]:
    from ._data import RevalItem, RevalProblem, reval_pairs, reval_questions

    records = list(getattr(source, "records", source))
    if not records:
        raise RevalScoreError("nothing to score: no problems or items given")
    if all(isinstance(r, RevalProblem) for r in records):
        return records, reval_questions(records), reval_pairs(records)
    if not all(isinstance(r, RevalItem) for r in records):
        raise RevalScoreError(
            "give REval problems (load_reval) or items (reval_questions/reval_pairs), not a mixture"
        )
    questions = [r for r in records if r.question is not None]
    outputs = {r.sample_id: r for r in records if r.question is None}
    for item in questions:  # the output verdicts IC needs, of the questions' pairs
        pair_item = RevalItem(item.problem, item.pair, 0, None)
        outputs.setdefault(pair_item.sample_id, pair_item)
    problems: dict[str, RevalProblem] = {}
    for item in [*questions, *outputs.values()]:
        problems.setdefault(item.problem.task_id, item.problem)
    return list(problems.values()), questions, list(outputs.values())


def _check_answers(answers: Mapping[str, Mapping[str, Sequence[str]]]) -> tuple[str, ...]:
    unknown = sorted(set(answers) - set(REVAL_TASKS))
    if unknown:
        raise RevalScoreError(
            f"unknown REval task(s) {unknown}: answers are keyed by task "
            f"({', '.join(REVAL_TASKS)}), then by item id"
        )
    for task, by_item in answers.items():
        if not isinstance(by_item, Mapping):
            raise RevalScoreError(f"answers[{task!r}] must map item ids to response lists")
        for item_id, responses in by_item.items():
            if isinstance(responses, str) or not all(isinstance(r, str) for r in responses):
                raise RevalScoreError(f"answers[{task!r}][{item_id!r}] must be a list of strings")
    return tuple(task for task in REVAL_TASKS if task in answers)


# ------------------------------------------------------------------ execution
_CHUNK = 64


def _chunks(plans: Sequence[RevalPlan]) -> Iterator[tuple[tuple[int, ...], list[Any]]]:
    """Plans grouped by the program their jobs run (official state answers share one, a
    problem's output checks another), up to :data:`_CHUNK` jobs a group, so that one
    forked child runs many answers' checks as one executor item."""

    def key(i: int) -> tuple[str, str]:
        job = plans[i].jobs[0]
        return job.program, repr(job.limits)

    with_jobs = sorted((i for i, plan in enumerate(plans) if plan.jobs), key=key)
    chunk: list[int] = []
    size = 0
    for i in with_jobs:
        if chunk and (key(chunk[0]) != key(i) or size + len(plans[i].jobs) > _CHUNK):
            yield tuple(chunk), [job for j in chunk for job in plans[j].jobs]
            chunk, size = [], 0
        chunk.append(i)
        size += len(plans[i].jobs)
    if chunk:
        yield tuple(chunk), [job for j in chunk for job in plans[j].jobs]


def _judge_all(engine: Engine, plans: Sequence[RevalPlan], progress: bool) -> list[Verdict]:
    """Each plan's verdict, its jobs run by the judge's executor (identical jobs once,
    answers sharing a program in one child, timeouts probed then rerun alone)."""
    from execlens.judge import Executor, plan_verdicts

    verdicts: list[Verdict | None] = [plan.verdict() if not plan.jobs else None for plan in plans]
    chunks = list(_chunks(plans))
    with Executor(engine) as executor:
        for members, outcomes in _progress(executor.run(iter(chunks)), len(chunks), progress):
            for i, verdict in zip(members, plan_verdicts([plans[i] for i in members], outcomes)):
                verdicts[i] = verdict
    judged = [v for v in verdicts if v is not None]
    if len(judged) != len(plans):  # the executor hands back every chunk it is given
        raise RuntimeError("the judge's executor lost plans' outcomes")
    return judged


def _progress(items: Iterator[Any], total: int, enabled: bool) -> Iterator[Any]:
    if not enabled:
        yield from items
        return
    from rich.progress import track

    yield from track(items, total=total, description="judging", transient=True)


def _missing() -> Verdict:
    return Verdict.failing(VerdictStatus.UNPARSEABLE, "missing", "no answer for this item")


def _skipped(reason: str) -> Verdict:
    return Verdict.failing(VerdictStatus.SKIPPED, "unrunnable", reason)


# ------------------------------------------------------------------ metrics
def _samples(lists: Iterable[list[Verdict]]) -> int:
    sizes = [len(v) for v in lists]
    return min(sizes) if sizes else 0


def _accuracy(verdicts: Mapping[str, list[Verdict]], ids: Sequence[str]) -> float | None:
    k = _samples(verdicts[i] for i in ids)
    if not ids or k == 0:
        return None
    per_k = [percent(sum(verdicts[i][j].passed for i in ids), len(ids)) or 0.0 for j in range(k)]
    return sum(per_k) / k


def _coverage_metrics(
    verdicts: Mapping[str, list[Verdict]], ids: Sequence[str], truth: Mapping[str, QuestionTruth]
) -> dict[str, Any]:
    k = _samples(verdicts[i] for i in ids)
    runs = []
    for j in range(k):
        counts = ConfusionCounts()
        for item_id in ids:
            data = verdicts[item_id][j].data
            answer = data.get("answer") if "answer" in data else None
            counts.add(answer if isinstance(answer, bool) else None, truth[item_id].covered)
        runs.append(counts.metrics())
    if not runs:
        return {"n": len(ids), "accuracy": None}
    if len(runs) == 1:
        return runs[0]
    merged: dict[str, Any] = {"n": runs[0]["n"], "samples": k}
    for key in ("accuracy", "precision", "recall", "f1"):
        values = [r[key] for r in runs if r[key] is not None]
        merged[key] = sum(values) / len(values) if values else None
    return merged


def _ic(
    verdicts: Mapping[str, Mapping[str, list[Verdict]]],
    ids: Sequence[str],
    pair_of: Mapping[str, str],
) -> float | None:
    if not ids or any(task not in verdicts for task in REVAL_TASKS):
        return None
    lists = [verdicts[t][i] for t in _QUESTION_TASKS for i in ids]
    lists += [verdicts["output"][pair_of[i]] for i in ids]
    k = _samples(lists)
    if k == 0:
        return None
    values = [
        incremental_consistency(
            (
                verdicts["coverage"][i][j].passed,
                verdicts["state"][i][j].passed,
                verdicts["path"][i][j].passed,
                verdicts["output"][pair_of[i]][j].passed,
            )
            for i in ids
        )
        or 0.0
        for j in range(k)
    ]
    return sum(values) / k


def _mode_metrics(
    verdicts: Mapping[str, Mapping[str, list[Verdict]]],
    tasks: Sequence[str],
    question_ids: Sequence[str],
    output_ids: Sequence[str],
    pair_of: Mapping[str, str],
    kind_of: Mapping[str, str],
    truth: Mapping[str, QuestionTruth],
    leaky: set[str],
) -> dict[str, Any]:
    out: dict[str, Any] = {"questions": len(question_ids), "pairs": len(output_ids)}
    kinds = sorted({kind_of[i] for i in [*question_ids, *output_ids]})

    def block(q_ids: Sequence[str], o_ids: Sequence[str]) -> dict[str, Any]:
        result: dict[str, Any] = {"questions": len(q_ids), "pairs": len(o_ids)}
        if "coverage" in tasks:
            result["coverage"] = _coverage_metrics(verdicts["coverage"], q_ids, truth)
        for task in ("state", "path"):
            if task in tasks:
                result[task] = _accuracy(verdicts[task], q_ids)
        if "output" in tasks:
            result["output"] = _accuracy(verdicts["output"], o_ids)
            clean = [i for i in o_ids if i not in leaky]
            result["output_leak_free"] = _accuracy(verdicts["output"], clean)
            result["pairs_leak_free"] = len(clean)
        result["ic"] = _ic(verdicts, q_ids, pair_of)
        return result

    out.update(block(question_ids, output_ids))
    if len(kinds) > 1:
        out["by_kind"] = {
            kind: block(
                [i for i in question_ids if kind_of[i] == kind],
                [i for i in output_ids if kind_of[i] == kind],
            )
            for kind in kinds
        }
    return out


def _mode_baselines(
    question_ids: Sequence[str], truth: Mapping[str, QuestionTruth], kind_of: Mapping[str, str]
) -> dict[str, Any]:
    out = baselines([truth[i] for i in question_ids])
    kinds = sorted({kind_of[i] for i in question_ids})
    if len(kinds) > 1:
        out["by_kind"] = {
            kind: baselines([truth[i] for i in question_ids if kind_of[i] == kind])
            for kind in kinds
        }
    return out


def _check_style_and_modes(style: str, modes: Sequence[str]) -> tuple[str, ...]:
    """``modes`` as a tuple, once ``style`` and each mode are known ones."""
    if style not in ("direct", "cot"):
        raise RevalScoreError(f"style must be 'direct' or 'cot', got {style!r}")
    modes = tuple(modes)
    for mode in modes:
        if mode not in REVAL_MODES:
            raise RevalScoreError(f"unknown mode {mode!r} (expected {REVAL_MODES})")
    return modes


def _all_truths(
    problems: Sequence[RevalProblem],
    engine: Engine,
    modes: Sequence[str],
    truth: Mapping[str, RevalTruth] | None,
    cache_dir: str | Path | None,
    progress: bool,
) -> dict[str, RevalTruth]:
    """The given truths, with those of the modes they lack built here."""
    truths = dict(truth or {})
    needed = [m for m in modes if m not in truths]
    if needed:
        truths.update(
            build_reval_truth(problems, engine, needed, cache_dir=cache_dir, progress=progress)
        )
    return truths


def _kinds_and_skips(
    problems: Sequence[RevalProblem],
    items: Sequence[RevalItem],
    truths: Mapping[str, RevalTruth],
) -> tuple[dict[str, str], dict[str, str]]:
    """Each item's problem kind, and for those skipped the reason: its problem cannot run
    here, or a truth skipped its pair."""
    kind_of: dict[str, str] = {}
    skipped: dict[str, str] = {}
    unrunnable = {p.task_id: p.skip_reason for p in problems}
    for item in items:
        kind_of[item.sample_id] = item.problem.kind
        reason = unrunnable[item.problem.task_id] or next(
            (
                t.skipped.get(item.pair.sample_id)
                for t in truths.values()
                if item.pair.sample_id in t.skipped
            ),
            None,
        )
        if reason:
            skipped[item.sample_id] = reason
    return kind_of, skipped


def _item_truth(mode_truth: RevalTruth, mode: str, task: str, item: RevalItem) -> Any:
    """The ground truth one item's answers are judged against in ``mode``."""
    if task == "output":
        return mode_truth.outputs.get(item.pair.sample_id)
    if item.sample_id in mode_truth.questions:
        return mode_truth.questions[item.sample_id]
    raise RevalScoreError(
        f"the {mode} truth has no answer for {item.sample_id}: was it built from other problems?"
    )


_Planned = tuple[str, str, str, int, RevalPlan]


def _plan_answers(
    answers: Mapping[str, Mapping[str, Sequence[str]]],
    style: str,
    modes: Sequence[str],
    tasks: Sequence[str],
    scope: tuple[list[RevalItem], list[RevalItem]],
    truths: Mapping[str, RevalTruth],
    skipped: Mapping[str, str],
) -> tuple[list[_Planned], dict[str, dict[str, dict[str, list[Verdict]]]]]:
    """A judging plan per response, and the verdicts with every judged slot still
    ``missing``: skipped and unanswered items already have their final verdict."""
    questions, outputs = scope
    contexts = {
        item.sample_id: reval_context(item)
        for item in [*questions, *outputs]
        if item.sample_id not in skipped
    }
    plans: list[_Planned] = []
    verdicts: dict[str, dict[str, dict[str, list[Verdict]]]] = {
        mode: {task: {} for task in tasks} for mode in modes
    }
    for mode in modes:
        for task in tasks:
            for item in outputs if task == "output" else questions:
                item_id = item.sample_id
                if item_id in skipped:
                    verdicts[mode][task][item_id] = [_skipped(skipped[item_id])]
                    continue
                responses = list(answers[task].get(item_id, ()))
                if not responses:
                    verdicts[mode][task][item_id] = [_missing()]
                    continue
                item_truth = _item_truth(truths[mode], mode, task, item)
                verdicts[mode][task][item_id] = [_missing()] * len(responses)
                for k, raw in enumerate(responses):
                    # A judge's failure on one answer is that answer's scoring_error.
                    plan = guarded(
                        plan_reval, task, mode, raw, style, contexts[item_id], item_truth
                    )
                    plans.append((mode, task, item_id, k, plan))
    return plans, verdicts


# ------------------------------------------------------------------ entry point
def score_reval(
    source: Any,
    answers: Mapping[str, Mapping[str, Sequence[str]]],
    style: str,
    engine: Engine | None = None,
    *,
    modes: Sequence[str] = REVAL_MODES,
    truth: Mapping[str, RevalTruth] | None = None,
    cache_dir: str | Path | None = None,
    progress: bool = False,
) -> RevalScores:
    """Judge REval answers in each mode and compute metrics, IC and baselines.

    ``source``: problems (``load_reval(...)``, its ``.records``, or a list) -- every
    question and pair of them is in scope -- or items (``reval_questions``/
    ``reval_pairs``).  ``answers``: ``{task: {item id: [raw responses]}}``; only the
    tasks present are scored (IC needs all four).  ``engine`` runs the traces and the
    official state/output checks (one with the tracer preloaded is started when None).
    ``truth``: a result of :func:`build_reval_truth` to reuse; otherwise it is built
    here (and kept in ``cache_dir`` when given).
    """
    modes = _check_style_and_modes(style, modes)
    tasks = _check_answers(answers)
    problems, questions, outputs = _scope(source)
    if engine is None:
        from execlens.trace import trace_engine

        with trace_engine() as own:
            return score_reval(
                source,
                answers,
                style,
                own,
                modes=modes,
                truth=truth,
                cache_dir=cache_dir,
                progress=progress,
            )
    truths = _all_truths(problems, engine, modes, truth, cache_dir, progress)
    kind_of, skipped = _kinds_and_skips(problems, [*questions, *outputs], truths)
    plans, verdicts = _plan_answers(
        answers, style, modes, tasks, (questions, outputs), truths, skipped
    )
    judged = _judge_all(engine, [plan for *_, plan in plans], progress)
    for (mode, task, item_id, k, _), verdict in zip(plans, judged):
        verdicts[mode][task][item_id][k] = verdict

    metrics, base = summarise(verdicts, modes, tasks, questions, outputs, truths, skipped, answers)
    return RevalScores(
        style=style,
        modes=modes,
        tasks=tasks,
        verdicts=verdicts,
        metrics=metrics,
        baselines=base,
        skipped=skipped,
        kinds=kind_of,
    )


def summarise(
    verdicts: Mapping[str, Mapping[str, Mapping[str, list[Verdict]]]],
    modes: Sequence[str],
    tasks: Sequence[str],
    questions: Sequence[RevalItem],
    outputs: Sequence[RevalItem],
    truths: Mapping[str, RevalTruth],
    skipped: Mapping[str, str],
    answers: Mapping[str, Mapping[str, Sequence[str]]] | None = None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(metrics, baselines)`` per mode from judged verdicts (``verdicts[mode][task][id]``).

    Metrics over every question/pair in scope less the ``skipped`` ones; baselines are the
    constant answers' numbers on the same questions, from the truth.
    """
    kind_of = {item.sample_id: item.problem.kind for item in [*questions, *outputs]}
    pair_of = {item.sample_id: f"{item.pair.sample_id}/output" for item in [*questions, *outputs]}
    question_ids = [q.sample_id for q in questions if q.sample_id not in skipped]
    output_ids = [o.sample_id for o in outputs if o.sample_id not in skipped]
    leaky = set()
    if "strict" in truths:
        leaky = {
            f"{pair_id}/output" for pair_id, out in truths["strict"].outputs.items() if out.leak
        }
    metrics = {
        mode: _mode_metrics(
            verdicts[mode],
            tasks,
            question_ids,
            output_ids,
            pair_of,
            kind_of,
            truths[mode].questions,
            leaky,
        )
        for mode in modes
    }
    in_scope = {"output": {o.sample_id for o in outputs}}
    in_scope.update({task: {q.sample_id for q in questions} for task in _QUESTION_TASKS})
    unmatched = {
        task: len(set(answers[task]) - in_scope[task])
        for task in tasks
        if answers is not None and set(answers[task]) - in_scope[task]
    }
    for mode in modes:
        if unmatched:  # answers whose ids name no item in scope: likely an id mix-up
            metrics[mode]["unmatched_answers"] = unmatched
        metrics[mode]["skipped_questions"] = sum(1 for q in questions if q.sample_id in skipped)
        metrics[mode]["skipped_pairs"] = sum(1 for o in outputs if o.sample_id in skipped)
        metrics[mode]["denominators"] = (
            "every question/pair in scope, less the skipped ones (problems that cannot run here)"
        )
    base = {mode: _mode_baselines(question_ids, truths[mode].questions, kind_of) for mode in modes}
    return metrics, base


# ------------------------------------------------------------------ printing
def _cell(value: Any) -> str:
    return "-" if value is None else f"{value:5.1f}"


def format_reval_scores(scores: RevalScores) -> str:
    """A plain-text table: each mode's numbers beside the constant-answer baselines."""
    lines = []
    for mode in scores.modes:
        m, b = scores.metrics[mode], scores.baselines[mode]
        const, yes = b["no_nil_minus1"], b["always_yes"]
        cov = m.get("coverage") or {}
        lines.append(
            f"REval [{mode}]  {m['questions']} questions, {m['pairs']} pairs "
            f"({m['skipped_questions']} questions / {m['skipped_pairs']} pairs "
            "skipped, outside every denominator)"
        )
        lines.append(f"  {'metric':<22}{'model':>8}{'NO/Nil/-1':>11}{'always YES':>12}")
        rows = [
            (
                "coverage accuracy",
                cov.get("accuracy"),
                const["coverage"]["accuracy"],
                yes["coverage"]["accuracy"],
            ),
            (
                "coverage precision",
                cov.get("precision"),
                const["coverage"]["precision"],
                yes["coverage"]["precision"],
            ),
            (
                "coverage recall",
                cov.get("recall"),
                const["coverage"]["recall"],
                yes["coverage"]["recall"],
            ),
            ("coverage F1", cov.get("f1"), const["coverage"]["f1"], yes["coverage"]["f1"]),
            ("state accuracy", m.get("state"), const["state"], None),
            ("path accuracy", m.get("path"), const["path"], None),
            ("output accuracy", m.get("output"), const["output"], None),
            ("IC", m.get("ic"), const["ic"], None),
            ("IC (perfect output)", None, const["ic_perfect_output"], None),
        ]
        for name, model, constant, always in rows:
            lines.append(f"  {name:<22}{_cell(model):>8}{_cell(constant):>11}{_cell(always):>12}")
    return "\n".join(lines)
