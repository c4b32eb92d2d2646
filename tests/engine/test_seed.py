"""``Job.seed``: a child's randomness is a function of the job (issue 17)."""

from __future__ import annotations

import pytest

from execlens.engine import Engine, Job

PROGRAM = """\
import random

def draw():
    import numpy as np
    return [random.random(), random.randint(0, 10 ** 9), float(np.random.rand())]
"""


@pytest.fixture(scope="module")
def engine():
    with Engine(workers=1, preload=("random", "numpy")) as engine:
        yield engine


def test_same_seed_same_draws_other_seed_other_draws(engine: Engine) -> None:
    jobs = [Job(program=PROGRAM, entry_point="draw", seed=seed) for seed in (7, 8, 7)]
    # Batched into one request (one child runs several inputs) and one at a time.
    batched = [o.decoded() for o in engine.map(jobs, batch_size=3)]
    single = [engine.run(job).decoded() for job in jobs]
    assert batched == single
    assert batched[0] == batched[2]
    assert batched[0] != batched[1]
    assert batched[0][2] != batched[1][2]  # NumPy's global generator too


def test_without_a_seed_each_child_draws_from_the_os(engine: Engine) -> None:
    job = Job(program=PROGRAM, entry_point="draw")
    draws = {tuple(engine.run(job).decoded()[:2]) for _ in range(3)}
    assert len(draws) == 3


@pytest.mark.parametrize("seed", [-1, 1.5, True, "1"])
def test_a_bad_seed_is_refused(seed: object) -> None:
    with pytest.raises(ValueError, match="Job.seed"):
        Job(program=PROGRAM, entry_point="draw", seed=seed)  # type: ignore[arg-type]


NUMPY_LATER = """\
def draw():
    import numpy as np  # imported by the program, after the child was seeded
    return [float(np.random.rand()), int(np.random.randint(0, 10 ** 9))]
"""


def test_numpy_imported_by_the_program_is_seeded_too() -> None:
    # The default preload leaves NumPy out: the program's own import loads it, after the
    # child seeded ``random``.  Two engines stand for two runs.
    runs = []
    for _ in range(2):
        with Engine(workers=1) as engine:
            assert "numpy" not in engine.preload
            jobs = [
                Job(program=NUMPY_LATER, entry_point="draw", seed=seed) for seed in (11, 12, 11)
            ]
            runs.append(
                [engine.run(job).decoded() for job in jobs]
                + [o.decoded() for o in engine.map(jobs, batch_size=3)]
            )
    assert runs[0] == runs[1]  # the same seeds draw the same numbers in another run
    first = runs[0]
    assert first[0] == first[2] == first[3] == first[5]  # one child or several
    assert first[0] != first[1]  # another call index, another draw
    # Without a seed NumPy keeps its own OS seeding.
    with Engine(workers=1) as engine:
        unseeded = {
            tuple(engine.run(Job(program=NUMPY_LATER, entry_point="draw")).decoded())
            for _ in range(3)
        }
    assert len(unseeded) == 3
