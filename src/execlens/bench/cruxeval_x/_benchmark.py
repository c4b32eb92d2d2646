"""CRUXEval-X's declaration: Python output and input prediction from a user's copy."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from execlens.bench import (
    BenchmarkError,
    Generations,
    GenerationsError,
    SampleBenchmark,
    TaskSpec,
    check_generations,
    dataset_records,
    match_generations,
    read_generations_json,
)
from execlens.judge import Scorer, Verdict
from execlens.tasks import Task
from execlens.tasks.prompts import Extraction, RenderedPrompt

from ._data import CruxXItem, load_cruxeval_x
from ._prompts import STYLES, extract_cruxeval_x, render_cruxeval_x
from ._score import STRICT_LIMITS, OfficialScorer, strict_answer, strict_task

__all__ = ["BENCHMARK", "CruxEvalX"]


class CruxEvalX(SampleBenchmark[CruxXItem]):
    """CRUXEval-X (CRUXEVAL-X/cruxeval-x), Python split: fill the ``????`` of an assert."""

    name = "cruxeval-x"
    description = (
        "CRUXEval-X (Python split): complete the ???? of a test's assert with "
        "the output or the input call (bring your own copy: --data)"
    )
    default_task = "output"
    tasks: Mapping[str, TaskSpec] = {
        "output": TaskSpec("output", STYLES, "the value in `assert candidate(...) == ????`"),
        "input": TaskSpec("input", STYLES, "a call replacing `candidate(????)`"),
    }
    modes = ("official", "strict")
    scores_raw = False
    preload: tuple[str, ...] = ()
    scoring_workers = 8

    def load(self, data: str | None) -> list[Any]:
        """The Python records of ``data`` (required: nothing ships)."""
        return dataset_records(load_cruxeval_x(data))

    def render(self, item: Any, task: str, style: str) -> RenderedPrompt:
        """The prompt: three solved examples, then the program and its tail."""
        self._check(task)
        tail = item.output_reasoning if task == "output" else item.input_reasoning
        return render_cruxeval_x(task, style, head=item.head, tail=tail, sample_id=item.sample_id)

    def extract(self, raw: str, item: Any, task: str, style: str, flavor: str) -> Extraction:
        """The answer upstream's runner reads."""
        return extract_cruxeval_x(raw, flavor)

    strict_limits = STRICT_LIMITS

    def strict_task(self, item: CruxXItem, task: str) -> Task:
        """The output or input question of the tail (``_score.strict_task``)."""
        return strict_task(item, task)

    def strict_answer(self, answer: str, task: str) -> str | Verdict:
        """One literal (output) or one call of ``f`` / ``candidate`` (input)."""
        return strict_answer(answer, task)

    def scorers(self, task: str, style: str, context: Any) -> dict[str, Scorer[CruxXItem]]:
        """The Python judge (official) and strict (the core's)."""
        self._check(task)
        return {"official": OfficialScorer(task), "strict": self.strict_scorer(task, context)}

    def explain(self, item: Any, task: str, context: Any) -> dict[str, Any] | None:
        """The program and the tail asked about."""
        tail = item.output_reasoning if task == "output" else item.input_reasoning
        return {
            "expected": None,
            "program": item.head + tail,
            "question": "fill the ???? of the assert",
        }

    def read_generations(self, path: Path, data: str | None, task: str | None) -> Generations:
        """``{"<id>": ["<answer>", ...]}`` (answers as the runner extracted them)."""
        if task is None or task not in self.tasks:
            raise GenerationsError(
                f"{path}: name the CRUXEval-X task with --task ({', '.join(self.tasks)})"
            )
        answers = check_generations(read_generations_json(path), str(path))
        return Generations(
            task=task,
            items=match_generations(self.load(data), answers, str(path)),
            notes={"official_task": task},
        )

    def references(self) -> Sequence[Any]:
        """None reproducible offline."""
        return ()

    def _check(self, task: str) -> None:
        if task not in self.tasks:
            raise BenchmarkError(
                f"CRUXEval-X has no task {task!r} (expected one of {', '.join(self.tasks)})"
            )


BENCHMARK = CruxEvalX()
