"""Nothing leaves a caller waiting: bad limits fail fast, a broken worker thread fails its jobs.

Issue 9 item 3: ``run --timeout inf`` made the engine's worker thread die on a non-JSON
float and the caller waited forever.  Limits are now validated when built, a request
JSON cannot carry fails its own jobs, and a worker thread that dies for any reason
fails every job it had taken and is replaced.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import pytest

from execlens.engine import MAX_OUTPUT_BYTES, Engine, Job, Limits, Status

SQUARE = "def f(x):\n    return x * x\n"


@pytest.mark.parametrize(
    "field, value",
    [
        ("wall_time", math.inf),
        ("wall_time", math.nan),
        ("wall_time", 0),
        ("wall_time", -1.0),
        ("wall_time", 10**9),
        ("cpu_time", math.inf),
        ("memory_mb", -5),
        ("memory_mb", 15),
        ("memory_mb", 2.5),
        ("output_bytes", -1),
        ("output_bytes", MAX_OUTPUT_BYTES + 1),
        ("file_size_mb", -1),
        ("open_files", 0),
        ("max_processes", 0),
        ("wall_time", True),
    ],
)
def test_limits_reject_values_the_engine_cannot_honour(field: str, value: object) -> None:
    with pytest.raises(ValueError, match=field):
        Limits(**{field: value})


def test_limits_accept_their_bounds() -> None:
    edge = Limits(
        wall_time=86400,
        memory_mb=16,
        output_bytes=MAX_OUTPUT_BYTES,
        file_size_mb=0,
        open_files=16,
        max_processes=1,
    )
    assert edge.output_bytes == MAX_OUTPUT_BYTES


@pytest.mark.parametrize("workers", [0, -1, -3, 1.5, True])
def test_engine_rejects_a_worker_count_below_one(workers: object) -> None:
    with pytest.raises(ValueError, match="workers must be an integer from 1"):
        Engine(workers=workers)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def lone() -> Iterator[Engine]:
    with Engine(workers=1) as engine:
        yield engine


def test_a_request_json_cannot_carry_fails_that_job_only(lone: Engine) -> None:
    unsendable = Job(SQUARE, call="f(2)", runner_options={"not": {"json"}})
    failed = lone.submit(unsendable).result(timeout=30)
    assert failed.status is Status.SANDBOX_ERROR
    assert "could not be sent" in failed.message and "set" in failed.message
    assert lone.run(Job(SQUARE, call="f(3)")).decoded() == 9


def test_a_dying_worker_thread_fails_its_jobs_and_is_replaced(lone: Engine) -> None:
    pool = lone._pool(lone.hash_seed)  # the engine's own pool: we break its thread on purpose
    server = pool.servers[0]
    assert server is not None

    def broken_receive(timeout: float) -> list[dict[str, object]]:
        raise KeyboardInterrupt("injected failure in the worker thread")

    server.receive = broken_receive  # type: ignore[method-assign]
    futures = [lone.submit(Job(SQUARE, call=f"f({i})")) for i in range(3)]
    outcomes = [future.result(timeout=60) for future in futures]
    failed = [o for o in outcomes if o.status is Status.SANDBOX_ERROR]
    assert failed, outcomes
    assert all(
        "worker thread failed" in o.message and "KeyboardInterrupt" in o.message for o in failed
    )
    # Jobs the dead thread had not taken yet are run by its replacement.
    assert all(o.status in (Status.SANDBOX_ERROR, Status.OK) for o in outcomes)
    assert pool.thread_failures >= 1
    again = lone.run(Job(SQUARE, call="f(12)"))
    assert again.status is Status.OK and again.decoded() == 144
