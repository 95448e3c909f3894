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

FUZZ_SCALE = float(os.environ.get("JITGRAD_FUZZ_SCALE", "1"))

# The default suite (what CI runs) draws the same Hypothesis examples on every run, so a
# failure there is a change's doing and reproduces; the fuzz runs (``tasks.py test-slow``,
# JITGRAD_FUZZ_SCALE > 1, or JITGRAD_FUZZ_RANDOM=1) draw new ones each time to find new bugs.
EXPLORE = FUZZ_SCALE > 1 or os.environ.get("JITGRAD_FUZZ_RANDOM") == "1"

settings.register_profile(
    "jitgrad",
    # (failures found while exploring are kept and replayed by the next exploring run)
    database=DirectoryBasedExampleDatabase(str(Path(__file__).parent / ".hypothesis-db")) if EXPLORE else None,
    deadline=None,
    derandomize=not EXPLORE,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile("jitgrad")


def budget(n: int) -> int:
    """Number of Hypothesis examples for a test whose default-suite budget is ``n``."""
    return max(1, int(n * FUZZ_SCALE))
