"""Synthesis at scale: driver memory and stage overlap of ``execlens synth run``.

Runs collect → prompts → predict → verify → assemble on the first N functions of
reasoning-gym's CodeI/O data (``reasoning_gym/data/codeio.jsonl.gz``, read in place,
Apache-2.0) against an instant stand-in model server on 127.0.0.1 (the client, cache,
engine, executor and store are real; only the model is stood in), for each size in
``--sizes``, each in a fresh subprocess so its peak RSS (``ru_maxrss`` of the driver
process alone: the engine's sandbox servers are other processes) is its own.

Two drivers side by side, on the same functions and stages:

* ``streaming``: ``run_pipeline`` (the store's shard executor: shards flow to the next
  stage as they finish, every stage reads its input shard by shard, assemble streams);
* ``baseline``: the driver as it was before (stages one after another as barriers,
  every stage's output read back and kept in memory, each dataset built as one string)
  -- the same stage classes, run by that loop (reproduced here from git history).

Printed per driver and size: functions/s, peak RSS, and the overlap: when the stand-in
server got its first request, relative to when collect finished its last shard (a
streaming run asks the model while collect still runs).  ``--json`` prints one JSON
object on the last line.  Targets: streaming peak RSS at the largest size within 1.2x of
the smallest; requests before collect's end.

    .venv/bin/python perf/synth_scale.py                   # defaults fit in < 2 minutes
    .venv/bin/python perf/synth_scale.py --sizes 1000,3000 # the full figure (~10 min here)

``EXECLENS_PERF_SMALL=1``: one size, 6 functions (``perf/_small.py``).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from _small import small

COLUMNS = {
    "refcode": "code_sample",
    "problem_description": "task_description",
    "io_requirements": "input_output_spec",
    "input_generator": "input_generator",
}
STAGES = ["collect", "prompts", "predict", "verify", "assemble"]


def codeio_path() -> Path:
    """reasoning-gym's CodeI/O JSONL.gz, where the installed package keeps it."""
    import reasoning_gym

    return Path(reasoning_gym.__file__).parent / "data" / "codeio.jsonl.gz"


