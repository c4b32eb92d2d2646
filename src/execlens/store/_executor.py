"""The streaming shard executor: steps over shards, pipelined, resumable.

The datatrove model: a *step* is one function over a shard of records; the executor,
not the step, owns sharding, completion markers and resume.  Shards flow: shard ``j`` of
a step's upstream, once finished (its file and marker written), becomes that step's
shard ``fed + j`` at once, while the upstream goes on with shard ``j + 1``.  So a model
stage sends requests while collection still runs, and the engine verifies while the
model still answers.  Nothing is held but the shards in flight: a step's input is read
from its upstream's shard file when the shard starts, its output written when it ends,
so the driver's memory does not grow with the dataset.

Where a step runs is the *backend*'s business: :class:`LocalBackend` runs shards on
threads of this process; a Ray backend (``execlens.synth``'s) hands them to Ray actors
and returns Ray's own futures.  The executor only decides *which* shards are ready.

Resume: a shard with a valid completion marker is never redone, and a shard's input is
a pure function of finished shards, so a run killed anywhere (SIGKILL included) and run
again writes byte-identical shards.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from ._errors import StoreError
from ._shards import ShardFormat

if TYPE_CHECKING:
    from ._run import RunDir

__all__ = ["Backend", "LocalBackend", "ShardExecutor", "Step", "StepResult"]

Record = dict[str, Any]
#: What one shard of a step produced: its records and the stats its marker records.
StepResult = tuple[list[Record], dict[str, Any]]


@dataclass
class Step:
    """One step of a pipeline.

    Its shards are ``fed`` chunks handed in by ``feed`` (in order: shards ``0 .. fed-1``),
    then one shard per shard of ``upstream`` (shard ``j`` there is shard ``fed + j``
    here), holding the upstream records ``select`` keeps (all of them without one).
    ``concurrency`` caps its shards in flight per backend slot.  A ``passthrough`` step
    does no work: the executor writes its input as its shard (records kept as they are,
    e.g. the rejections of loading).
    """

    name: str
    fed: int = 0
    feed: Iterable[list[Record]] | None = None
    upstream: str | None = None
    select: Callable[[Mapping[str, Any]], bool] | None = None
    concurrency: int = 1
    format: ShardFormat = "jsonl"
    passthrough: bool = False


class Backend(Protocol):
    """Runs one shard of a step somewhere; the result comes back as a future."""

    #: Parallel places a step's shards can run in (a step runs ``concurrency * slots``).
    slots: int

    def submit(self, step: str, records: list[Record], index: int, total: int
               ) -> Future[StepResult]:
        """Start shard ``index`` of ``total`` of ``step`` on ``records``."""
        ...


class LocalBackend:
    """Shards on threads of this process.

    ``work(step, records, index, total)`` runs one shard.  Threads suit the synthesis
    stages: their work waits on the engine's sandbox servers and on the model server,
    so stages overlap without a process per stage.
    """

    slots = 1

    def __init__(self, work: Callable[[str, list[Record], int, int], StepResult],
                 threads: int) -> None:
        self._work = work
        self._pool = ThreadPoolExecutor(max_workers=max(1, threads),
                                        thread_name_prefix="execlens-shard")

    def submit(self, step: str, records: list[Record], index: int, total: int
               ) -> Future[StepResult]:
        """Queue the shard on the thread pool."""
        return self._pool.submit(self._work, step, records, index, total)

    def close(self) -> None:
        """Wait for running shards; drop queued ones."""
        self._pool.shutdown(wait=True, cancel_futures=True)


class _Feed:
    """The fed chunks of a step, consumed strictly in order (a finished one skipped)."""

    def __init__(self, chunks: Iterable[list[Record]] | None) -> None:
        self._chunks: Iterator[list[Record]] = iter(chunks or ())

    def next(self, name: str, index: int) -> list[Record]:
        try:
            return list(next(self._chunks))
        except StopIteration:
            raise StoreError(f"step {name!r}: its feed ended before chunk {index}; "
                             "the input changed while the run was planned") from None


class ShardExecutor:
    """Run ``steps`` (each after its upstream in the sequence) over ``run``'s shards."""

    def __init__(self, run: RunDir, steps: Sequence[Step], backend: Backend) -> None:
        self.steps = {step.name: step for step in steps}
        if len(self.steps) != len(steps):
            raise StoreError("two steps share a name")
        self.totals: dict[str, int] = {}
        for step in steps:
            if step.upstream is not None and step.upstream not in self.totals:
                raise StoreError(f"step {step.name!r} reads {step.upstream!r}, which is not "
                                 "an earlier step")
            self.totals[step.name] = step.fed + (self.totals[step.upstream]
                                                 if step.upstream else 0)
        self.shards = {step.name: run.shards(step.name, format=step.format) for step in steps}
        self.backend = backend
        self._downstream: dict[str, list[str]] = {name: [] for name in self.steps}
        for step in steps:
            if step.upstream is not None:
                self._downstream[step.upstream].append(step.name)

    def run(self, on_shard: Callable[[str, int, int, dict[str, Any]], None] | None = None
            ) -> None:
        """Run every unfinished shard; ``on_shard(step, index, records, stats)`` is called
        (on this thread) as each one is written.  The first failure stops new shards;
        those already running finish and are kept, then the failure is raised."""
        done = {name: set(shards.completed()) for name, shards in self.shards.items()}
        feeds = {name: _Feed(step.feed) for name, step in self.steps.items()}
        cursor = dict.fromkeys(self.steps, 0)  # next fed chunk of each step
        ready: dict[str, list[int]] = {name: [] for name in self.steps}
        for name, step in self.steps.items():
            if step.upstream is not None:
                for j in done[step.upstream]:
                    self._push(ready, done, name, step.fed + j)
        running: dict[Future[StepResult], tuple[str, int]] = {}
        per_step = dict.fromkeys(self.steps, 0)
        failure: BaseException | None = None
        while True:
            if failure is None:
                for name, step in self.steps.items():
                    limit = max(1, step.concurrency) * max(1, self.backend.slots)
                    while per_step[name] < limit:
                        index = self._next(name, step, done, cursor, ready, feeds)
                        if index is None:
                            break
                        records = self._input(name, step, index, feeds)
                        if step.passthrough:
                            future = Future()
                            future.set_result((records, {"records": len(records)}))
                        else:
                            future = self.backend.submit(name, records, index,
                                                         self.totals[name])
                        running[future] = (name, index)
                        per_step[name] += 1
            if not running:
                break
            finished, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in sorted(finished, key=lambda f: running[f]):
                name, index = running.pop(future)
                per_step[name] -= 1
                try:
                    records, stats = future.result()
                except BaseException as error:  # noqa: BLE001 - re-raised once drained
                    failure = failure or error
                    continue
                self.shards[name].write(index, records, stats=stats)
                done[name].add(index)
                for child in self._downstream[name]:
                    self._push(ready, done, child, self.steps[child].fed + index)
                if on_shard is not None:
                    on_shard(name, index, len(records), stats)
        if failure is not None:
            raise failure
        unfinished = {n: self.totals[n] - len(done[n]) for n in self.steps
                      if len(done[n]) < self.totals[n]}
        if unfinished:  # an upstream shard never finished: cannot happen without a failure
            raise StoreError(f"shards left unfinished: {unfinished}")

    def done(self, name: str) -> list[int]:
        """The finished shards of step ``name``."""
        return self.shards[name].completed()

    # -- internals ----------------------------------------------------------------------

    @staticmethod
    def _push(ready: dict[str, list[int]], done: dict[str, set[int]], name: str,
              index: int) -> None:
        if index not in done[name]:
            heapq.heappush(ready[name], index)

    @staticmethod
    def _next(name: str, step: Step, done: dict[str, set[int]], cursor: dict[str, int],
              ready: dict[str, list[int]], feeds: dict[str, _Feed]) -> int | None:
        # Fed chunks first, in order (the feed is a stream); finished ones are read past.
        while cursor[name] < step.fed:
            index = cursor[name]
            cursor[name] += 1
            if index in done[name]:
                feeds[name].next(name, index)
                continue
            return index
        return heapq.heappop(ready[name]) if ready[name] else None

    def _input(self, name: str, step: Step, index: int, feeds: dict[str, _Feed]
               ) -> list[Record]:
        if index < step.fed:
            return feeds[name].next(name, index)
        assert step.upstream is not None
        records = self.shards[step.upstream].read(index - step.fed)
        return records if step.select is None else [r for r in records if step.select(r)]
