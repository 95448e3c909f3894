"""Optimizers with ``torch.optim``'s API and update formulas: ``SGD``, ``Adam``, ``AdamW``,
``RMSprop``, ``Adagrad``, ``Adamax``, ``NAdam``, ``RAdam``, ``Adadelta``, ``Rprop``, ``ASGD``,
``LBFGS``, and the learning-rate schedulers of ``lr_scheduler``."""

from __future__ import annotations

from . import lr_scheduler
from .adagrad import Adagrad
from .adam import Adam
from .adam_variants import Adamax, NAdam, RAdam
from .adamw import AdamW
from .classic import ASGD, Adadelta, Rprop
from .lbfgs import LBFGS
from .optimizer import Optimizer, required
from .rmsprop import RMSprop
from .sgd import SGD

__all__ = ["ASGD", "Adadelta", "Adagrad", "Adam", "AdamW", "Adamax", "LBFGS", "NAdam", "Optimizer", "RAdam", "RMSprop",
           "Rprop", "SGD", "lr_scheduler", "required"]
