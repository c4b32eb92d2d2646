"""RE2-Bench (Intelligent-CAT-Lab/RE2Bench, arXiv 2512.14917): input, output, loop and
branch prediction, scored by upstream's validators (``official``, the correct-prefix hole
included) and strictly (``strict``: the core's task scorer over the question kinds this
folder adds, ``re2bench_output`` / ``_input`` / ``_loop`` / ``_branch``, registered with
``execlens.tasks.kinds`` when the folder is imported).

Bring your own data: the upstream repository has no licence, so nothing ships; pass a
checkout with ``--data`` (see ``_data``).  Names load on first use.
"""

# ruff: noqa: F401 - the TYPE_CHECKING imports name what lazy_exports loads on first use

from __future__ import annotations

from typing import TYPE_CHECKING

from execlens._lazy import lazy_exports

if TYPE_CHECKING:
    from ._benchmark import BENCHMARK, RE2Bench, re2_metrics
    from ._compare import (
        compare_branch,
        compare_loop,
        deserialize,
        official_score,
        strict_score,
    )
    from ._data import RE2Item, case_file_name, load_re2bench
    from ._kinds import KINDS, RE2Kind, re2_task
    from ._parse import extract_json_answer, parse_branch_answer, parse_loop_answer
    from ._score import OfficialScorer

_EXPORTS = {
    "BENCHMARK": "_benchmark",
    "RE2Bench": "_benchmark",
    "re2_metrics": "_benchmark",
    "compare_branch": "_compare",
    "compare_loop": "_compare",
    "deserialize": "_compare",
    "official_score": "_compare",
    "strict_score": "_compare",
    "RE2Item": "_data",
    "case_file_name": "_data",
    "load_re2bench": "_data",
    "extract_json_answer": "_parse",
    "parse_branch_answer": "_parse",
    "parse_loop_answer": "_parse",
    "KINDS": "_kinds",
    "RE2Kind": "_kinds",
    "re2_task": "_kinds",
    "OfficialScorer": "_score",
}

__all__, __getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

# The folder's question kinds join the registry when the folder is imported, as a
# plug-in's do (a task of kind ``re2bench_output`` is read wherever the folder is).
from . import _kinds  # noqa: E402 - after the exports: registering is its side effect
