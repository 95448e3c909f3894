"""``torch.utils``'s counterpart: ``data`` (datasets, samplers, ``DataLoader``) and
``checkpoint``."""

from __future__ import annotations

from . import checkpoint, data

__all__ = ["checkpoint", "data"]
