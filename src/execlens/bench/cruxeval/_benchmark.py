"""CRUXEval's declaration: tasks, prompts, extraction, scorers, references."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

from execlens.bench import (
    DatasetError,
    Generations,
    PerturbTarget,
    ProblemScorer,
    Reference,
    SampleBenchmark,
    ShippedRun,
    TaskSpec,
    dataset_records,
    match_generations,
)
from execlens.judge import Scorer, StrictScorer
from execlens.tasks import ProblemError, RuntimeProgram, Task
from execlens.tasks.prompts import Extraction, RenderedPrompt

from ._data import load_cruxeval
from ._extract import extract_cruxeval
from ._generations import (
    checked_records,
    cruxeval_question,
    cruxeval_task,
    load_cruxeval_generations,
)
from ._official import CruxEvalOfficialScorer, cruxeval_mode_from_path
from ._programs import programs_from_cruxeval, recognises_cruxeval
from ._prompts import STYLES

__all__ = ["BENCHMARK", "CruxEval"]

_REFERENCES = (
    # The official scorer on the official Code Llama 7B generations (n = 10, T = 0.2):
    # facebookresearch/cruxeval samples/evaluation_results/sample_scored_codellama-7b_temp0.2_*.
    Reference(
        "cruxeval",
        ("input",),
        ("codellama-7b",),
        {"pass@1": 35.95, "pass@5": 44.99},
        "CRUXEval official scored generations, Code Llama 7B, T = 0.2",
        temperature=0.2,
        samples=800,
    ),
    Reference(
        "cruxeval",
        ("output",),
        ("codellama-7b",),
        {"pass@1": 34.21, "pass@5": 40.29},
        "CRUXEval official scored generations, Code Llama 7B, T = 0.2",
        temperature=0.2,
        samples=800,
    ),
)


class CruxEval(SampleBenchmark[Any]):
    """CRUXEval (facebookresearch/cruxeval): 800 functions, predict an output or an input."""

    name = "cruxeval"
    description = "CRUXEval: predict a function's output from its input, or an input for its output"
    tasks: Mapping[str, TaskSpec] = {
        "input": TaskSpec("input", STYLES["input"], "predict an input f(...) for the output"),
        "output": TaskSpec("output", STYLES["output"], "predict the output of f(<input>)"),
    }
    modes = ("official", "strict")
    scores_raw = False
    default = True
    """``execlens score FILE`` without ``--benchmark`` reads the file as CRUXEval's."""
    preload: tuple[str, ...] = ()
    scoring_workers = 16
    eval_files: tuple[str, ...] = ("cruxeval/cruxeval.jsonl",)
    """Where its programs sit in an evaluation-data folder (``export`` decontaminates)."""

    def eval_programs(self) -> list[str]:
        """The programs of the data shipped with execlens (export's decontamination)."""
        return [record.code for record in self.load(None)]

    def load(self, data: str | None) -> list[Any]:
        """CRUXEval's samples; malformed records are named and stop the run."""
        return dataset_records(load_cruxeval(data))

    def recognises(self, path: Path, first: Mapping[str, Any]) -> bool:
        """Whether ``path`` is CRUXEval-shaped data (``load_programs`` asks)."""
        return recognises_cruxeval(path, first)

    def programs(self, data: Path) -> list[RuntimeProgram]:
        """``f(<input>)`` on each sample of ``data`` (``tasks build``)."""
        return programs_from_cruxeval(data)

    def render(self, item: Any, task: str, style: str) -> RenderedPrompt:
        """The official prompt."""
        return item.render(task, style)

    def extract(self, raw: str, item: Any, task: str, style: str, flavor: str) -> Extraction:
        """The text the official post-processing hands to the scorer."""
        return extract_cruxeval(raw, task, style, flavor=flavor)

    def scorers(self, task: str, style: str, context: Any) -> dict[str, Scorer[Any]]:
        """Official (for the task its script infers, ``context``, if any) and strict."""
        official_task = context if isinstance(context, str) else task
        return {
            "official": ProblemScorer(
                CruxEvalOfficialScorer(official_task), partial(cruxeval_task, kind=official_task)
            ),
            "strict": ProblemScorer(StrictScorer(task), partial(cruxeval_task, kind=task)),
        }

    def explain(self, item: Any, task: str, context: Any) -> dict[str, Any] | None:
        """The reference answer as the model should write it: the output literal
        (``'abc'``), or for input prediction the dataset's call (``f('x')``; any input
        giving the output passes, so it is one right answer, not the only one)."""
        call = f"f({item.input})"
        if task == "input":
            return {
                "expected": call,
                "program": item.code,
                "true_value": item.output,
                "question": f"an input such that f(??) == {item.output}",
            }
        return {
            "expected": item.output,
            "program": item.code,
            "true_value": item.output,
            "question": f"the output of {call}",
        }

    def question_task(self, record: Mapping[str, Any]) -> Task | None:
        """The output-prediction task one row of CRUXEval's shape asks (``export``), or
        ``None`` when the row is not one (no code, input or output; its input a call)."""
        return cruxeval_question(record)

    def perturb_target(self, item: Any, task: str) -> PerturbTarget:
        """``--perturb``: the function is rewritten; ``f(<input>)`` must return the same."""
        return PerturbTarget(
            item.code, (f"f({item.input})",), lambda code: replace(item, code=code)
        )

    def read_generations(self, path: Path, data: str | None, task: str | None) -> Generations:
        """An official-format file; the official mode scores it as its path says.  Its
        items are the samples eval asks (their prompts give the stops the score runner
        cuts each final part at, as eval does); each scorer makes its task of them."""
        official_task = cruxeval_mode_from_path(str(path))
        try:
            samples = checked_records(load_cruxeval(data))
        except DatasetError as exc:
            raise ProblemError(f"{exc}; pass a local file with --data") from exc
        answers = load_cruxeval_generations(path)
        return Generations(
            task=task or official_task,
            items=match_generations(samples, answers, str(path)),
            context=official_task,
            notes={"official_task": official_task},
        )

    def references(self) -> Sequence[Reference]:
        """The official scored Code Llama 7B files."""
        return _REFERENCES

    def shipped_runs(self) -> list[ShippedRun]:
        """The official Code Llama 7B generations shipped with execlens."""
        from ._demo import shipped_runs

        return shipped_runs()

    def demo_evals(self, directory: Path, engine: Any) -> list[tuple[str, dict[str, Any]]]:
        """``execlens demo``'s embedded-model runs on execlens's example programs."""
        from ._demo import demo_evals

        return demo_evals(directory, engine)


BENCHMARK = CruxEval()
