"""``jitgrad.backends``: what scripts probe or set for accelerators (``mps.is_available()``,
``cudnn.deterministic = True``); jitgrad runs on the CPU only, so every probe says no."""

from __future__ import annotations

from . import cudnn, mps

__all__ = ["cudnn", "mps"]
