"""Synthesis ``verify``: one function cannot change another's verdict (issue 23).

CodeI/O input predictions of up to 32 functions were checked in one forked child (they
share the judge's driver program); one function's code, run there, could change what
the next one returned.  Each function's code is its own origin now.
"""

from __future__ import annotations

import pytest

from execlens.engine import Engine, Limits
from execlens.synth import SYNTH_PRELOAD, prediction_task, verify_predictions

pytestmark = pytest.mark.attack

# Replaces what the driver turns every return value into (JSON round trip).
POISON = (
    "import json\n"
    "json.loads = lambda *args, **kwargs: {'flipped': True}\n"
    "def main_solution(n):\n"
    "    return n\n"
)
HONEST = "def main_solution(n):\n    return n * 2\n"


def _answer(given: str) -> str:
    return f'```json\n{{"input": {given}}}\n```'


def test_attack_a_function_flipping_another_functions_verdict() -> None:
    tasks = [
        prediction_task("i", POISON, {"n": 1}, 1),
        prediction_task("i", HONEST, {"n": 3}, 6),
    ]
    texts = [_answer('{"n": 1}'), _answer('{"n": 3}')]
    # One server, so both functions' checks meet it.
    with Engine(workers=1, preload=SYNTH_PRELOAD) as engine:
        verdicts = verify_predictions(engine, tasks, texts, limits=Limits(wall_time=5.0))
        alone = verify_predictions(engine, tasks[1:], texts[1:], limits=Limits(wall_time=5.0))
    assert alone[0]["label"] == "success"
    assert verdicts[1]["label"] == "success", verdicts[1]
