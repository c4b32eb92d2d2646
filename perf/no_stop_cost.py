"""What sending no stop strings costs a model that does not think, in tokens.

Under ``--reasoning auto`` (the default) ``execlens eval`` never sends the benchmark's
stop strings -- a server would apply them inside a thought and end it at a draft -- and
cuts each final part at them afterwards; a reply the token limit cut is asked once more
with room to think.  A model that does not think pays for the tokens it writes after the
point where the stop would have ended it, and for any second ask.  Measured here on the
embedded model (SmolLM2-135M-Instruct, a non-thinker, served by llama.cpp on this
machine): CRUXEval output prediction, direct and CoT prompts, the same samples asked

* **baseline**: ``--reasoning off``: the official stop strings sent, the content read
  whole (what every run did before);
* **auto**: no stop strings, the official stops applied to each final part, cut replies
  asked again.

Reported per prompt: completion tokens generated (every request, second asks included),
requests sent, the token ratio auto / baseline, and both runs' scores (equal: the final
parts are cut where the stop would have cut them).  Each run uses a private, empty request
cache.  ``--json`` prints one JSON object on the last line.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _small import small

from execlens.bench import EvalConfig, run_eval


def _data_root() -> Path:
    configured = os.environ.get("EXECLENS_TEST_DATA", "../shared/data")
    path = Path(configured)
    root = Path(__file__).resolve().parents[1]
    return path if path.is_absolute() else (root / path).resolve()


def _run(prompt: str, reasoning: str, limit: int, data: Path, scratch: Path) -> dict[str, Any]:
    os.environ["EXECLENS_CACHE_DIR"] = str(scratch / f"cache-{prompt}-{reasoning}")
    started = time.perf_counter()
    result = run_eval(
        EvalConfig(
            benchmark="cruxeval",
            task="output",
            prompt=prompt,
            model="local",
            n=1,
            temperature=0.0,
            limit=limit,
            data=str(data),
            reasoning=reasoning,
        ),
        scratch / f"run-{prompt}-{reasoning}",
        show_progress=False,
    )
    responses = result.results["responses"]
    return {
        "completion_tokens": result.extra["completion_tokens"],
        "requests": result.requests,
        "asked_again": (responses.get("budget") or {}).get("asked_again_with_room", 0),
        "truncated": responses["truncated"],
        "metrics": result.results["metrics"],
        "seconds": time.perf_counter() - started,
    }


def main() -> None:
    """Measure (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    # The small scale (CI): two samples, the direct prompt only -- every code path, and
    # the embedded model's replies stay short.
    parser.add_argument("--limit", type=int, default=small(20, 2), help="CRUXEval samples per run")
    parser.add_argument(
        "--prompts",
        default=small("direct,cot", "direct"),
        help="prompt styles, comma-separated (direct,cot)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object last")
    options = parser.parse_args()
    data = _data_root() / "cruxeval"
    if not (data / "cruxeval.jsonl").is_file():
        print(
            f"error: CRUXEval data not found under {data}; set EXECLENS_TEST_DATA", file=sys.stderr
        )
        raise SystemExit(2)
    result: dict[str, Any] = {"samples": options.limit, "model": "local (SmolLM2-135M)"}
    with tempfile.TemporaryDirectory() as scratch:
        for prompt in [p.strip() for p in options.prompts.split(",") if p.strip()]:
            base = _run(prompt, "off", options.limit, data, Path(scratch))
            auto = _run(prompt, "auto", options.limit, data, Path(scratch))
            ratio = auto["completion_tokens"] / max(base["completion_tokens"], 1)
            result[prompt] = {"baseline": base, "auto": auto, "token_ratio": ratio}
            print(
                f"{prompt}: {auto['completion_tokens']:,} completion tokens without stops vs "
                f"{base['completion_tokens']:,} with them ({ratio:.2f}x; "
                f"{auto['requests']} vs {base['requests']} requests, {auto['asked_again']} "
                f"asked again with room); scores {auto['metrics']['strict']} vs "
                f"{base['metrics']['strict']} (strict)"
            )
    if options.json:
        print(json.dumps(result))


if __name__ == "__main__":
    main()
