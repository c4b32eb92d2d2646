"""Benchmark prompts and answer extraction, matching the official code of each benchmark.

Prompts are jinja2 templates (``templates/``) transcribed from the official strings, so
results stay comparable with published numbers:

* CRUXEval (facebookresearch/cruxeval: prompts.py): input/output × direct/cot (+ phind);
* LiveCodeBench code execution (lcb_runner/prompts/code_execution.py): direct/cot;
* REval (prompts/{direct,cot}_{coverage,path,state,output}.txt, filled as evaluation.py
  does). Each template's first comment says where its text comes from; three REval CoT
  templates are reconstructions (see the comments).

Every rendered prompt carries its system message, stop strings and the official runner's
sampling defaults. Extraction is string work only: it never evaluates or runs anything.
"""

from ._classeval import ClassEvalTestClass, classeval_test_classes
from ._cruxeval import CRUXEVAL_SYSTEM, cruxeval_sampling, render_cruxeval
from ._dispatch import extract_answer, render_prompt
from ._extract_io import extract_cruxeval, extract_lcb
from ._extract_reval import (
    extract_reval,
    extract_reval_coverage,
    extract_reval_output,
    extract_reval_path,
    extract_reval_state,
    match_path_answer,
    normalise_state_type,
)
from ._extract_types import NIL, Extraction, StateAnswer, apply_stop
from ._lcb import LCB_SYSTEM, lcb_sampling, render_lcb
from ._reval import (
    REVAL_SYSTEM,
    RevalPromptInput,
    number_code_lines,
    render_reval,
    reval_invocation,
    reval_sampling,
    reval_setup_comment,
)
from ._types import BENCHMARKS, PromptInputError, RenderedPrompt, SamplingDefaults

__all__ = [
    "BENCHMARKS",
    "CRUXEVAL_SYSTEM",
    "LCB_SYSTEM",
    "NIL",
    "REVAL_SYSTEM",
    "ClassEvalTestClass",
    "Extraction",
    "PromptInputError",
    "RenderedPrompt",
    "RevalPromptInput",
    "SamplingDefaults",
    "StateAnswer",
    "apply_stop",
    "classeval_test_classes",
    "cruxeval_sampling",
    "extract_answer",
    "extract_cruxeval",
    "extract_lcb",
    "extract_reval",
    "extract_reval_coverage",
    "extract_reval_output",
    "extract_reval_path",
    "extract_reval_state",
    "lcb_sampling",
    "match_path_answer",
    "normalise_state_type",
    "number_code_lines",
    "render_cruxeval",
    "render_lcb",
    "render_prompt",
    "render_reval",
    "reval_invocation",
    "reval_sampling",
    "reval_setup_comment",
]
