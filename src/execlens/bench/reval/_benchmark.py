"""REval's declaration: tasks, prompts, extraction, traced truth, scorers, metrics, export.

* ``plan`` drops the problems that can never be scored here (DREval/117 and /149 import
  gensim) *before* inference and records why in :attr:`Reval.skipped` (item id ->
  reason), so no request is wasted on them; ``consistency`` is the composite of the four
  tasks (the output task over the pairs of the planned questions, as IC needs).
* ``prepare`` traces the ground truth of both modes once (cached on disk by content).
* ``scorers`` judge the *raw* responses (REval re-reads text its stop strings cut); a
  judge's failure on one answer is that answer's ``scoring_error`` verdict.
* ``explain`` gives the report what a failure needs beside the answer: the expected
  answer, the program with the lines its run executed, the asked line, the true value;
* ``metrics`` gives each mode's accuracy (coverage precision/recall/F1), IC and the
  constant-answer baselines, from the finished sample records.
* ``perturb_target``/``perturbed``: ``--perturb`` rewrites each problem's code once, maps
  every question's line and traces both modes' truth again on it (``_perturb``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from execlens.bench import (
    BenchmarkBase,
    BenchmarkError,
    DatasetError,
    ExportSpec,
    Generations,
    GenerationsError,
    Reference,
    TaskSpec,
    TracedTarget,
    answered_items,
    select,
)
from execlens.judge import (
    SampleScore,
    ScorePlan,
    Verdict,
    VerdictStatus,
    guarded,
    plan_verdicts,
)
from execlens.tasks import RuntimeProgram
from execlens.tasks.prompts import Extraction, RenderedPrompt

from ._data import RevalItem, load_reval, reval_pairs, reval_questions
from ._explain import explain_reval
from ._extract import extract_reval
from ._flat import reval_metrics_for_report
from ._judge import plan_reval
from ._perturb import RevalPerturbation
from ._plan import REVAL_MODES, REVAL_TASKS
from ._programs import programs_from_reval, recognises_reval
from ._score import summarise
from ._truth import RevalTruth, build_reval_truth, reval_context

__all__ = ["BENCHMARK", "Reval", "RevalScorer", "truth_cache_dir"]

_STYLES = ("direct", "cot")
_ALL = (*REVAL_TASKS, "consistency")

_REFERENCES = (
    # REval leaderboard (r-eval/r-eval.github.io results.json): GPT-4-Turbo (0125).
    Reference(
        "reval",
        _ALL,
        ("gpt-4-0125-preview", "gpt-4-turbo-0125"),
        {
            "coverage": 88.4,
            "coverage f1": 89.8,
            "state": 71.4,
            "path": 57.7,
            "output": 82.6,
            "IC": 42.48,
        },
        "REval leaderboard, GPT-4-Turbo (0125)",
    ),
)


def truth_cache_dir() -> Path:
    """Where traced ground truth is kept: the core's truth cache (``bench.TruthCache``:
    ``$EXECLENS_TRUTH_CACHE_DIR``, else ``reval-truth`` beside the request cache)."""
    from execlens.bench import truth_cache_dir as core_dir

    return core_dir("reval-truth")


class RevalScorer:
    """One mode's judge of one task: every raw response of an item, with its truth."""

    def __init__(self, mode: str, task: str, style: str, truths: Mapping[str, RevalTruth]) -> None:
        self.name = mode
        self.task = task
        self.style = style
        self.truths = truths

    def _truth(self, item: RevalItem) -> Any:
        truth = self.truths[self.name]
        if self.task == "output":
            return truth.outputs.get(item.pair.sample_id)
        return truth.questions.get(item.sample_id)

    def plan(self, item: RevalItem, generations: Sequence[str]) -> ScorePlan:
        """The jobs of every response (official state/output checks) and the scoring."""
        truth = self._truth(item)
        if truth is None and self.task != "output":
            missing = Verdict.failing(
                VerdictStatus.REFERENCE_ERROR, "truth", f"no {self.name} truth for {item.sample_id}"
            )
            plans = [guarded(lambda: missing) for _ in generations]
        else:
            context = reval_context(item)
            plans = [
                guarded(plan_reval, self.task, self.name, raw, self.style, context, truth)
                for raw in generations
            ]
        jobs = [job for plan in plans for job in plan.jobs]

        def finish(outcomes: Sequence[Any]) -> SampleScore:
            verdicts = plan_verdicts(plans, outcomes)
            return SampleScore(
                item.sample_id,
                self.name,
                verdicts,
                [v.passed for v in verdicts],
                info={"kind": item.problem.kind},
            )

        return ScorePlan(jobs, finish)


