"""``jitgrad.nn``: modules, parameters, layers, losses, ``init`` and ``functional``, with the
API of ``torch.nn``."""

from . import functional, init, modules, utils
from .modules import *  # noqa: F401,F403  (every layer and loss: ``modules.__all__``)
from .parameter import Buffer, Parameter

__all__ = [*modules.__all__, "Buffer", "Parameter", "functional", "init", "utils"]
