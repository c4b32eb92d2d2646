"""LiveCodeBench code execution: loader, prompts, extraction, official scorer.

Names load on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from execlens._lazy import lazy_exports

if TYPE_CHECKING:
    from ._benchmark import BENCHMARK, LCBExec
    from ._data import LCB_EXEC_HUB, LCBExecSample, lcb_order, load_lcb_exec
    from ._extract import extract_lcb
    from ._generations import (
        lcb_question,
        lcb_row_task,
        lcb_task,
        load_lcb_generations,
        load_lcb_problems,
    )
    from ._official import LCB_PRELUDE, LCBOfficialScorer
    from ._prompts import LCB_SYSTEM, lcb_sampling, render_lcb

_EXPORTS = {
    "BENCHMARK": "_benchmark",
    "LCBExec": "_benchmark",
    "LCB_EXEC_HUB": "_data",
    "LCBExecSample": "_data",
    "lcb_order": "_data",
    "load_lcb_exec": "_data",
    "extract_lcb": "_extract",
    "lcb_question": "_generations",
    "lcb_row_task": "_generations",
    "lcb_task": "_generations",
    "load_lcb_generations": "_generations",
    "load_lcb_problems": "_generations",
    "LCB_PRELUDE": "_official",
    "LCBOfficialScorer": "_official",
    "LCB_SYSTEM": "_prompts",
    "lcb_sampling": "_prompts",
    "render_lcb": "_prompts",
}

__all__, __getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
