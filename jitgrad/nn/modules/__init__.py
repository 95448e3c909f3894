"""The layers and containers of ``jitgrad.nn``."""

from .activation import (
    ELU, GELU, Dropout, LeakyReLU, LogSoftmax, ReLU, Sigmoid, SiLU, Softmax, Softplus, Tanh,
)
from .container import ModuleDict, ModuleList, ParameterList, Sequential
from .linear import Flatten, Identity, Linear
from .loss import CrossEntropyLoss, L1Loss, MSELoss, NLLLoss
from .module import Module

__all__ = [
    "CrossEntropyLoss", "Dropout", "ELU", "Flatten", "GELU", "Identity", "L1Loss", "LeakyReLU",
    "Linear", "LogSoftmax", "MSELoss", "Module", "ModuleDict", "ModuleList", "NLLLoss",
    "ParameterList", "ReLU", "Sequential", "SiLU", "Sigmoid", "Softmax", "Softplus", "Tanh",
]
