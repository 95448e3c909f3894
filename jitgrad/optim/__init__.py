"""Optimizers with ``torch.optim``'s API and update formulas: ``SGD``, ``Adam``, ``AdamW``."""

from __future__ import annotations

from .adam import Adam
from .adamw import AdamW
from .optimizer import Optimizer, required
from .sgd import SGD

__all__ = ["Adam", "AdamW", "Optimizer", "SGD", "required"]
