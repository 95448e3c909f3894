"""Optimizers with ``torch.optim``'s API and update formulas: ``SGD`` and ``Adam``."""

from __future__ import annotations

from .adam import Adam
from .optimizer import Optimizer, required
from .sgd import SGD

__all__ = ["Adam", "Optimizer", "SGD", "required"]
