"""CoverageEval's declaration: one task (annotate the method's lines), two modes.

* ``load``: the 1,160 (method, test) pairs (the copy shipped in ``data/``, or ``--data``);
* ``plan``: the 538 pairs the paper evaluates, in problem then test order;
* ``render``: the zero-shot prompt (system "You are a terminal..." + the transcript);
* ``extract``: the response as it is (the scorers read its labelled lines);
* ``prepare``: our tracer's truth of the planned pairs (strict mode's);
* ``metrics``: Match, Stmt, Branch (the README's definition) and branch accuracy, per
  mode, recomputed from each record's answers (``samples.jsonl`` of an eval run holds
  them; for ``execlens score`` they are the file :meth:`read_generations` read);
* ``references``: the README's zero-shot table.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from execlens.bench import (
    BenchmarkBase,
    BenchmarkError,
    Generations,
    GenerationsError,
    Reference,
    TaskSpec,
    check_generations,
    read_generations_json,
    select,
)
from execlens.judge import Scorer
from execlens.store import JsonlError, jsonl_lines
from execlens.tasks.prompts import Extraction, RenderedPrompt, read_response

from ._data import CoverageEvalTest, evaluated, load_coverage_eval
from ._prompts import STYLES, render_coverage_eval
from ._score import CoverageScorer, LineStats, mode_metrics, official_stats, strict_stats
from ._truth import TracedCoverage, trace_coverage

__all__ = ["BENCHMARK", "REFERENCES", "CoverageEval"]

_SOURCE = (
    "microsoft/coverage-eval README.md (zero-shot, 2023-07-25); no scoring code is "
    "published: Match/Stmt/Branch as ANCHORS section 9 reads them"
)


def _reference(
    models: tuple[str, ...], match: float, stmt: float, branch: float, note: str = ""
) -> Reference:
    return Reference(
        "coverage-eval",
        ("coverage",),
        models,
        {"match": match, "stmt": stmt, "branch": branch},
        _SOURCE + (f"; {note}" if note else ""),
        temperature=0.0,
        samples=538,
    )


#: The README's zero-shot Match / Stmt / Branch (model names as upstream and as its
#: output folders spell them).
REFERENCES = (
    _reference(("gpt-4", "gpt4"), 25.75, 84.47, 20.16),
    _reference(("gpt-3.5-turbo", "gpt35", "gpt-3.5"), 0.0, 39.87, 8.33),
    _reference(
        ("claude-1.3", "claude"),
        3.9,
        84.47,
        20.07,
        "its Match (3.9 = 21/538) and Stmt (84.47, GPT-4's figure repeated) are not "
        "derivable from its released answers: they match 24 of 538 times (4.46) under the "
        "reading that gives GPT-4's 25.75 and Claude's Branch 20.07 exactly (see "
        "execlens.bench.coverage_eval._score)",
    ),
    _reference(("text-bison-001", "bard", "palm"), 0.0, 81.27, 17.21),
)


class CoverageEval(BenchmarkBase[Any]):
    """CoverageEval (Tufano et al. 2023): label each line of a HumanEval method as run or
    not by one test."""

    name = "coverage-eval"
    description = (
        "CoverageEval: annotate every line of a HumanEval method as executed (>) "
        "or not (!) by one test"
    )
    tasks: Mapping[str, TaskSpec] = {
        "coverage": TaskSpec(
            "coverage", STYLES, "the coverage annotation of a method under one test (538 pairs)"
        ),
    }
    modes = ("official", "strict")
    scores_raw = False
    preload: tuple[str, ...] = ()
    scoring_workers = 2
    """Scoring runs nothing; the servers only trace the truth (1 s for 538 pairs)."""

    def __init__(self) -> None:
        self._items: dict[str, CoverageEvalTest] = {}
        self._traced: dict[str, TracedCoverage] = {}
        self._answers: dict[str, list[str]] = {}

    # ------------------------------------------------------------- items
    def eval_programs(self) -> list[str]:
        """The programs of the data shipped with execlens (export's decontamination)."""
        return [record.method for record in self.load(None)]

    def load(self, data: str | None) -> list[Any]:
        """Every pair of ``data`` (default: the shipped copy); malformed records named."""
        return list(load_coverage_eval(data))

    def plan(
        self, records: Sequence[Any], task: str, *, limit: int | None, offset: int
    ) -> list[tuple[str, list[Any]]]:
        """The evaluated pairs, sliced by ``limit``/``offset``."""
        self._check_task(task)
        items = select(evaluated(records), limit=limit, offset=offset)
        self._items.update((item.sample_id, item) for item in items)
        return [(task, items)]

    def _check_task(self, task: str | None) -> None:
        if task not in self.tasks:
            raise BenchmarkError(f"coverage-eval has no task {task!r} (expected 'coverage')")

    def render(self, item: Any, task: str, style: str) -> RenderedPrompt:
        """The zero-shot prompt."""
        return render_coverage_eval(item, style)

    def extract(self, raw: str, item: Any, task: str, style: str, flavor: str) -> Extraction:
        """The whole response: the scorers read its labelled lines themselves."""
        labelled = any(
            line.strip()[:1] in (">", "!", "-") and line.strip() for line in raw.split("\n")
        )
        return Extraction(
            raw, ("the response as it is",), failure=None if labelled else "no_labels"
        )

    # ------------------------------------------------------------- scoring
    def _truth(
        self, items: Sequence[CoverageEvalTest], engine: Any = None
    ) -> dict[str, TracedCoverage]:
        todo = [item for item in items if item.sample_id not in self._traced]
        if todo:
            self._traced.update(trace_coverage(todo, engine))
        return {item.sample_id: self._traced[item.sample_id] for item in items}

    def prepare(self, items: Sequence[Any], task: str, engine: Any) -> Any:
        """Our tracer's truth of ``items`` (``{test id: TracedCoverage}``)."""
        self._items.update((item.sample_id, item) for item in items)
        return self._truth(items, engine)

    def scorers(self, task: str, style: str, context: Any) -> dict[str, Scorer[CoverageEvalTest]]:
        """Official (published labels) and strict (traced truth, ``context`` or traced
        now)."""
        self._check_task(task)
        truth = dict(context) if isinstance(context, Mapping) else {}

        def truth_of(item: CoverageEvalTest) -> TracedCoverage | None:
            if item.sample_id not in truth:
                truth.update(self._truth([item]))
            return truth.get(item.sample_id)

        return {
            "official": CoverageScorer("official", lambda item: None),
            "strict": CoverageScorer("strict", truth_of),
        }

    def explain(self, item: Any, task: str, context: Any) -> dict[str, Any] | None:
        """The published annotation, the program and the lines our tracer saw run."""
        traced = (context or {}).get(item.sample_id) if isinstance(context, Mapping) else None
        out: dict[str, Any] = {
            "expected": item.coverage,
            "program": item.shown_method,
            "run": item.test.strip(),
            "question": "which lines run?",
        }
        if traced is not None:
            out["executed_lines"] = list(traced.executed)
        if item.shown_method != item.method:
            out["note"] = (
                "upstream's prompt shows the other correct_bracketing; the "
                "published labels are for the method the test was written for"
            )
        return out

    def metrics(self, records: Sequence[Mapping[str, Any]], task: str) -> dict[str, Any]:
        """Match, Stmt, Branch and branch accuracy (percent) per mode (module docstring)."""
        per_mode: dict[str, dict[str, list[LineStats]]] = {mode: {} for mode in self.modes}
        unknown = [str(r["id"]) for r in records if str(r["id"]) not in self._items]
        if unknown:
            raise BenchmarkError(
                f"coverage-eval metrics need the planned pairs; unknown "
                f"ids {', '.join(unknown[:5])} (call plan() first)"
            )
        items = [self._items[str(record["id"])] for record in records]
        truth = self._truth(items)
        answered = 0
        for record, item in zip(records, items):
            answers = record.get("answers")
            if answers is None:
                answers = self._answers.get(item.sample_id, [])
            n = max(int(record.get("n", len(answers))), len(answers))
            if answers:
                answered += 1
                per_mode["official"][item.sample_id] = [official_stats(a, item) for a in answers]
            traced = truth[item.sample_id]
            if traced.labels is None or traced.branch is None:
                per_mode["strict"][item.sample_id] = [LineStats.zero(False)] * max(n, 1)
                continue
            stats = [strict_stats(a, item, traced)[0] for a in answers]
            stats += [LineStats.zero(any(traced.branch))] * (n - len(answers))
            per_mode["strict"][item.sample_id] = stats
        result: dict[str, Any] = {
            "official": mode_metrics(per_mode["official"], answered),
            "strict": mode_metrics(per_mode["strict"], len(records)),
        }
        flags = []
        if answered < len(records):
            flags.append(
                f"{len(records) - answered} of {len(records)} pairs have no answer: "
                "official averages over the answered ones (as the paper did), "
                "strict counts each as 0"
            )
        untraced = sorted(k for k, v in truth.items() if v.labels is None)
        if untraced:
            flags.append(
                f"{len(untraced)} pair(s) recorded no coverage under our tracer "
                f"({', '.join(untraced[:5])}): strict scores them 0"
            )
        if flags:
            result["flags"] = flags
        return result

    def read_generations(self, path: Path, data: str | None, task: str | None) -> Generations:
        """Upstream's outputs (JSONL rows with ``test_id`` or ``test_target.test_id`` and
        ``prediction``; ``null`` reads as an empty answer) or ``{test id: [answer, ...]}``
        JSON, paired with the 538 evaluated pairs (a pair the file lacks has no answer)."""
        task = task or "coverage"
        self._check_task(task)
        file = Path(path)
        answers = (
            _read_jsonl(file)
            if file.suffix == ".jsonl"
            else check_generations(read_generations_json(file), str(file))
        )
        [(_, items)] = self.plan(self.load(data), task, limit=None, offset=0)
        known = {item.sample_id for item in items}
        unknown = [ident for ident in answers if ident not in known]
        if unknown:
            raise GenerationsError(
                f"{file}: {len(unknown)} test id(s) are not evaluated "
                f"CoverageEval pairs ({', '.join(unknown[:5])})"
            )
        self._answers = {ident: [_final(a) for a in texts] for ident, texts in answers.items()}
        # The texts go to the score runner whole: it reads them as eval reads a response.
        self._truth(items)  # strict's truth, traced once for the scorers and the metrics
        paired = [(item, answers.get(item.sample_id, [])) for item in items]
        return Generations(
            task=task,
            items=paired,
            context=dict(self._traced),
            notes={"answered": len(answers), "evaluated": len(items)},
        )

    def references(self) -> Sequence[Reference]:
        """The README's zero-shot Match/Stmt/Branch of GPT-4, GPT-3.5, Claude-1.3 and PaLM."""
        return REFERENCES

    def exports(self) -> Sequence[Any]:
        """None."""
        return ()


def _final(answer: str) -> str:
    # What the score runner hands the scorers (a thinker's final part): the metrics read
    # the same text.
    response = read_response(answer)
    return response.final if response.answerable else ""


def _read_jsonl(file: Path) -> dict[str, list[str]]:
    """``{test id: [prediction]}`` from upstream's output rows."""
    out: dict[str, list[str]] = {}
    try:
        for line in jsonl_lines(file):
            number, row, error = line.number, line.value, line.error
            if error is not None:
                raise _generations_error(file, error)
            ident = row.get("test_id")
            if ident is None and isinstance(row.get("test_target"), dict):
                ident = row["test_target"].get("test_id")
            if not isinstance(ident, (str, int)) or isinstance(ident, bool):
                raise GenerationsError(f"{file} line {number}: no test_id")
            if "prediction" not in row:
                raise GenerationsError(f"{file} line {number}: no prediction")
            prediction = row["prediction"]
            if prediction is not None and not isinstance(prediction, str):
                raise GenerationsError(
                    f"{file} line {number}: prediction is "
                    f"{type(prediction).__name__}, expected a string or null"
                )
            if str(ident) in out:
                raise GenerationsError(f"{file} line {number}: test {ident} answered twice")
            out[str(ident)] = [prediction or ""]
    except OSError as exc:
        raise GenerationsError(f"{file}: cannot read ({exc})") from exc
    if not out:
        raise GenerationsError(f"{file}: no rows")
    return out


def _generations_error(file: Path, error: JsonlError) -> GenerationsError:
    """A bad line of upstream's output file, worded as before the one JSONL reader."""
    if error.problem == "undecodable":
        return GenerationsError(
            f"{file}: cannot read ('utf-8' codec can't decode byte {error.byte:#04x} in "
            f"position {error.offset}: {error.detail})"
        )
    if error.problem == "not-object":
        return GenerationsError(f"{file} line {error.line}: expected an object")
    detail = error.detail if error.problem == "not-json" else "nested too deeply"
    return GenerationsError(f"{file} line {error.line}: not JSON ({detail})")


BENCHMARK = CoverageEval()
