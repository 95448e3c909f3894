"""``jitgrad.cuda``: what scripts ask before choosing a device. jitgrad runs on the CPU only,
so no CUDA device is ever available (``device="cuda"`` raises; see ``device.py``)."""

from __future__ import annotations


def is_available() -> bool:
    return False


def device_count() -> int:
    return 0


def manual_seed(seed: int) -> None:
    """Accepted and ignored, as torch does when CUDA is absent."""


def manual_seed_all(seed: int) -> None:
    """Accepted and ignored, as torch does when CUDA is absent."""
