"""Optimizers with ``torch.optim``'s API and update formulas: ``SGD``, ``Adam``, ``AdamW``,
``RMSprop``, ``Adagrad``, ``LBFGS``, and the learning-rate schedulers of ``lr_scheduler``."""

from __future__ import annotations

from . import lr_scheduler
from .adagrad import Adagrad
from .adam import Adam
from .adamw import AdamW
from .lbfgs import LBFGS
from .optimizer import Optimizer, required
from .rmsprop import RMSprop
from .sgd import SGD

__all__ = ["Adagrad", "Adam", "AdamW", "LBFGS", "Optimizer", "RMSprop", "SGD", "lr_scheduler", "required"]
