"""REval through the generic eval runner: ``consistency`` (all four tasks, IC) end to end.

The model is a scripted OpenAI-compatible server on 127.0.0.1 answering every question with
the constant answer (NO / -1 / Nil, and an unfilled output snippet); everything else is
real: the registry, the runner and its store, REval's prompts, the traced truth, both
judges on the engine.  Constant answers must score exactly the constant-answer baselines
the benchmark computes from the truth, and the gensim problems are never asked.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from execlens.bench import EvalConfig, run_eval

LIMIT = 20


def _answer(prompt: str) -> str:
    question = prompt.rsplit("[QUESTION]", 1)[-1]
    if "[QUESTION]" not in prompt or "[PYTHON]" in question:
        return "assert False\n[/ANSWER]"  # the output task
    if "answer Nil" in question:
        return "Nil\n[/ANSWER]"
    if "next line of code" in question:
        return "-1\n[/ANSWER]"
    return "NO\n[/ANSWER]"


class _Handler(BaseHTTPRequestHandler):
    asked: list[str] = []

    def log_message(self, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)))
        prompt = body["messages"][-1]["content"] if "messages" in body else body["prompt"]
        type(self).asked.append(prompt)
        text = _answer(prompt)
        choice: dict[str, Any] = {"index": 0, "finish_reason": "stop"}
        if "messages" in body:
            choice["message"] = {"role": "assistant", "content": text}
        else:
            choice["text"] = text
        data = json.dumps(
            {
                "id": "scripted",
                "object": "chat.completion",
                "created": 0,
                "model": body.get("model", "scripted"),
                "choices": [choice],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
            }
        ).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture
def server() -> Iterator[str]:
    _Handler.asked = []
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_consistency_runs_end_to_end(
    reval_reference: None,
    server: str,
    tmp_path: Path,
    data_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("EXECLENS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("OPENAI_API_KEY", "scripted")
    # Start past DREval/116 so the window reaches the gensim problem DREval/117.
    config = EvalConfig(
        benchmark="reval",
        task="consistency",
        prompt="direct",
        model="scripted",
        base_url=server,
        n=1,
        temperature=0.0,
        limit=LIMIT,
        offset=2600,
        data=str(data_dir / "reval"),
    )
    result = run_eval(config, tmp_path / "run", show_progress=False)
    results = result.results
    samples = [json.loads(line) for line in (tmp_path / "run" / "samples.jsonl").open()]
    by_task: dict[str, int] = {}
    for sample in samples:
        by_task[sample["id"].split(":", 1)[0]] = by_task.get(sample["id"].split(":", 1)[0], 0) + 1
    assert by_task["coverage"] == by_task["path"] == by_task["state"] == LIMIT
    assert 1 <= by_task["output"] <= LIMIT
    assert len(_Handler.asked) == len(samples)
    # Gensim problems are dropped before inference, with the reason reported.
    assert not any("gensim" in prompt for prompt in _Handler.asked)
    assert results["skipped"] and set(results["skipped"].values()) == {
        "needs gensim (not installed)"
    }
    assert not any(
        key.split(":", 1)[-1] in results["skipped"] for key in (s["id"] for s in samples)
    )
    for mode in ("official", "strict"):
        metrics = results["metrics"][mode]
        assert {"coverage", "path", "state", "output", "IC"} <= set(metrics)
        baseline = results["baselines"][f"no_nil_minus1 ({mode})"]
        for name in ("coverage", "path", "state", "IC"):
            assert metrics[name] == pytest.approx(baseline[name]), (mode, name)
        assert metrics["output"] == 0.0
    # A rerun resumes everything (nothing asked, nothing scored, the truth read back from
    # its cache) and rewrites the same final files, byte for byte.
    before = {
        name: (tmp_path / "run" / name).read_bytes() for name in ("samples.jsonl", "results.json")
    }
    asked = len(_Handler.asked)
    again = run_eval(config, tmp_path / "run", show_progress=False)
    assert len(_Handler.asked) == asked and again.samples_scored_now == 0
    for name, content in before.items():
        assert (tmp_path / "run" / name).read_bytes() == content, name


@pytest.mark.parametrize("task", ["coverage", "path", "state", "output"])
def test_single_tasks_score_their_constant_baseline(
    reval_reference: None,
    task: str,
    server: str,
    tmp_path: Path,
    data_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("EXECLENS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("OPENAI_API_KEY", "scripted")
    config = EvalConfig(
        benchmark="reval",
        task=task,
        prompt="direct",
        model="scripted",
        base_url=server,
        n=1,
        temperature=0.0,
        limit=8,
        data=str(data_dir / "reval"),
    )
    results = run_eval(config, tmp_path / task, show_progress=False).results
    for mode in ("official", "strict"):
        metrics = results["metrics"][mode]
        if task == "output":
            assert metrics == {"output": 0.0}
            continue
        assert metrics[task] == pytest.approx(results["baselines"][f"no_nil_minus1 ({mode})"][task])
