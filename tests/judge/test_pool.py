"""JudgePool: real worker processes, real engines, real CRUXEval predictions.

The pool's promise is that a verdict does not depend on which process judged it, and that
no failure of a worker (killed from outside, a function that raises) hangs the caller or
leaves processes behind.  Functions the workers run must be importable there, so the
tests' own probes live in a small module written to a temporary folder on ``sys.path``
(the workers get the caller's ``sys.path``).
"""

from __future__ import annotations

import json
import os
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from execlens.judge import JudgePool, JudgePoolError
from execlens.rewards import score_batch, tasks_from_prediction
from execlens.rewards._pooled import judge_shard, score_pooled
from execlens.tasks import prediction_task_from_record

#: Each worker's engine: small (the machine running the tests may have 2 cores).
WORKER_ENV = {"EXECLENS_REWARD_WORKERS": "2", "EXECLENS_JUDGE_WORKERS": "0"}

PROBE = textwrap.dedent(
    """
    import os, signal, time
    from pathlib import Path
    from execlens.rewards._engine import shared_executor
    from execlens.rewards._pooled import judge_shard

    def announce_then_judge(get_engine, shard):
        where, inner = shard
        shared_executor()  # the engine is up (its servers are this worker's children)
        Path(where, str(os.getpid())).write_text("")
        time.sleep(1.5)  # the test kills the first announcer while it waits here
        return judge_shard(get_engine, inner)

    def die(get_engine, shard):
        os.kill(os.getpid(), signal.SIGKILL)

    def start_engine(get_engine, _):
        shared_executor()
        return os.getpid()
    """
)


@pytest.fixture(scope="module")
def batch(data_dir: Path) -> tuple[list[str], list[str]]:
    """40 CRUXEval problems, both kinds, 3 Code Llama generations each (240 completions)."""
    root = data_dir / "cruxeval"
    records = [
        json.loads(line)
        for line in (root / "cruxeval.jsonl").read_text().splitlines()
        if line.strip()
    ][:40]
    truths: list[str] = []
    responses: list[str] = []
    for kind in ("input", "output"):
        generations = json.loads(
            (root / f"codellama-7b_temp0.2_{kind}_generations.json").read_text()
        )
        for record in records:
            problem = prediction_task_from_record(record, kind=kind, source="cruxeval")
            truth = tasks_from_prediction(problem, kinds=[kind])[0].to_json()
            for text in generations[problem.id][:3]:
                truths.append(truth)
                responses.append(text)
    return truths, responses


@pytest.fixture(scope="module")
def reference(batch: tuple[list[str], list[str]]) -> list[Any]:
    """The in-process verdicts (judge workers off: ``EXECLENS_JUDGE_WORKERS=0``)."""
    saved = os.environ.get("EXECLENS_JUDGE_WORKERS")
    os.environ["EXECLENS_JUDGE_WORKERS"] = "0"
    try:
        verdicts = score_batch(*batch)
    finally:
        if saved is None:
            del os.environ["EXECLENS_JUDGE_WORKERS"]
        else:
            os.environ["EXECLENS_JUDGE_WORKERS"] = saved
    kinds = [json.loads(t)["kind"] for t in batch[0]]
    for kind in ("input", "output"):
        passed = [v.passed for v, k in zip(verdicts, kinds) if k == kind]
        assert any(passed) and not all(passed), f"{kind}: not a mix of right and wrong"
    return verdicts


