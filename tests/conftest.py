"""Test-suite settings shared by every test module.

Hypothesis budgets: each property test asks for ``budget(n)`` examples. The default suite
runs ``n``; ``JITGRAD_FUZZ_SCALE=20 pytest -m ''`` (``make test-slow``) runs twenty times as
many. Failing examples are stored in ``tests/.hypothesis-db`` so they replay on the next run.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from hypothesis import HealthCheck, settings
from hypothesis.database import DirectoryBasedExampleDatabase

sys.path.insert(0, str(Path(__file__).parent))

settings.register_profile(
    "jitgrad",
    database=DirectoryBasedExampleDatabase(str(Path(__file__).parent / ".hypothesis-db")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile("jitgrad")

FUZZ_SCALE = float(os.environ.get("JITGRAD_FUZZ_SCALE", "1"))


def budget(n: int) -> int:
    """Number of Hypothesis examples for a test whose default-suite budget is ``n``."""
    return max(1, int(n * FUZZ_SCALE))
