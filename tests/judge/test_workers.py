"""The judge-worker settings every caller shares (``execlens.judge._workers``): how many
workers, the smallest batch sent to them, and the named error a bad value raises."""

from __future__ import annotations

import pytest

from execlens.judge import (
    JUDGE_MIN_BATCH,
    EnvSettingError,
    check_judge_settings,
    int_env,
    judge_min_batch,
    judge_worker_count,
    judges_for,
)


@pytest.fixture(autouse=True)
def _clean(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("EXECLENS_JUDGE_WORKERS", raising=False)
    monkeypatch.delenv("EXECLENS_JUDGE_MIN_BATCH", raising=False)


@pytest.mark.parametrize(
    ("cores", "expected"), [(1, 0), (2, 0), (7, 0), (8, 0), (15, 0), (16, 2), (24, 3), (64, 8)]
)
def test_default_is_one_worker_per_eight_cores_from_two_workers_on(
    monkeypatch: pytest.MonkeyPatch, cores: int, expected: int
) -> None:
    monkeypatch.setattr("os.cpu_count", lambda: cores)
    assert judge_worker_count() == expected


def test_default_never_exceeds_the_servers_it_splits(monkeypatch: pytest.MonkeyPatch) -> None:
    # 64 cores but a 2-server engine: two workers of one server each, not eight.
    monkeypatch.setattr("os.cpu_count", lambda: 64)
    assert judge_worker_count(servers=2) == 2
    assert judge_worker_count(servers=32) == 8
    assert judge_worker_count(servers=1) == 0  # one worker would not pay


def test_the_variable_wins_over_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("os.cpu_count", lambda: 2)
    monkeypatch.setenv("EXECLENS_JUDGE_WORKERS", "3")
    assert judge_worker_count() == 3
    assert judge_worker_count(servers=1) == 3  # asked for: honoured
    monkeypatch.setenv("EXECLENS_JUDGE_WORKERS", "0")
    monkeypatch.setattr("os.cpu_count", lambda: 64)
    assert judge_worker_count() == 0


def test_small_batches_stay_in_the_calling_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EXECLENS_JUDGE_WORKERS", "2")
    assert judge_min_batch() == JUDGE_MIN_BATCH
    assert judges_for(JUDGE_MIN_BATCH - 1) == 0
    assert judges_for(JUDGE_MIN_BATCH) == 2
    monkeypatch.setenv("EXECLENS_JUDGE_MIN_BATCH", "1")
    assert judges_for(1) == 2
    assert judges_for(0) == 0


@pytest.mark.parametrize(
    ("name", "text", "least"),
    [
        ("EXECLENS_JUDGE_WORKERS", "two", 0),
        ("EXECLENS_JUDGE_WORKERS", "-1", 0),
        ("EXECLENS_JUDGE_WORKERS", "1.5", 0),
        ("EXECLENS_JUDGE_MIN_BATCH", "0", 1),
        ("EXECLENS_JUDGE_MIN_BATCH", "many", 1),
    ],
)
def test_a_bad_value_is_a_named_value_error(
    monkeypatch: pytest.MonkeyPatch, name: str, text: str, least: int
) -> None:
    monkeypatch.setenv(name, text)
    with pytest.raises(EnvSettingError) as caught:
        check_judge_settings()
    assert isinstance(caught.value, ValueError)  # callers catching ValueError still do
    assert caught.value.variable == name
    message = str(caught.value)
    assert name in message and repr(text) in message and f"{name}={least}" in message


def test_unset_or_blank_is_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    assert int_env("EXECLENS_JUDGE_WORKERS", 0) is None
    monkeypatch.setenv("EXECLENS_JUDGE_WORKERS", " ")
    assert int_env("EXECLENS_JUDGE_WORKERS", 0) is None
    monkeypatch.setenv("EXECLENS_JUDGE_WORKERS", " 4 ")
    assert int_env("EXECLENS_JUDGE_WORKERS", 0) == 4
