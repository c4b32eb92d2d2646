"""Every test here keeps the strict truth the core builds in the session's own cache."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _truth_cache(strict_truth_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EXECLENS_TRUTH_CACHE_DIR", str(strict_truth_dir))
