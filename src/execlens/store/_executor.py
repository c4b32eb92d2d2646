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

*Keyed* steps serve runs whose slice may change between invocations (``execlens eval
--limit`` grows, a model request failed last time): every fed item has a key, and a
finished shard counts as done for this run only if its marker lists every key of its
chunk.  A shard that lacks some is redone on the missing items alone and rewritten whole
-- this run's records in feed order, then the records it held that this run does not
ask for, in their old order -- so nothing finished is asked again and nothing is lost.

This module is the one resume loop of execlens: ``eval``, ``score``, ``trace``,
``tasks build`` and ``synth run`` all run their shards through :class:`ShardExecutor`.
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

__all__ = ["Backend", "InlineBackend", "LocalBackend", "ShardExecutor", "Step", "StepResult"]

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

    A ``key`` makes the step *keyed* (see the module's docstring): ``key(item)`` names a
    fed item, and each record the step's work returns carries its item's name in
    ``"id"``.  Its ``feed`` must then be a sequence (the executor looks at every chunk
    before running, to say what is pending), and no step may read it as ``upstream``
    (its shards may be rewritten).  Fed items of a step that is not ``passthrough`` may
    be any objects: only the records a step returns are stored.
    """

    name: str
    fed: int = 0
    feed: Iterable[list[Any]] | None = None
    upstream: str | None = None
    select: Callable[[Mapping[str, Any]], bool] | None = None
    concurrency: int = 1
    format: ShardFormat = "jsonl"
    passthrough: bool = False
    key: Callable[[Any], str] | None = None


class Backend(Protocol):
    """Runs one shard of a step somewhere; the result comes back as a future."""

    #: Parallel places a step's shards can run in (a step runs ``concurrency * slots``).
    slots: int

    def submit(self, step: str, records: list[Any], index: int, total: int) -> Future[StepResult]:
        """Start shard ``index`` of ``total`` of ``step`` on ``records``."""
        ...


class InlineBackend:
    """Each shard run at once on the calling thread, one after another.

    For the verbs whose parallelism lives inside one shard's work (the engine's pool of
    fork servers scores or traces a shard's programs at once; the model client sends a
    shard's requests concurrently): the work runs on the main thread, where engines and
    model servers are started and progress is drawn, and the executor still owns resume.
    """

    slots = 1

    def __init__(self, work: Callable[[str, list[Any], int, int], StepResult]) -> None:
        self._work = work

    def submit(self, step: str, records: list[Any], index: int, total: int) -> Future[StepResult]:
        """Run the shard now; its result (or its exception) comes back as a done future."""
        future: Future[StepResult] = Future()
        try:
            future.set_result(self._work(step, records, index, total))
        except BaseException as error:  # noqa: BLE001 - handed to the executor, re-raised there
            future.set_exception(error)
        return future


class LocalBackend:
    """Shards on threads of this process.

    ``work(step, records, index, total)`` runs one shard.  Threads suit the synthesis
    stages: their work waits on the engine's sandbox servers and on the model server,
    so stages overlap without a process per stage.
    """

    slots = 1

    def __init__(
        self, work: Callable[[str, list[Any], int, int], StepResult], threads: int
    ) -> None:
        self._work = work
        self._pool = ThreadPoolExecutor(
            max_workers=max(1, threads), thread_name_prefix="execlens-shard"
        )

    def submit(self, step: str, records: list[Any], index: int, total: int) -> Future[StepResult]:
        """Queue the shard on the thread pool."""
        return self._pool.submit(self._work, step, records, index, total)

    def close(self) -> None:
        """Wait for running shards; drop queued ones."""
        self._pool.shutdown(wait=True, cancel_futures=True)


class _Feed:
    """The fed chunks of a step, consumed strictly in order (a finished one skipped)."""

    def __init__(self, chunks: Iterable[list[Any]] | None) -> None:
        self._chunks: Iterator[list[Any]] = iter(chunks or ())

    def next(self, name: str, index: int) -> list[Any]:
        try:
            return list(next(self._chunks))
        except StopIteration:
            raise StoreError(
                f"step {name!r}: its feed ended before chunk {index}; "
                "the input changed while the run was planned"
            ) from None


class ShardExecutor:
    """Run ``steps`` (each after its upstream in the sequence) over ``run``'s shards."""

    def __init__(self, run: RunDir, steps: Sequence[Step], backend: Backend) -> None:
        self.steps = {step.name: step for step in steps}
        if len(self.steps) != len(steps):
            raise StoreError("two steps share a name")
        self.totals: dict[str, int] = {}
        for step in steps:
            if step.upstream is not None and step.upstream not in self.totals:
                raise StoreError(
                    f"step {step.name!r} reads {step.upstream!r}, which is not an earlier step"
                )
            if step.upstream is not None and self.steps[step.upstream].key is not None:
                raise StoreError(
                    f"step {step.name!r} reads keyed step {step.upstream!r}, "
                    "whose shards may be rewritten; read its final records"
                )
            self.totals[step.name] = step.fed + (self.totals[step.upstream] if step.upstream else 0)
        self.shards = {step.name: run.shards(step.name, format=step.format) for step in steps}
        self.backend = backend
        self._downstream: dict[str, list[str]] = {name: [] for name in self.steps}
        for step in steps:
            if step.upstream is not None:
                self._downstream[step.upstream].append(step.name)
        # Keyed steps: each fed chunk, and the part of it no finished shard holds yet.
        self._chunks: dict[str, list[list[Any]]] = {}
        self._pending: dict[str, list[list[Any]]] = {}
        for step in steps:
            if step.key is not None:
                self._plan_keyed(step)

    def pending(self, name: str) -> list[Any]:
        """The fed items of keyed step ``name`` that no finished shard holds, in feed order
        (what this run still has to do; the rest resumes)."""
        if name not in self._pending:
            raise StoreError(f"step {name!r} is not keyed; ask done() for its shards")
        return [item for chunk in self._pending[name] for item in chunk]

    def run(self, on_shard: Callable[[str, int, int, dict[str, Any]], None] | None = None) -> None:
        """Run every unfinished shard; ``on_shard(step, index, records, stats)`` is called
        (on this thread) as each one is written.  The first failure stops new shards;
        those already running finish and are kept, then the failure is raised."""
        done = {name: set(shards.completed()) for name, shards in self.shards.items()}
        for name, chunks in self._pending.items():  # a keyed shard lacking items is not done
            done[name] -= {index for index, chunk in enumerate(chunks) if chunk}
        feeds = {
            name: _Feed(step.feed if step.key is None else None)
            for name, step in self.steps.items()
        }
        cursor = dict.fromkeys(self.steps, 0)  # next fed chunk of each step
        ready: dict[str, list[int]] = {name: [] for name in self.steps}
        for name, step in self.steps.items():
            if step.upstream is not None:
                for j in done[step.upstream]:
                    self._push(ready, done, name, step.fed + j)
        running: dict[Future[StepResult], tuple[str, int]] = {}
        per_step = dict.fromkeys(self.steps, 0)
        failure: BaseException | None = None
        stopped = False  # an inline shard failed: submit nothing more
        while True:
            if failure is None and not stopped:
                for name, step in self.steps.items():
                    limit = max(1, step.concurrency) * max(1, self.backend.slots)
                    while not stopped and per_step[name] < limit:
                        index = self._next(name, step, done, cursor, ready, feeds)
                        if index is None:
                            break
                        records = self._input(name, step, index, feeds)
                        if step.passthrough:
                            future: Future[StepResult] = Future()
                            future.set_result((records, {"records": len(records)}))
                        else:
                            future = self.backend.submit(name, records, index, self.totals[name])
                        running[future] = (name, index)
                        per_step[name] += 1
                        stopped = future.done() and future.exception() is not None
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
                if name in self._pending:
                    records, stats = self._merge_keyed(name, index, records, stats)
                self.shards[name].write(index, records, stats=stats)
                done[name].add(index)
                for child in self._downstream[name]:
                    self._push(ready, done, child, self.steps[child].fed + index)
                if on_shard is not None:
                    on_shard(name, index, len(records), stats)
        if failure is not None:
            raise failure
        unfinished = {
            n: self.totals[n] - len(done[n]) for n in self.steps if len(done[n]) < self.totals[n]
        }
        if unfinished:  # an upstream shard never finished: cannot happen without a failure
            raise StoreError(f"shards left unfinished: {unfinished}")

    def done(self, name: str) -> list[int]:
        """The finished shards of step ``name``."""
        return self.shards[name].completed()

    def records(self, name: str) -> Iterator[Record]:
        """The records of step ``name`` as this run sees them, one shard in memory at a time.

        A keyed step's are those of this run's fed items, in feed order (a shard may also
        hold records an earlier, wider run asked for: they are left out); a missing one is
        a ``StoreError`` (its work did not return it: run again).  Any other step's are
        every record of its finished shards in index order.
        """
        step = self.steps[name]
        if step.key is None:
            yield from self.shards[name].iter_records()
            return
        for index, chunk in enumerate(self._chunks[name]):
            shards = self.shards[name]
            held = {str(r.get("id")): r for r in shards.read(index)} if shards.done(index) else {}
            for item in chunk:
                record = held.get(step.key(item))
                if record is None:
                    raise StoreError(
                        f"{shards.directory}: shard {index} holds no record of "
                        f"{step.key(item)!r}; run again to finish it"
                    )
                yield record

    # -- internals ----------------------------------------------------------------------

    def _plan_keyed(self, step: Step) -> None:
        assert step.key is not None
        if not isinstance(step.feed, Sequence):
            raise StoreError(
                f"keyed step {step.name!r} needs its feed as a sequence of chunks, not a stream"
            )
        chunks = [list(chunk) for chunk in step.feed]
        if len(chunks) != step.fed or step.upstream is not None:
            raise StoreError(
                f"keyed step {step.name!r}: its feed has {len(chunks)} chunks, "
                f"fed says {step.fed}, and it may have no upstream"
            )
        shards = self.shards[step.name]
        pending = []
        for index, chunk in enumerate(chunks):
            stats = shards.stats(index) or {}
            held = set(stats.get("ids", ()))
            pending.append([item for item in chunk if step.key(item) not in held])
        self._chunks[step.name] = chunks
        self._pending[step.name] = pending

    def _merge_keyed(
        self, name: str, index: int, new: list[Record], stats: dict[str, Any]
    ) -> StepResult:
        """The whole shard: this run's records in feed order (a new record replacing an old
        one of its key), then the old records this run does not ask for, in their order."""
        step = self.steps[name]
        assert step.key is not None
        shards = self.shards[name]
        old = shards.read(index) if shards.done(index) else []
        by_id = {str(r.get("id")): r for r in old}
        by_id.update((str(r.get("id")), r) for r in new)
        asked = [step.key(item) for item in self._chunks[name][index]]
        records = [by_id.pop(key) for key in asked if key in by_id]
        records += [r for r in old if str(r.get("id")) in by_id]
        ids = [str(r.get("id")) for r in records]
        held = set(ids)  # what pending() says from now on: items the work did not return
        self._pending[name][index] = [
            item for item in self._chunks[name][index] if step.key(item) not in held
        ]
        return records, {**stats, "ids": ids}

    @staticmethod
    def _push(
        ready: dict[str, list[int]], done: dict[str, set[int]], name: str, index: int
    ) -> None:
        if index not in done[name]:
            heapq.heappush(ready[name], index)

    def _next(
        self,
        name: str,
        step: Step,
        done: dict[str, set[int]],
        cursor: dict[str, int],
        ready: dict[str, list[int]],
        feeds: dict[str, _Feed],
    ) -> int | None:
        # Fed chunks first, in order (the feed is a stream); finished ones are read past.
        while cursor[name] < step.fed:
            index = cursor[name]
            cursor[name] += 1
            if index in done[name]:
                if step.key is None:
                    feeds[name].next(name, index)
                continue
            return index
        return heapq.heappop(ready[name]) if ready[name] else None

    def _input(self, name: str, step: Step, index: int, feeds: dict[str, _Feed]) -> list[Any]:
        if name in self._pending:
            return list(self._pending[name][index])
        if index < step.fed:
            return feeds[name].next(name, index)
        assert step.upstream is not None
        records = self.shards[step.upstream].read(index - step.fed)
        return records if step.select is None else [r for r in records if step.select(r)]
