"""CodeMind's declaration: IER per data part, SR on HumanEval, official and strict."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from execlens.bench import (
    BenchmarkBase,
    BenchmarkError,
    Generations,
    GenerationsError,
    ProblemScorer,
    TaskSpec,
    check_generations,
    dataset_records,
    match_generations,
    read_generations_json,
    select,
)
from execlens.judge import Scorer, TaskScorer, Verdict
from execlens.tasks import NoTruth, Task, TruthRun
from execlens.tasks.prompts import Extraction, RenderedPrompt
from execlens.values import decode, literal_text

from ._data import load_codemind, part_records
from ._extract import extract_ier, extract_sr
from ._metrics import codemind_metrics
from ._official import IEROfficialScorer, SROfficialScorer
from ._prompts import IER_STYLES, IER_TASKS, SR_STYLES, render_ier, render_sr
from ._sr_kind import sr_task
from ._strict import TRUTH_LIMITS, TRUTH_SEEDS, read_ier_answer

__all__ = ["BENCHMARK", "CodeMind"]

#: Task -> data part.
_PARTS = {task: part for part, task in IER_TASKS.items()} | {"sr": "sr"}


class CodeMind(BenchmarkBase[Any]):
    """CodeMind (Intelligent-CAT-Lab/CodeMind): execution (IER) and specification (SR)
    reasoning on its Python data."""

    name = "codemind"
    description = (
        "CodeMind: predict a program's output (IER: HumanEval, CRUXEval, "
        "ClassEval) or write it from its specification (SR: HumanEval)"
    )
    default_task = "ier-humaneval"
    tasks: Mapping[str, TaskSpec] = {
        "ier-humaneval": TaskSpec(
            "ier-humaneval", IER_STYLES, "IER on HumanEval (162): the return value of a call"
        ),
        "ier-cruxeval": TaskSpec(
            "ier-cruxeval", IER_STYLES, "IER on CRUXEval (800): the return value of f(...)"
        ),
        "ier-classeval": TaskSpec(
            "ier-classeval", IER_STYLES, "IER on ClassEval (400 methods): what Test.test() returns"
        ),
        "sr": TaskSpec(
            "sr", SR_STYLES, "SR on HumanEval (164): write the function, judged by its tests"
        ),
    }
    modes = ("official", "strict")
    scores_raw = False
    preload: tuple[str, ...] = ()
    scoring_workers = 8

    def eval_programs(self) -> list[str]:
        """The programs of the data shipped with execlens (export's decontamination)."""
        return [record.code for record in self.load(None)]

    def load(self, data: str | None) -> list[Any]:
        """Every part's records (default: the copy shipped with execlens)."""
        return dataset_records(load_codemind(data))

    def plan(
        self, records: Sequence[Any], task: str, *, limit: int | None, offset: int
    ) -> list[tuple[str, list[Any]]]:
        """The task's data part, sliced."""
        part = self._part(task)
        return [(task, select(part_records(list(records), part), limit=limit, offset=offset))]

    def render(self, item: Any, task: str, style: str) -> RenderedPrompt:
        """CodeMind's chat-model prompt (see ``_prompts`` for the deviations)."""
        if item.part == "sr":
            return render_sr(style, nl=item.nl, tests=item.tests, sample_id=item.sample_id)
        return render_ier(
            item.part, style, code=item.code, code_input=item.input, sample_id=item.sample_id
        )

    def extract(self, raw: str, item: Any, task: str, style: str, flavor: str) -> Extraction:
        """``parse_chatgpt`` (IER) or the first ```` ```python ```` block (SR)."""
        return extract_sr(raw) if self._part(task) == "sr" else extract_ier(raw)

    def strict_task(self, item: Any, task: str) -> Task | None:
        """IER: the output question of the item's runnable program and call, its truth
        the value two runs (hash seeds 0 and 1) agree on; SR asks none."""
        if self._part(task) == "sr":
            return None
        return Task(
            kind="output",
            program=item.program,
            call=item.call,
            reference=TruthRun(seeds=TRUTH_SEEDS, limits=TRUTH_LIMITS),
            id=item.sample_id,
        )

    def strict_answer(self, answer: str, task: str) -> str | Verdict:
        """IER: one Python literal, one fence or backtick pair taken off."""
        return read_ier_answer(answer)

    def scorers(self, task: str, style: str, context: Any) -> dict[str, Scorer[Any]]:
        """Official (upstream's rules) and strict, per task family (IER: the core's)."""
        if self._part(task) == "sr":
            # strict SR: the core's task scorer over the folder's kind (codemind_sr)
            strict: Scorer[Any] = ProblemScorer(TaskScorer(), sr_task)
            return {"official": SROfficialScorer(), "strict": strict}
        return {"official": IEROfficialScorer(), "strict": self.strict_scorer(task, context)}

    def metrics(self, records: Sequence[Mapping[str, Any]], task: str) -> dict[str, Any]:
        """Accuracy per mode (percent of all answers), and what strict could not judge."""
        return codemind_metrics(records, self.modes)

    def explain(self, item: Any, task: str, context: Any) -> dict[str, Any] | None:
        """What the report shows beside a failed answer."""
        if item.part == "sr":
            return {
                "expected": None,
                "program": item.code,
                "run": f"check({item.entry_point})",
                "question": f"write {item.entry_point} from its specification",
                "note": "program shown: HumanEval's canonical solution",
            }
        prepared = (context or {}).get(item.sample_id)
        truth = prepared.reference if isinstance(prepared, Task) else None
        out: dict[str, Any] = {
            "expected": item.output.strip(),
            "program": item.code,
            "run": item.call,
            "question": f"the return value of {item.input.strip()}",
        }
        if isinstance(truth, Mapping):
            out["true_value"] = _literal_of(truth)
        elif isinstance(truth, NoTruth):
            out["true_value"] = None
            out["note"] = f"strict has no truth: {truth.reason}"
        if "true_value" in out:
            out["expected_by_mode"] = {"official": item.output.strip(), "strict": out["true_value"]}
        return out

    def read_generations(self, path: Path, data: str | None, task: str | None) -> Generations:
        """``{"<id>": ["<response>", ...]}`` for one task (``--task`` is required)."""
        if task is None or task not in self.tasks:
            raise GenerationsError(
                f"{path}: name the CodeMind task with --task ({', '.join(self.tasks)})"
            )
        answers = check_generations(read_generations_json(path), str(path))
        part = part_records(self.load(data), self._part(task))
        return Generations(
            task=task,
            # Read as eval reads a response (the score runner's one path): thought set
            # apart, then CodeMind's parser on the final part.
            items=match_generations(part, answers, str(path)),
            notes={
                "official_task": task,
                "note": "responses are read as CodeMind's parser reads them",
            },
        )

    def references(self) -> Sequence[Any]:
        """None: CodeMind ships no model outputs and the paper's tables are not here."""
        return ()

    def exports(self) -> Sequence[Any]:
        """None."""
        return ()

    def _part(self, task: str) -> str:
        try:
            return _PARTS[task]
        except KeyError:
            raise BenchmarkError(
                f"CodeMind has no task {task!r} (expected one of {', '.join(self.tasks)})"
            ) from None


def _literal_of(envelope: Mapping[str, Any]) -> str | None:
    """The true value as a literal, where one spells it."""
    try:
        return literal_text(decode(dict(envelope)))
    except Exception:  # noqa: BLE001 - an odd envelope just has no literal text
        return None


BENCHMARK = CodeMind()
