"""``jitgrad.backends``: ``mps.is_available()`` (and ``is_built()``) for scripts that probe for
an Apple GPU; jitgrad runs on the CPU only, so both are False."""

from __future__ import annotations

from . import mps

__all__ = ["mps"]