def _record_key(record: Mapping[str, Any], task: str) -> tuple[str, str]:
    """``(task, item id)`` of a sample record (composite runs key it ``task:id``)."""
    ident = str(record.get("sample_id") or record.get("id") or "")
    prefix, sep, rest = ident.partition(":")
    if sep and prefix in REVAL_TASKS:
        return prefix, rest
    return str(record.get("task") or task), ident


def _from_label(label: str, task: str, covered: bool | None) -> Verdict:
    """A verdict rebuilt from its ``status:reason`` label; a coverage verdict gets back the
    answer it implies (precision and recall need it): right = the truth, wrong = not."""
    status, _, reason = label.partition(":")
    try:
        kind = VerdictStatus(status)
    except ValueError:
        kind = VerdictStatus.SCORING_ERROR
    data: dict[str, Any] = {}
    if (
        task == "coverage"
        and covered is not None
        and kind in (VerdictStatus.PASSED, VerdictStatus.WRONG)
    ):
        data["answer"] = covered if kind is VerdictStatus.PASSED else not covered
    if kind is VerdictStatus.PASSED:
        return Verdict(True, kind, data=data)
    return Verdict(False, kind, reason=reason, data=data)


def _record_verdicts(
    record: Mapping[str, Any], mode: str, task: str, covered: bool | None
) -> list[Verdict]:
    stored = (record.get("verdicts") or {}).get(mode)
    if isinstance(stored, list) and all(isinstance(v, Mapping) for v in stored):
        return [Verdict.from_dict(v) for v in stored]
    labels = [entry.get(mode) for entry in record.get("generations") or ()]
    if labels and all(isinstance(label, str) for label in labels):
        return [_from_label(label, task, covered) for label in labels]
    return [
        _from_label("passed" if flag else "wrong:recorded", task, covered)
        for flag in record.get(mode) or ()
    ]


