"""A model server that dies during ``predict`` (issue 17): the run ends with an ``error:``
line and a non-zero exit, nothing is recorded as a final rejection, and a rerun with the
server back sends the requests and finishes with the dataset an undisturbed run makes.

The server is a real HTTP server on 127.0.0.1 (the scripted stand-in); it "dies" by
closing its listening socket, so every later connection is refused, as when a vLLM
process is killed.  The client, cache, pipeline, engine and store are all real."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from execlens.models import RetryPolicy, resolve_client_config
from execlens.synth import load_config, synth_status

from .conftest import ScriptedServer, final_bytes, pipeline_config, write_config

#: The model settings that make a dead server fail fast (no retries, short timeout).
FAIL_FAST = {"max_retries": 0, "timeout": 10}


class DyingServer(ScriptedServer):
    """The scripted server that, at its ``answers + 1``-th chat request, closes its
    listening socket (connection refused from then on) and fails that request."""

    def __init__(self, answers: int) -> None:
        super().__init__()
        scripted = self.reply
        self.answered = 0
        lock = threading.Lock()

        def reply(body: dict[str, Any]) -> str | None:
            with lock:
                if self.answered >= answers:
                    if self.answered == answers:
                        threading.Thread(target=self.die, daemon=True).start()
                        self.answered += 1
                    return None
                self.answered += 1
            return scripted(body)

        self.reply = reply

    def die(self) -> None:
        """Stop serving and close the socket: new connections are refused."""
        self._server.shutdown()
        self._server.server_close()


def _run(config: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(Path(sys.executable).parent / "execlens"), "synth", "run", str(config), "--quiet"],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def _config(data_dir: Path, out: Path, base_url: str, stages: list[str]) -> dict[str, Any]:
    # Every success rate kept: the scripted answers are not a model's.
    config = pipeline_config(
        data_dir, out, base_url, stages=stages, difficulty={"samples": 2, "low": 0.0, "high": 1.0}
    )
    config["model"] = {**config["model"], **FAIL_FAST}
    return config


PIPELINE = ["collect", "prompts", "predict", "verify", "revise", "assemble"]


@pytest.mark.parametrize(
    ("stage", "stages", "answers"),
    [
        ("predict", PIPELINE, 5),
        # A stage that turns answers into a score (no answer: success rate 0, "too_hard")
        # must not score a dead server either: the ModelStage base checks for every stage.
        ("difficulty", ["collect", "difficulty", "prompts", "predict", "verify", "assemble"], 1),
    ],
)
def test_a_dead_server_is_an_error_and_the_rerun_sends_what_it_missed(
    data_dir: Path,
    tmp_path: Path,
    scripted_server: ScriptedServer,
    stage: str,
    stages: list[str],
    answers: int,
) -> None:
    # The undisturbed run, for comparison.
    reference = tmp_path / "reference"
    done = _run(
        write_config(
            tmp_path / "reference.yaml",
            _config(data_dir, reference, scripted_server.base_url, stages),
        )
    )
    assert done.returncode == 0, done.stderr[-2000:]

    out = tmp_path / "out"
    dying = DyingServer(answers)
    with dying:
        config = write_config(tmp_path / "run.yaml", _config(data_dir, out, dying.base_url, stages))
        failed = _run(config)
    assert failed.returncode not in (0, None), failed.stderr[-2000:]
    errors = [line for line in failed.stderr.splitlines() if line.startswith("error:")]
    assert errors and stage in errors[0] and "rerun" in errors[0], failed.stderr[-2000:]
    assert not (out / "card.json").exists()
    # Not a verdict: the stage's shards are not all recorded, and none it recorded
    # holds a rejection the dead server caused (a success rate scored on no answers
    # would also show as a difference from the reference run below).
    status = synth_status(out)["stages"][stage]
    assert status["shards_done"] < (status["shards"] or 0)
    shards = out / "shards" / stage
    recorded = (
        [
            json.loads(line)
            for path in shards.glob("*.jsonl")
            for line in path.read_text().splitlines()
        ]
        if shards.is_dir()
        else []
    )
    assert not [
        r
        for r in recorded
        if (r.get("reject") or {}).get("reason") in ("too_hard", "too_easy")
        or str((r.get("reject") or {}).get("reason", "")).startswith("model_error")
    ]

    # The server is back on the same address: the rerun asks what was missed.
    with ScriptedServer(port=dying.port) as back:
        rerun = _run(config)
    assert rerun.returncode == 0, rerun.stderr[-2000:]
    assert dying.answered == answers + 1  # the next request after those killed it
    # Every request the dead server did not answer is asked again (the answered ones
    # come from the run's request cache: predict alone sends one per instance), and
    # the dataset is the undisturbed run's.
    instances = json.loads((out / "card.json").read_text())["instances"]
    assert instances > answers and back.requests >= instances - answers
    assert final_bytes(out) == final_bytes(reference)


@pytest.mark.parametrize(
    ("given", "retries", "timeout"),
    [
        ({}, RetryPolicy().max_retries, 600.0),  # the defaults: the client's, as before
        (FAIL_FAST, 0, 10.0),
    ],
)
def test_the_model_section_sets_the_clients_retries_and_timeout(
    data_dir: Path, tmp_path: Path, given: dict[str, Any], retries: int, timeout: float
) -> None:
    raw = pipeline_config(data_dir, tmp_path / "out", "http://127.0.0.1:9/v1")
    raw["model"] = {**raw["model"], **given}
    model = load_config(write_config(tmp_path / "run.yaml", raw)).model
    assert model is not None
    client = resolve_client_config(
        model.name, model.base_url, model.api_key, **model.client_settings()
    )
    assert client.retry.max_retries == retries
    assert client.timeout == timeout
