"""Run directories: locks, manifests, resumable shards and logs, atomic files.

The one implementation every long job writes through (stdlib and pyarrow only):

```python
from execlens.store import InlineBackend, RunDir, ShardExecutor, Step

with RunDir.open(out, identity={"task": "trace", "data": digest}) as run:
    steps = [Step("samples", fed=len(chunks), feed=chunks)]
    ShardExecutor(run, steps, InlineBackend(lambda step, chunk, i, n: (work(chunk), {}))
                  ).run()
    run.shards("samples").merge(run.file("samples.jsonl"))
    run.write_json("results.json", summary)
```

A run killed at any point (SIGKILL included) and rerun redoes only unfinished shards
and produces byte-identical final files.  Every JSON Lines file is read by one reader
(:func:`jsonl_lines`, :func:`iter_jsonl`, :func:`read_jsonl`), whose bad lines are
:class:`JsonlError` naming file, line and problem.  ``iter_records(path, offset=, limit=)`` reads
input data (JSONL, JSON arrays, gzipped, Parquet) one record at a time.

Every long verb runs its shards through :class:`ShardExecutor`, the one resume loop:
steps over shards, each shard flowing to the next step as soon as it is written
(pipelined, resumable, memory independent of the dataset), run on the calling thread
(:class:`InlineBackend`: eval, score, trace, tasks build), on threads
(:class:`LocalBackend`) or on any backend returning futures (the synthesis Ray backend).
A *keyed* step lets a run's slice grow or shrink between invocations (eval's
``--limit``): a shard lacking some of this run's items is redone on those alone and
rewritten with its old records and the new ones.  Final files are written by streaming
concatenation (:func:`write_jsonl_stream`, :func:`write_parquet_from_jsonl`,
``ShardSet.merge``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from execlens._lazy import lazy_exports

if TYPE_CHECKING:
    from execlens.store._atomic import (
        atomic_writer,
        read_json,
        write_bytes_atomic,
        write_json_atomic,
        write_parquet_atomic,
        write_text_atomic,
    )
    from execlens.store._errors import (
        CorruptRecordError,
        ManifestMismatchError,
        OutputWriteError,
        RunLockedError,
        StoreError,
        output_error,
    )
    from execlens.store._executor import (
        Backend,
        InlineBackend,
        LocalBackend,
        ShardExecutor,
        Step,
        StepResult,
    )
    from execlens.store._jsonl import (
        JsonlError,
        JsonlLine,
        JsonlProblem,
        iter_jsonl,
        json_kind,
        jsonl_lines,
        read_jsonl,
    )
    from execlens.store._log import JsonlLog
    from execlens.store._manifest import Manifest, current_versions
    from execlens.store._read import (
        RECORD_SUFFIXES,
        SourceRow,
        UnreadableSourceError,
        iter_records,
    )
    from execlens.store._run import RunDir
    from execlens.store._shards import ShardFormat, ShardSet
    from execlens.store._stream import (
        write_jsonl_stream,
        write_parquet_from_jsonl,
    )

_EXPORTS = {
    "Backend": "_executor",
    "InlineBackend": "_executor",
    "LocalBackend": "_executor",
    "ShardExecutor": "_executor",
    "Step": "_executor",
    "StepResult": "_executor",
    "atomic_writer": "_atomic",
    "iter_jsonl": "_jsonl",
    "JsonlError": "_jsonl",
    "JsonlLine": "_jsonl",
    "JsonlProblem": "_jsonl",
    "json_kind": "_jsonl",
    "jsonl_lines": "_jsonl",
    "read_jsonl": "_jsonl",
    "write_jsonl_stream": "_stream",
    "write_parquet_from_jsonl": "_stream",
    "RECORD_SUFFIXES": "_read",
    "CorruptRecordError": "_errors",
    "JsonlLog": "_log",
    "Manifest": "_manifest",
    "OutputWriteError": "_errors",
    "ManifestMismatchError": "_errors",
    "RunDir": "_run",
    "RunLockedError": "_errors",
    "ShardFormat": "_shards",
    "ShardSet": "_shards",
    "SourceRow": "_read",
    "StoreError": "_errors",
    "UnreadableSourceError": "_read",
    "current_versions": "_manifest",
    "iter_records": "_read",
    "output_error": "_errors",
    "read_json": "_atomic",
    "write_bytes_atomic": "_atomic",
    "write_json_atomic": "_atomic",
    "write_parquet_atomic": "_atomic",
    "write_text_atomic": "_atomic",
}

__all__, __getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