class Reval(BenchmarkBase[RevalItem]):
    """REval (r-eval/REval, ICSE 2025): coverage, path, state and output questions about
    154 programs' runs, and Incremental Consistency over all four."""

    name = "reval"
    description = (
        "REval: is a line executed, which line runs next, a variable's value, "
        "the output; Incremental Consistency"
    )
    tasks: Mapping[str, TaskSpec] = {
        "coverage": TaskSpec("coverage", _STYLES, "is line N executed? (YES/NO)"),
        "path": TaskSpec("path", _STYLES, "which line runs right after line N?"),
        "state": TaskSpec("state", _STYLES, "the value and type of a variable after line N"),
        "output": TaskSpec("output", _STYLES, "complete the masked assertion (??)"),
        "consistency": TaskSpec("consistency", _STYLES, "all four, for IC", composite=REVAL_TASKS),
    }
    modes = REVAL_MODES
    scores_raw = True
    preload: tuple[str, ...] = ()
    scoring_workers = 16
    eval_files: tuple[str, ...] = ("reval/DREval_data.jsonl",)
    """Where its programs sit in an evaluation-data folder (``export`` decontaminates)."""
    program_requirements: tuple[str, ...] = ("numpy<2",)
    """Several programs call NumPy 1.x APIs (``np.mat``, removed in 2.0): under NumPy 2
    they raise, and every published count derived from them moves."""

    def __init__(self) -> None:
        self.skipped: dict[str, str] = {}
        """Item ids ``plan`` dropped before inference, with the reason (gensim...)."""
        self._items: dict[str, list[RevalItem]] = {}
        self._truths: dict[str, RevalTruth] = {}
        self._perturbation: RevalPerturbation | None = None

    # ------------------------------------------------------------- items
    def eval_programs(self) -> list[str]:
        """The programs of the data shipped with execlens (export's decontamination)."""
        return [record.code for record in self.load(None)]

    def load(self, data: str | None) -> list[Any]:
        """Every problem with its questions; malformed records are named and stop the run."""
        loaded = load_reval(data)
        if loaded.errors:
            raise DatasetError("; ".join(str(e) for e in loaded.errors[:5]))
        return list(loaded.records)

    def recognises(self, path: Path, first: Mapping[str, Any]) -> bool:
        """Whether ``path`` is DREval data (``load_programs`` asks)."""
        return recognises_reval(path, first)

    def programs(self, data: Path) -> list[RuntimeProgram]:
        """Every input of the DREval data ``data``, with its questions (``tasks build``)."""
        return programs_from_reval(data)

    def _runnable(self, items: Iterable[RevalItem]) -> list[RevalItem]:
        kept = []
        for item in items:
            reason = item.problem.skip_reason
            if reason:
                self.skipped[item.sample_id] = reason
            else:
                kept.append(item)
        return kept

    def plan(
        self, records: Sequence[Any], task: str, *, limit: int | None, offset: int
    ) -> list[tuple[str, list[Any]]]:
        """Questions (coverage/path/state), pairs (output), or all four (consistency).

        Problems that cannot run here are dropped first (:attr:`skipped` says why), so
        ``--limit`` counts askable questions.  For consistency the output task covers the
        pairs the selected questions belong to, since IC weighs each question by its
        pair's output.
        """
        if task not in self.tasks:
            raise BenchmarkError(
                f"reval has no task {task!r} (expected one of {', '.join(self.tasks)})"
            )
        # A new run: nothing of a previous run's items or truth carries over.
        self.skipped, self._truths = {}, {}
        self._perturbation = None
        problems = list(records)
        if task == "output":
            plan = [
                (task, select(self._runnable(reval_pairs(problems)), limit=limit, offset=offset))
            ]
        else:
            questions = select(
                self._runnable(reval_questions(problems)), limit=limit, offset=offset
            )
            if task != "consistency":
                plan = [(task, questions)]
            else:
                pairs: dict[str, RevalItem] = {}
                for item in questions:
                    pair = RevalItem(item.problem, item.pair, 0, None)
                    pairs.setdefault(pair.sample_id, pair)
                plan = [(name, questions) for name in ("coverage", "path", "state")]
                plan.append(("output", list(pairs.values())))
        self._items = {name: list(items) for name, items in plan}
        return plan

    def render(self, item: Any, task: str, style: str) -> RenderedPrompt:
        """REval's prompt for the item, from REval's own template files."""
        return item.render(task, style)

    def extract(self, raw: str, item: Any, task: str, style: str, flavor: str) -> Extraction:
        """REval's own reading of the answer (logged; the judges re-read the raw text)."""
        question = item.pair.output_pred if task == "output" else None
        return extract_reval(raw, task, style, code=item.problem.code, question=question)

    # ------------------------------------------------------------- --perturb
    def perturb_target(self, item: Any, task: str) -> TracedTarget:
        """``--perturb``: the problem's code is rewritten (once per problem), the question's
        line mapped and its truth traced again (``_perturb`` says what must not move)."""
        if self._perturbation is None:
            self._perturbation = RevalPerturbation(truth_cache_dir())
        return self._perturbation.target(item)

    def perturbed(self, plan: Sequence[tuple[str, list[Any]]]) -> None:
        """The plan ``--perturb`` kept: metrics read its items, the judges the truth traced
        on its programs (by the runner's proof; nothing is traced again)."""
        self._items = {name: list(items) for name, items in plan}
        if self._perturbation is not None:
            problems = {item.problem.task_id: item.problem for _, items in plan for item in items}
            self._truths = self._perturbation.truths(list(problems.values()))

    # ------------------------------------------------------------- scoring
    def prepare(self, items: Sequence[Any], task: str, engine: Any) -> Any:
        """The traced truth of both modes for the items' problems (cached on disk)."""
        problems = {item.problem.task_id: item.problem for item in items}
        missing = [p for p in problems.values() if not self._has_truth(p.task_id)]
        if missing or not self._truths:
            built = build_reval_truth(
                list(problems.values()), engine, REVAL_MODES, cache_dir=truth_cache_dir()
            )
            for mode, truth in built.items():
                merged = self._truths.setdefault(mode, RevalTruth(mode=mode))
                merged.questions.update(truth.questions)
                merged.outputs.update(truth.outputs)
                merged.skipped.update(truth.skipped)
                merged.notes.update(truth.notes)
                merged.lines.update(truth.lines)
        return self._truths

    def explain(self, item: Any, task: str, context: Any) -> dict[str, Any] | None:
        """The expected answer, program, asked line, executed lines and true value of
        ``item`` from the truth :meth:`prepare` returned (for the report's failure view)."""
        truths = context if isinstance(context, Mapping) else self._truths
        return explain_reval(item, task, truths)

    def _has_truth(self, task_id: str) -> bool:
        prefix = f"{task_id}/"
        return all(
            any(k.startswith(prefix) for k in t.questions)
            or any(k.startswith(prefix) for k in t.outputs)
            for t in self._truths.values()
        ) and bool(self._truths)

    def scorers(self, task: str, style: str, context: Any) -> dict[str, RevalScorer]:
        """Official and strict judges of ``task`` over the truth ``prepare`` returned."""
        if task not in REVAL_TASKS:
            raise BenchmarkError(
                f"reval scores the tasks {', '.join(REVAL_TASKS)} "
                f"(consistency is their composite), not {task!r}"
            )
        if style not in _STYLES:
            raise BenchmarkError(f"reval has no prompt style {style!r} (direct or cot)")
        truths = context if isinstance(context, Mapping) else self._truths
        return {mode: RevalScorer(mode, task, style, truths) for mode in self.modes}

    def _ensure_truths(self) -> None:
        """The truth of the planned items: from :meth:`prepare`, else the disk cache (a
        resumed run scores nothing new), else traced here."""
        problems = list(
            {
                item.problem.task_id: item.problem
                for items in self._items.values()
                for item in items
            }.values()
        )
        if not problems or all(self._has_truth(p.task_id) for p in problems):
            return
        from execlens.trace import trace_engine

        with trace_engine() as engine:
            self.prepare(
                [RevalItem(p, pair, 0, None) for p in problems for pair in p.pairs],
                "output",
                engine,
            )

    def metrics(self, records: Sequence[Mapping[str, Any]], task: str) -> dict[str, Any]:
        """Per mode: each task's accuracy, coverage precision/recall/F1 and IC when all
        four were asked (percent, flat for tables; the full breakdown by problem kind
        under ``detailed``); ``baselines``: the constant answers NO / Nil / -1 and always
        YES on the same questions."""
        self._ensure_truths()
        if not self._truths:
            raise BenchmarkError("reval metrics need the planned items: call plan() first")
        by_task: dict[str, dict[str, Mapping[str, Any]]] = {}
        for record in records:
            name, ident = _record_key(record, task)
            by_task.setdefault(name, {})[ident] = record
        tasks = tuple(t for t in REVAL_TASKS if t in by_task)
        questions = next(
            (self._items[t] for t in ("coverage", "path", "state") if t in self._items), []
        )
        outputs = self._items.get("output", [])
        verdicts: dict[str, dict[str, dict[str, list[Verdict]]]] = {}
        for mode in self.modes:
            truth = self._truths[mode].questions
            verdicts[mode] = {}
            for name in tasks:
                scope = outputs if name == "output" else questions
                verdicts[mode][name] = {
                    item.sample_id: _record_verdicts(
                        by_task[name][item.sample_id],
                        mode,
                        name,
                        truth[item.sample_id].covered if item.sample_id in truth else None,
                    )
                    if item.sample_id in by_task[name]
                    else [Verdict.failing(VerdictStatus.UNPARSEABLE, "missing", "no answer")]
                    for item in scope
                }
        detailed, base = summarise(
            verdicts, self.modes, tasks, questions, outputs, self._truths, {}
        )
        shown = None if len(tasks) > 1 else tasks[0] if tasks else task
        out: dict[str, Any] = {
            mode: reval_metrics_for_report(detailed[mode], shown) for mode in self.modes
        }
        out["detailed"] = detailed
        flat = {
            f"{name} ({mode})": reval_metrics_for_report(values, shown)
            for mode in self.modes
            for name, values in base[mode].items()
            if isinstance(values, dict)
        }
        out["baselines"] = {name: values for name, values in flat.items() if values}
        return out

    def read_generations(self, path: Path, data: str | None, task: str | None) -> Generations:
        """``{"<sample id>": ["<response>", ...]}`` for one ``--task`` (coverage, path,
        state or output; ids as ``samples.jsonl`` writes them).  REval publishes no
        generations format: this one holds what ``execlens eval`` asked, so a file of a
        model's responses scores what eval scored.  The questions the file answers are
        scored (``consistency`` needs all four: run ``execlens eval``)."""
        if task not in REVAL_TASKS:
            raise GenerationsError(
                f"{path}: name the REval task with --task ({', '.join(REVAL_TASKS)}); "
                "consistency (IC) needs all four asked together: run `execlens eval "
                "--benchmark reval --task consistency`"
            )
        [(_, items)] = self.plan(self.load(data), task, limit=None, offset=0)
        paired = answered_items(Path(path), items, f"REval {task} questions")
        if not paired:
            raise GenerationsError(f"{path}: answers none of REval's {task} questions")
        self._items = {task: [item for item, _ in paired]}
        return Generations(
            task=task,
            items=paired,
            notes={"official_task": task, "questions": len(paired)},
        )

    def references(self) -> Sequence[Reference]:
        """The REval leaderboard entry (GPT-4-Turbo 0125)."""
        return _REFERENCES

    def exports(self) -> Sequence[ExportSpec]:
        """The JetBrains REval layout (``executions.jsonl`` + ``states.jsonl``)."""
        return (
            ExportSpec(
                "jetbrains",
                "traces in the JetBrains-Research/REval layout (configs executions and states)",
                {
                    "function": "execlens.bench.reval:export_jetbrains",
                    "tracer": "execlens.bench.reval:trace_reval",
                    "rows": ("all", "pairs"),
                },
            ),
        )


BENCHMARK = Reval()
