"""The CRUXEval files shipped with execlens (MIT, facebookresearch/cruxeval).

``data/cruxeval.jsonl`` holds the 800 samples and ``data/codellama-7b_temp0.2_<task>_
generations.json`` the official Code Llama 7B generations at T = 0.2, so the official
numbers can be reproduced offline (``execlens demo``).
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["DATA_DIR", "packaged_generations"]

DATA_DIR = Path(__file__).resolve().parent / "data"


def packaged_generations(task: str) -> Path:
    """The official Code Llama 7B (T = 0.2) generations file of ``task`` (input/output)."""
    if task not in ("input", "output"):
        raise ValueError(f"CRUXEval has no task {task!r} (expected 'input' or 'output')")
    return DATA_DIR / f"codellama-7b_temp0.2_{task}_generations.json"
