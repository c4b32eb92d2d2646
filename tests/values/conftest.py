"""The fuzz tests' shared Hypothesis settings (test modules cannot import conftest, so
they read them back as ``settings.get_profile(FUZZ_PROFILE)``).

Examples are derandomized (CI sees the same ones each run); ``EXECLENS_FUZZ_EXAMPLES=2000``
explores that many fresh random ones per test.
"""

from __future__ import annotations

import os
from datetime import timedelta

from hypothesis import HealthCheck, settings

_EXAMPLES = os.environ.get("EXECLENS_FUZZ_EXAMPLES")
settings.register_profile(
    "execlens-fuzz",
    max_examples=int(_EXAMPLES or 60),
    deadline=timedelta(seconds=5),  # a loaded CI machine; a hang is far longer
    derandomize=not _EXAMPLES,  # CI: the same examples each run; a long run: fresh ones
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