@pytest.fixture()
def probe(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The tests' worker functions, importable by workers started after this fixture."""
    (tmp_path / "pool_probe.py").write_text(PROBE)
    monkeypatch.syspath_prepend(str(tmp_path))
    import pool_probe

    return pool_probe


def _children() -> dict[int, list[int]]:
    """Every live (not zombie) process's children, from /proc."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        if fields[0] != "Z":
            children.setdefault(int(fields[1]), []).append(int(entry.name))
    return children


def _tree(pid: int) -> set[int]:
    """``pid`` and its live descendants."""
    children, found, todo = _children(), set(), [pid]
    while todo:
        current = todo.pop()
        found.add(current)
        todo.extend(children.get(current, []))
    return found


def _alive(pids: set[int]) -> set[int]:
    alive = set()
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            continue
        if state[state.rindex(")") + 2] != "Z":
            alive.add(pid)
    return alive


def _gone_within(pids: set[int], seconds: float) -> set[int]:
    deadline = time.monotonic() + seconds
    while _alive(pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    return _alive(pids)


def _labels(verdicts: list[Any]) -> list[tuple[Any, ...]]:
    return [(v.passed, v.status, v.reason, v.detail) for v in verdicts]


@pytest.fixture()
def pool(probe: Any) -> Iterator[JudgePool]:
    """Two workers, started after the probe module is on ``sys.path``."""
    with JudgePool(2, env=WORKER_ENV) as judges:
        yield judges


@pytest.mark.slow
@pytest.mark.timeout(300)
@pytest.mark.parametrize("workers", [1, 2])
def test_pooled_verdicts_equal_in_process(
    workers: int, batch: tuple[list[str], list[str]], reference: list[Any]
) -> None:
    with JudgePool(workers, env=WORKER_ENV) as judges:
        verdicts = score_pooled(judges, *batch, "tagged", None, "auto")
        assert judges.per_item > 0  # the workers did the judging, and said how long it took
    assert verdicts == reference
    assert _labels(verdicts) == _labels(reference)


def _shards(batch: tuple[list[str], list[str]], parts: int) -> list[Any]:
    truths, responses = batch
    step = -(-len(truths) // parts)
    return [
        (truths[i : i + step], responses[i : i + step], None, "tagged", "auto")
        for i in range(0, len(truths), step)
    ]


def _gather(results: list[tuple[list[Any], list[int]]]) -> list[Any]:
    return [table[which] for table, order in results for which in order]


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_worker_killed_mid_batch_is_replaced_and_verdicts_unchanged(
    probe: Any,
    pool: JudgePool,
    tmp_path: Path,
    batch: tuple[list[str], list[str]],
    reference: list[Any],
) -> None:
    announced = tmp_path / "announced"
    announced.mkdir()
    killed: dict[str, Any] = {}

    def kill_first_announcer() -> None:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            names = sorted(announced.iterdir(), key=lambda p: p.stat().st_mtime)
            if names:
                pid = int(names[0].name)
                killed["tree"] = _tree(pid)  # the worker and its engine's processes
                os.kill(pid, 9)
                killed["pid"] = pid
                return
            time.sleep(0.02)

    killer = threading.Thread(target=kill_first_announcer)
    killer.start()
    shards = [(str(announced), shard) for shard in _shards(batch, 4)]
    results = pool.map(probe.announce_then_judge, shards, items=len(batch[0]))
    killer.join()

    assert killed.get("pid") in {int(p.name) for p in announced.iterdir()}
    assert killed["pid"] not in pool.pids and pool.processes == 2
    assert len(killed["tree"]) > 1  # its engine was running when it was killed
    assert _gone_within(killed["tree"], 15) == set()  # nothing of it is left behind
    # The shards ran in the two first workers and the one started for the killed one's
    # shard, and the verdicts are the in-process ones.
    assert {int(p.name) for p in announced.iterdir()} == {killed["pid"], *pool.pids}
    assert _gather(results) == reference


@pytest.mark.timeout(120)
def test_shard_that_kills_every_worker_fails_named(
    probe: Any, pool: JudgePool, batch: tuple[list[str], list[str]], reference: list[Any]
) -> None:
    before = set(pool.pids)
    with pytest.raises(JudgePoolError, match=r"judge worker \d+ died .* on shard 0, again"):
        pool.map(probe.die, ["anything"])
    # Its worker, and the fresh one the shard was retried on, were replaced; the other not.
    assert pool.processes == 2 and len(before - set(pool.pids)) == 1
    # The pool still judges, and right (no reply of the failed call is left over).
    small = (batch[0][:6] + batch[0][-6:], batch[1][:6] + batch[1][-6:])
    assert _gather(pool.map(judge_shard, _shards(small, 2))) == reference[:6] + reference[-6:]


@pytest.mark.timeout(120)
def test_function_raising_is_named_to_the_caller(
    pool: JudgePool, batch: tuple[list[str], list[str]]
) -> None:
    good = _shards((batch[0][:12], batch[1][:12]), 1)[0]
    # The malformed shard makes judge_shard itself raise (it cannot unpack None), while
    # the other worker is busy on a real shard whose reply is then still owed.
    with pytest.raises(JudgePoolError, match=r"^TypeError: cannot unpack"):
        pool.map(judge_shard, [None, good])
    workers = set(pool.pids)
    again = pool.map(judge_shard, [good, good])
    assert set(pool.pids) == workers  # raising is not dying: no worker was replaced
    assert _gather([again[0]]) == _gather([again[1]])
    assert len(_gather([again[0]])) == 12


@pytest.mark.timeout(120)
def test_function_the_worker_cannot_import_is_named(pool: JudgePool, tmp_path: Path) -> None:
    # Not the probe's folder (on the workers' path): only the caller can import it.
    folder = tmp_path / "caller"
    folder.mkdir()
    (folder / "caller_only.py").write_text("def judge(get_engine, shard):\n    return shard\n")
    import sys

    sys.path.insert(0, str(folder))
    try:
        import caller_only
    finally:
        sys.path.remove(str(folder))
    workers = set(pool.pids)
    with pytest.raises(JudgePoolError, match="ModuleNotFoundError: No module named 'caller_only'"):
        pool.map(caller_only.judge, [1, 2])
    assert set(pool.pids) == workers  # named, not a crash of the worker


@pytest.mark.timeout(120)
def test_closed_pool_leaves_no_processes(probe: Any) -> None:
    judges = JudgePool(2, env=WORKER_ENV)
    assert sorted(judges.broadcast(probe.start_engine, None)) == sorted(judges.pids)
    trees = set().union(*(_tree(pid) for pid in judges.pids))
    assert len(trees) > 2  # workers and their engines' servers
    judges.close()
    assert judges.processes == 0
    assert _gone_within(trees, 15) == set()
