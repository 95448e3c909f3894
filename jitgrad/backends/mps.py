"""``jitgrad.backends.mps``: no Metal device, ever (jitgrad runs on the CPU only)."""

from __future__ import annotations


def is_available() -> bool:
    return False


def is_built() -> bool:
    return False