class StandIn:
    """An instant OpenAI-compatible chat server recording each request's arrival time."""

    def __init__(self) -> None:
        self.arrivals: list[float] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _send(self, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                self._send({"object": "list", "data": [{"id": "standin", "object": "model"}]})

            def do_POST(self) -> None:
                owner.arrivals.append(time.time())
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                prompt = body["messages"][-1]["content"]
                field = "output" if '{"output"' in prompt else "input"
                text = f'Thinking.\n```json\n{{"{field}": 1}}\n```'
                self._send(
                    {
                        "id": "x",
                        "object": "chat.completion",
                        "created": 0,
                        "model": body.get("model", "standin"),
                        "choices": [
                            {
                                "index": 0,
                                "finish_reason": "stop",
                                "message": {"role": "assistant", "content": text},
                            }
                        ],
                        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                    }
                )

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        """Stop serving."""
        self.server.shutdown()


def _config(out: Path, size: int, base_url: str, workers: int) -> dict[str, Any]:
    return {
        "out": str(out),
        "workers": workers,
        "shard_size": 16,
        "sources": [
            {
                "path": str(codeio_path()),
                "limit": size,
                "pairs_per_function": 2,
                "columns": COLUMNS,
                "name": "codeio",
            }
        ],
        "stages": STAGES,
        "model": {
            "name": "standin",
            "base_url": base_url,
            "api_key": "EMPTY",
            "max_concurrency": 16,
        },
        "sampling": {"max_tokens": 64},
    }


def _baseline(config: Any) -> None:
    """The pre-streaming driver loop (git 12f8dfc~1 ``synth/_pipeline.py``): each stage
    over every shard before the next starts, every output read back and kept, datasets
    built as one string."""
    from execlens.engine import program_fingerprint, resolve_program_python
    from execlens.store import RunDir
    from execlens.synth import _sources
    from execlens.synth._card import card_stats
    from execlens.synth._stage import StageContext, accepted, load_stages
    from execlens.synth.stages._assemble import codeio_pp_record, codeio_record

    stages = load_stages()
    read = getattr(_sources, "iter_source", _sources.load_source)
    entering: dict[str, list[dict[str, Any]]] = {}
    for source in config.sources:
        for record in read(source):
            entry = record.pop("entry")
            if entry is not None:
                entering.setdefault(entry, []).append(record)
    identity = {
        "task": "baseline",
        "config": config.identity(),
        "program": program_fingerprint(resolve_program_python()).key(),
    }
    from execlens.synth._pipeline import _model

    with RunDir.open(config.out, identity) as run, _model(config) as client:
        context = StageContext(config, run_path=run.path, client_config=client)
        try:
            outputs: dict[str, list[dict[str, Any]]] = {}
            previous: list[dict[str, Any]] = []
            for name in config.stages:
                cls = stages[name]
                inputs = entering.get(name, []) + accepted(previous)
                if cls.global_stage:
                    final = sorted((r for r in inputs if "verdict_1" in r), key=lambda r: r["id"])
                    for dataset, rows in (
                        ("codeio", [codeio_record(r) for r in final]),
                        ("codeio_pp", [codeio_pp_record(r) for r in final]),
                    ):
                        run.write_text(
                            f"{dataset}.jsonl",
                            "".join(
                                json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n"
                                for r in rows
                            ),
                        )
                        if rows:
                            run.write_parquet(f"{dataset}.parquet", rows)
                    run.write_json("card.json", card_stats(outputs, final))
                    continue
                chunks = [
                    inputs[i : i + config.shard_size]
                    for i in range(0, len(inputs), config.shard_size)
                ]
                shards = run.shards(name)
                for index, chunk in enumerate(chunks):
                    stage = cls(context)
                    records = list(stage.run(chunk, index, len(chunks)))
                    shards.write(index, records, stats={"records": len(records), **stage.counters})
                outputs[name] = [r for i in range(len(chunks)) for r in shards.read(i)]
                previous = outputs[name]
        finally:
            context.close()


def child(args: argparse.Namespace) -> None:
    """One run in this (fresh) process; prints its numbers as one JSON line."""
    from execlens.synth import SynthConfig

    out = Path(args.out)
    config = SynthConfig.model_validate(_config(out, args.size, args.base_url, args.workers))
    start = time.time()
    if args.mode == "streaming":
        from execlens.synth import run_pipeline

        run_pipeline(config, progress=False)
    else:
        _baseline(config)
    end = time.time()
    collect_done = max(p.stat().st_mtime for p in (out / ".done" / "collect").glob("*.json"))
    card = json.loads((out / "card.json").read_text())
    print(
        json.dumps(
            {
                "start": start,
                "end": end,
                "collect_done": collect_done,
                "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
                "functions_kept": card["stages"]["collect"]["accepted"],
                "instances": card["instances"],
            }
        )
    )


def measure(mode: str, size: int, server: StandIn, workers: int, root: Path) -> dict[str, Any]:
    """Run one driver on ``size`` functions in a fresh subprocess; its numbers."""
    before = len(server.arrivals)
    out = root / f"{mode}-{size}"
    result = subprocess.run(
        [
            sys.executable,
            __file__,
            "--child",
            "--mode",
            mode,
            "--size",
            str(size),
            "--out",
            str(out),
            "--base-url",
            server.base_url,
            "--workers",
            str(workers),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        raise SystemExit(f"{mode} {size} failed:\n{result.stderr[-3000:]}")
    data = json.loads(result.stdout.strip().splitlines()[-1])
    arrivals = server.arrivals[before:]
    elapsed = data["end"] - data["start"]
    return {
        "mode": mode,
        "functions": size,
        "seconds": round(elapsed, 2),
        "functions_per_s": round(size / elapsed, 2),
        "peak_rss_mb": data["peak_rss_mb"],
        "functions_kept": data["functions_kept"],
        "instances": data["instances"],
        "requests": len(arrivals),
        "collect_done_s": round(data["collect_done"] - data["start"], 2),
        "first_request_s": round(min(arrivals) - data["start"], 2) if arrivals else None,
        "requests_before_collect_done": sum(t < data["collect_done"] for t in arrivals),
    }


def main() -> None:
    """Parse arguments; run every driver at every size; print the table (and JSON)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--sizes",
        default=small("30,60", "6"),
        help="functions per run, comma-separated (default fits < 2 min on "
        "2 cores; 1000,3000 for the full figure)",
    )
    parser.add_argument("--modes", default="streaming,baseline")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--json", action="store_true", help="one JSON object, last line")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--mode", help=argparse.SUPPRESS)
    parser.add_argument("--size", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    parser.add_argument("--base-url", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args)
        return
    sizes = [int(s) for s in args.sizes.split(",")]
    modes = args.modes.split(",")
    server = StandIn()
    rows = []
    try:
        with tempfile.TemporaryDirectory(prefix="synth-scale-") as root:
            for size in sizes:
                for mode in modes:
                    rows.append(measure(mode, size, server, args.workers, Path(root)))
                    row = rows[-1]
                    print(
                        f"{mode:<10} {size:>5} functions: {row['seconds']:>7.1f} s "
                        f"{row['functions_per_s']:>6.1f} fn/s  peak RSS "
                        f"{row['peak_rss_mb']:>6.1f} MB  "
                        f"collect done {row['collect_done_s']:>6.1f} s, "
                        f"first request {row['first_request_s']} s, "
                        f"{row['requests_before_collect_done']}/{row['requests']} "
                        f"requests before",
                        flush=True,
                    )
    finally:
        server.close()
    summary: dict[str, Any] = {"sizes": sizes, "workers": args.workers, "runs": rows}
    for mode in modes:
        mine = [r for r in rows if r["mode"] == mode]
        if len(mine) >= 2:
            ratio = mine[-1]["peak_rss_mb"] / mine[0]["peak_rss_mb"]
            summary[f"{mode}_rss_ratio"] = round(ratio, 3)
            print(
                f"{mode}: peak RSS {mine[-1]['functions']} / {mine[0]['functions']} "
                f"functions = {ratio:.2f}x"
            )
    streaming = [r for r in rows if r["mode"] == "streaming"]
    summary["targets"] = {
        "rss_within_1.2x": summary.get("streaming_rss_ratio", 0) <= 1.2,
        "overlap": all(r["requests_before_collect_done"] > 0 for r in streaming),
    }
    if args.json:
        print(json.dumps(summary, sort_keys=True))


if __name__ == "__main__":
    main()
