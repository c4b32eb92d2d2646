"""Output up to the largest limit comes back whole (issue 9 item 9).

A limit past what one result frame can carry is refused when ``Limits`` is built (see
``test_no_hangs.py``); at the largest accepted limit, a program flooding its output ends
``output_limit`` with exactly that much output returned, even when every character is one
JSON must escape into six bytes.
"""

from __future__ import annotations

from execlens.engine import MAX_OUTPUT_BYTES, Engine, Job, Limits, Status

BIG = Limits(wall_time=20.0, memory_mb=1024, output_bytes=MAX_OUTPUT_BYTES)


def test_printing_100_mb_returns_the_output_up_to_the_limit(engine: Engine) -> None:
    program = "chunk = 'x' * 1_000_000\nfor _ in range(100):\n    print(chunk, end='')\n"
    outcome = engine.run(Job(program, limits=BIG))
    assert outcome.status is Status.OUTPUT_LIMIT, outcome.message
    assert outcome.stdout_truncated
    assert len(outcome.stdout) == MAX_OUTPUT_BYTES
    assert set(outcome.stdout) == {"x"}


def test_output_that_json_escapes_sixfold_still_fits_one_frame(engine: Engine) -> None:
    program = "import sys\nsys.stderr.write('\\x01' * 20_000_000)\n"
    outcome = engine.run(Job(program, limits=BIG))
    assert outcome.status is Status.OUTPUT_LIMIT, outcome.message
    assert len(outcome.stderr) == MAX_OUTPUT_BYTES and outcome.stderr_truncated
