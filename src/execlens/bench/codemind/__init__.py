"""CodeMind (Intelligent-CAT-Lab/CodeMind): IER on HumanEval, CRUXEval and ClassEval, SR
on HumanEval, each scored by upstream's rules (``official``) and strictly (``strict``).

Its Python data ships in ``data/`` (NCSA, with the MIT notices of HumanEval, CRUXEval
and ClassEval: see the licence files there), so it runs offline.  Names load on first use.
"""

# ruff: noqa: F401 - the TYPE_CHECKING imports name what lazy_exports loads on first use

from __future__ import annotations

from typing import TYPE_CHECKING

from execlens._lazy import lazy_exports

if TYPE_CHECKING:
    from ._benchmark import BENCHMARK, CodeMind
    from ._data import DATA_DIR, CodeMindItem, load_codemind
    from ._extract import extract_ier, extract_sr
    from ._official import IEROfficialScorer, SROfficialScorer, ier_normalise
    from ._prompts import render_ier, render_sr
    from ._sr_kind import SRKind, sr_task
    from ._strict import read_ier_answer, strip_fence

_EXPORTS = {
    "BENCHMARK": "_benchmark",
    "CodeMind": "_benchmark",
    "DATA_DIR": "_data",
    "CodeMindItem": "_data",
    "load_codemind": "_data",
    "extract_ier": "_extract",
    "extract_sr": "_extract",
    "IEROfficialScorer": "_official",
    "SROfficialScorer": "_official",
    "ier_normalise": "_official",
    "render_ier": "_prompts",
    "render_sr": "_prompts",
    "SRKind": "_sr_kind",
    "sr_task": "_sr_kind",
    "read_ier_answer": "_strict",
    "strip_fence": "_strict",
}

__all__, __getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

# The folder's question kind (``codemind_sr``) joins the registry when the folder is
# imported, as a plug-in's does.
from . import _sr_kind  # noqa: E402 - after the exports: registering is its side effect
