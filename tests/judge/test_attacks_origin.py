"""Official scoring: one generation cannot change another's verdict (issue 23).

The generations of one sample were checked in one forked child; a generation is code,
so one of them could leave the child changed -- here it patches the code that reports
results -- and the wrong generations after it passed.  Each generation is an origin of
its own now: its check runs in a child of its own.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from execlens.bench.cruxeval import CruxEvalOfficialScorer
from execlens.engine import Engine
from execlens.judge import score_samples, scoring_engine
from execlens.tasks import prediction_task

pytestmark = pytest.mark.attack

TASK = prediction_task(id="plus_one", code="def f(x):\n    return x + 1", input="1", output="2")
# A right answer (2) that, on its way, makes every later result in its process "ok":
# it wraps whatever function the child reports results with.
PATCH = (
    "(lambda child: ([setattr(child, name, (lambda report: lambda record: report("
    "dict(record, status='ok', exception=None, message='')))(getattr(child, name))) "
    "for name in ('_emit', 'emit') if hasattr(child, name)], 2)[1])"
    "(__import__('execlens.engine._child', fromlist=['_']))"
)


@pytest.fixture(scope="module")
def single() -> Iterator[Engine]:
    """One judging server: every check of the sample meets it (no work stealing)."""
    with scoring_engine(workers=1) as engine:
        yield engine


def test_attack_a_generation_passing_the_others_of_its_sample(single: Engine) -> None:
    scorer = CruxEvalOfficialScorer("output")
    gens = [PATCH, "3", "4", "5"]
    [(_, scores)] = list(score_samples([scorer], [(TASK, gens)], single))
    verdicts = [v.passed for v in scores["official"].verdicts]
    assert verdicts == [True, False, False, False], scores["official"].verdicts
    # Exactly what each generation earns alone.
    alone = [
        next(iter(score_samples([scorer], [(TASK, [g])], single)))[1]["official"].verdicts[0]
        for g in gens
    ]
    assert verdicts == [v.passed for v in alone]
