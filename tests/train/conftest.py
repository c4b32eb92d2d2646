"""The embedded model's real llama-cpp-python server for the chain-collection tests.

CI installs it (``make install``) and sets ``EXECLENS_REQUIRE_DATA``: there a missing
model fails the run instead of hiding the test behind a skip.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from execlens.models import LocalModelServer, local_server_missing


@pytest.fixture(scope="session")
def local_server() -> Iterator[LocalModelServer]:
    """The embedded model's server, once per session (skips where it is not installed)."""
    reason = local_server_missing()
    if reason is not None:
        message = f"embedded local model unavailable: {reason}"
        if os.environ.get("EXECLENS_REQUIRE_LOCAL_MODEL") or os.environ.get(
            "EXECLENS_REQUIRE_DATA"
        ):
            pytest.fail(message)
        pytest.skip(message)
    with LocalModelServer() as server:
        yield server
