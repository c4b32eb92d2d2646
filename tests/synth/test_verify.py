"""Verification labels in the real engine: CodeI/O predictions as tasks on the one judge
path -- input predictions re-executed through the judge's shared driver, output
predictions compared with the tolerant rule."""

from __future__ import annotations

from execlens.engine import Engine, Limits
from execlens.synth import SYNTH_PRELOAD, prediction_task, verify_predictions

_CODE = (
    "def main_solution(n):\n"
    "    if n == 7:\n        import sys; sys.exit(0)\n"
    "    if n == 8:\n        import os; os._exit(0)\n"
    "    if n == 9:\n        while True: pass\n"
    "    return sqrt(n) if n > 100 else n * 2\n"
)  # sqrt from the import prefix


def Check(kind: str, text: str, code: str, given: object, output: object) -> tuple:
    """A prediction to verify: its task and the response text."""
    return prediction_task(kind, code, given, output), text


def _i(value: object) -> str:
    return f'```json\n{{"input": {value}}}\n```'


def test_labels_of_input_and_output_predictions() -> None:
    checks = [
        Check("i", _i('{"n": 3}'), _CODE, {"n": 3}, 6),
        Check("i", _i('{"n": 4}'), _CODE, {"n": 3}, 6),
        Check("i", _i('{"m": 4}'), _CODE, {"n": 3}, 6),
        Check("i", _i('{"n": 7}'), _CODE, {"n": 3}, 6),
        Check("i", _i('{"n": 8}'), _CODE, {"n": 3}, 6),
        Check("i", _i('{"n": 9}'), _CODE, {"n": 3}, 6),
        Check("i", "no idea", _CODE, {"n": 3}, 6),
        Check("i", _i('{"n": 144}'), _CODE, {"n": 144}, 12.0),
        Check("i", _i('{"x": 1}'), "x = 1\n", {"x": 1}, 1),
        Check("o", '{"output": 6.0000001}', _CODE, {"n": 3}, 6),
        Check("o", '{"output": 5}', _CODE, {"n": 3}, 6),
    ]
    with Engine(workers=2, preload=SYNTH_PRELOAD) as engine:
        verdicts = verify_predictions(
            engine,
            [task for task, _ in checks],
            [text for _, text in checks],
            limits=Limits(wall_time=1.0, memory_mb=256),
        )
    labels = [v["label"] for v in verdicts]
    assert labels[:3] == ["success", "mismatch", "exception"]
    assert verdicts[2]["exception_type"] == "TypeError"
    assert labels[3] != "success" and labels[4] != "success"  # sys.exit, os._exit
    assert labels[5] == "timeout"
    assert verdicts[5]["message"].startswith("Code execution time exceeded the limit of 1 seconds")
    assert labels[6] == "no answer"
    assert labels[7] == "success"
    assert labels[8] == "exception" and verdicts[8]["exception_type"] == "NameError"
    assert labels[9:] == ["success", "mismatch"]
    assert verdicts[1]["message"].startswith("[Mismatch] Your input is not feasible!")
