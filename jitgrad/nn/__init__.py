"""``torch.nn``'s counterpart; so far only ``functional`` (the activation functions)."""

from __future__ import annotations

from . import functional

__all__ = ["functional"]
