"""``jitgrad.backends.cudnn``: the flags scripts set for reproducibility (``deterministic``,
``benchmark``) are plain attributes here and change nothing; there is no cuDNN."""

from __future__ import annotations

enabled = False
deterministic = False
benchmark = False


def is_available() -> bool:
    return False


def version() -> None:
    return None
