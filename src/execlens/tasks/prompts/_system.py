"""The system message the official OpenAI runners of CRUXEval, LiveCodeBench and REval share."""

from __future__ import annotations

__all__ = ["EXECUTION_SYSTEM"]

#: CRUXEval's openai/openai_prompt.py; LiveCodeBench's format_prompt_execution_base and
#: REval's OpenAI runner send the same sentence.
EXECUTION_SYSTEM = (
    "You are an expert at Python programming, code execution, test case generation, and fuzzing."
)
