"""LiveCodeBench's official code-execution scorer, quirks included.

* its import block (numpy and pandas among it) is prepended to every check;
* an answer containing the input call string is skipped, and the list is reset to
  ``[False] * len(generations)`` only when *nothing* was executed (unlike CRUXEval).
"""

from __future__ import annotations

from execlens.engine import Limits
from execlens.judge import JUDGE_LIMITS, AssertCheckScorer
from execlens.tasks import Task, with_prelude

__all__ = ["LCB_PRELUDE", "LCBOfficialScorer"]


def _lcb_prelude() -> str:
    """LiveCodeBench's import block: the names its checks see, bound the same way.

    Its scorer prepends a fixed block of imports to every check (including numpy and
    pandas: without either, every check fails).  What matters is the final binding of
    each name; note ``bisect`` ends up as the *module*, not the function.
    """
    from_imports = {
        "itertools": "accumulate chain combinations count cycle groupby islice permutations "
        "product repeat zip_longest",
        "copy": "deepcopy",
        "string": "ascii_lowercase",
        "math": "ceil comb floor gcd inf isqrt log log10 log2 prod sqrt",
        "collections": "Counter OrderedDict defaultdict deque",
        "bisect": "bisect bisect_left bisect_right insort",
        "heapq": "heapify heappop heappush merge",
        "functools": "cache lru_cache partial reduce",
        "random": "randrange shuffle",
        "operator": "iand itemgetter sub",
        "os.path": "commonprefix",
        "typing": "Any Callable Dict Generator Iterable Iterator List Optional Set Tuple Union",
    }
    modules = "bisect collections copy functools heapq itertools math operator random re string sys"
    lines = [
        f"from {module} import {', '.join(names.split())}" for module, names in from_imports.items()
    ]
    lines.append("from re import search as re_search")
    lines.extend(f"import {module}" for module in modules.split())  # after: bisect = module
    lines.extend(["import numpy as np", "import pandas as pd"])
    return "\n".join(lines) + "\n"


LCB_PRELUDE = _lcb_prelude()


class LCBOfficialScorer(AssertCheckScorer):
    """LiveCodeBench code-execution scoring (output prediction, import block prepended)."""

    task = "output"

    def __init__(self, *, limits: Limits = JUDGE_LIMITS, prelude: str = LCB_PRELUDE) -> None:
        super().__init__(limits=limits)
        self.prelude = prelude

    def adapt(self, task: Task) -> Task:
        """The task with LiveCodeBench's import block in front of its code."""
        return with_prelude(task, self.prelude)

    def skip(self, task: Task, generation: str) -> str | None:
        """An answer holding the input call is never run."""
        if task.question_call in generation:
            return "the answer contains the input call"
        return None

    def reset(self, executed: list[bool], total: int) -> list[bool]:
        """Unlike CRUXEval: reset only when nothing ran at all."""
        return executed if executed else [False] * total
