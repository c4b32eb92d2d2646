"""CRUXEval-X (CRUXEVAL-X/cruxeval-x, arXiv 2408.13001), Python split: output and input
prediction judged by running the filled-in test (``official``, upstream's judge defined
for Python) and strictly (``strict``).

Bring your own data: the upstream repository has no licence, so nothing ships; pass
``py.jsonl`` with ``--data``.  Other languages raise :class:`UnsupportedLanguageError`.
Names load on first use.
"""

# ruff: noqa: F401 - the TYPE_CHECKING imports name what lazy_exports loads on first use

from __future__ import annotations

from typing import TYPE_CHECKING

from execlens._lazy import lazy_exports

if TYPE_CHECKING:
    from ._benchmark import BENCHMARK, CruxEvalX
    from ._data import CruxXItem, UnsupportedLanguageError, load_cruxeval_x
    from ._prompts import extract_cruxeval_x, render_cruxeval_x
    from ._score import OfficialScorer, official_program, strict_answer, strict_task

_EXPORTS = {
    "BENCHMARK": "_benchmark",
    "CruxEvalX": "_benchmark",
    "CruxXItem": "_data",
    "UnsupportedLanguageError": "_data",
    "load_cruxeval_x": "_data",
    "extract_cruxeval_x": "_prompts",
    "render_cruxeval_x": "_prompts",
    "OfficialScorer": "_score",
    "strict_answer": "_score",
    "strict_task": "_score",
    "official_program": "_score",
}

__all__, __getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
