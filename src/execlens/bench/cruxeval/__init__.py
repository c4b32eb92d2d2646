"""CRUXEval (facebookresearch/cruxeval): loader, prompts, extraction, official scorer.

Its data and the official Code Llama 7B (T = 0.2) generations ship in ``data/`` (MIT,
see ``data/LICENSE.txt``).  Names load on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from execlens._lazy import lazy_exports

if TYPE_CHECKING:
    from ._benchmark import BENCHMARK, CruxEval
    from ._data import CRUXEVAL_HUB, CruxEvalSample, load_cruxeval
    from ._demo import build_demo_cruxeval
    from ._extract import extract_cruxeval
    from ._generations import (
        cruxeval_question,
        cruxeval_task,
        load_cruxeval_generations,
        load_cruxeval_problems,
    )
    from ._official import CruxEvalOfficialScorer, cruxeval_mode_from_path
    from ._packaged import DATA_DIR, packaged_generations
    from ._programs import programs_from_cruxeval, recognises_cruxeval
    from ._prompts import CRUXEVAL_SYSTEM, cruxeval_sampling, render_cruxeval

_EXPORTS = {
    "BENCHMARK": "_benchmark",
    "CruxEval": "_benchmark",
    "CRUXEVAL_HUB": "_data",
    "CruxEvalSample": "_data",
    "load_cruxeval": "_data",
    "build_demo_cruxeval": "_demo",
    "extract_cruxeval": "_extract",
    "cruxeval_question": "_generations",
    "cruxeval_task": "_generations",
    "load_cruxeval_generations": "_generations",
    "load_cruxeval_problems": "_generations",
    "CruxEvalOfficialScorer": "_official",
    "cruxeval_mode_from_path": "_official",
    "DATA_DIR": "_packaged",
    "packaged_generations": "_packaged",
    "programs_from_cruxeval": "_programs",
    "recognises_cruxeval": "_programs",
    "CRUXEVAL_SYSTEM": "_prompts",
    "cruxeval_sampling": "_prompts",
    "render_cruxeval": "_prompts",
}

__all__, __getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
