"""``jitgrad.nn``: modules, parameters, layers, losses, ``init`` and ``functional``, with the
API of ``torch.nn``."""

from . import functional, init, utils
from .modules import (
    ELU, GELU, CrossEntropyLoss, Dropout, Flatten, Identity, L1Loss, LeakyReLU, Linear,
    LogSoftmax, Module, ModuleDict, ModuleList, MSELoss, NLLLoss, ParameterList, ReLU,
    Sequential, Sigmoid, SiLU, Softmax, Softplus, Tanh,
)
from .parameter import Parameter

__all__ = [
    "CrossEntropyLoss", "Dropout", "ELU", "Flatten", "GELU", "Identity", "L1Loss", "LeakyReLU",
    "Linear", "LogSoftmax", "MSELoss", "Module", "ModuleDict", "ModuleList", "NLLLoss",
    "Parameter", "ParameterList", "ReLU", "Sequential", "SiLU", "Sigmoid", "Softmax",
    "Softplus", "Tanh", "functional", "init", "utils",
]
