"""The dtype shorthands PyTorch has beyond ``float``/``double``/``long``/``bool``
(``ops/structure.py``): ``half``, ``int``, ``short``, ``char``, ``byte``."""

from __future__ import annotations

from .. import dtypes
from ..tensor import Tensor
from .structure import to_dtype


def half(self: Tensor) -> Tensor:
    return to_dtype(self, dtypes.float16)


def int_(self: Tensor) -> Tensor:
    return to_dtype(self, dtypes.int32)


def short(self: Tensor) -> Tensor:
    return to_dtype(self, dtypes.int16)


def char(self: Tensor) -> Tensor:
    return to_dtype(self, dtypes.int8)


def byte(self: Tensor) -> Tensor:
    return to_dtype(self, dtypes.uint8)
