"""Execution-verified rewards: ``score(task, response) -> Verdict`` and trainer adapters.

* :func:`score` / :func:`score_batch`: judge completions against :class:`Task`
  ground truths (output / input prediction, coverage, path, state, REval-style output
  completion), strictly, over ``execlens.judge``; :class:`Shaping` maps verdicts to
  rewards.
* TRL: :class:`ExeclensReward` (and the ready instances :data:`execlens_reward`,
  :data:`execlens_reward_async`, :data:`execlens_format_reward`) for ``GRPOTrainer``;
  :class:`ExeclensLengthPenalty`, the optional length / truncation penalty.
* Reasoning models: answers are read from a completion's final part only
  (:func:`read_completion`); a cut-off thought, an answer only inside the thought, or
  different answers in the final part earn the minimum.
* verl: :func:`compute_score` (single and batch); load it through
  ``pkg://execlens.rewards.verl_reward``.
* Export: :func:`export_tasks` writes TRL prompt datasets and verl Parquet rows, after
  decontamination against the evaluation benchmarks.

Importing this package starts nothing; the judging engine starts on the first batch that
runs code and stops at exit.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from execlens._lazy import lazy_exports

if TYPE_CHECKING:
    from execlens.rewards._core import KINDS, Task, TaskError, judge_answer, score, score_batch
    from execlens.rewards._decontam import Decontaminator, normalize_program
    from execlens.rewards._engine import close_shared_engine, shared_executor
    from execlens.rewards._export import ExportResult, export_tasks, trl_row, verl_row
    from execlens.rewards._extract import (
        ANSWER_CLOSE,
        ANSWER_FORMATS,
        ANSWER_OPEN,
        MAX_ANSWER_CHARS,
        NO_ANSWER_PROBLEMS,
        Extracted,
        extract_answer,
        first_line,
        read_completion,
        select_answer_text,
    )
    from execlens.rewards._format import well_formed
    from execlens.rewards._prompts import render_direct_prompt, render_messages
    from execlens.rewards._shaping import Shaping
    from execlens.rewards._sources import (
        tasks_from_codeio,
        tasks_from_prediction,
        tasks_from_runtime,
    )
    from execlens.rewards._trl import (
        AsyncExeclensReward,
        ExeclensFormatReward,
        ExeclensLengthPenalty,
        ExeclensReward,
        execlens_format_reward,
        execlens_reward,
        execlens_reward_async,
    )
    from execlens.rewards._verl import compute_score, compute_score_async

_EXPORTS = {
    "KINDS": "_core",
    "Task": "_core",
    "TaskError": "_core",
    "judge_answer": "_core",
    "score": "_core",
    "score_batch": "_core",
    "Decontaminator": "_decontam",
    "normalize_program": "_decontam",
    "close_shared_engine": "_engine",
    "shared_executor": "_engine",
    "ExportResult": "_export",
    "export_tasks": "_export",
    "trl_row": "_export",
    "verl_row": "_export",
    "ANSWER_CLOSE": "_extract",
    "ANSWER_OPEN": "_extract",
    "MAX_ANSWER_CHARS": "_extract",
    "NO_ANSWER_PROBLEMS": "_extract",
    "read_completion": "_extract",
    "Extracted": "_extract",
    "extract_answer": "_extract",
    "ANSWER_FORMATS": "_extract",
    "first_line": "_extract",
    "select_answer_text": "_extract",
    "well_formed": "_format",
    "render_messages": "_prompts",
    "render_direct_prompt": "_prompts",
    "Shaping": "_shaping",
    "tasks_from_codeio": "_sources",
    "tasks_from_prediction": "_sources",
    "tasks_from_runtime": "_sources",
    "AsyncExeclensReward": "_trl",
    "ExeclensFormatReward": "_trl",
    "ExeclensLengthPenalty": "_trl",
    "ExeclensReward": "_trl",
    "execlens_format_reward": "_trl",
    "execlens_reward": "_trl",
    "execlens_reward_async": "_trl",
    "compute_score": "_verl",
    "compute_score_async": "_verl",
}

__all__, __getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
