"""PyTorch's public type-promotion queries: ``promote_types``, ``result_type``, ``can_cast``
(the rules themselves are ``dtypes.promote_types`` and ``ops/operands.result_type``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes
from .operands import can_cast as _can_cast
from .operands import result_type as _result_type


def promote_types(type1: Any, type2: Any) -> np.dtype:
    """The smallest dtype both ``type1`` and ``type2`` convert to without losing category."""
    return dtypes.promote_types(dtypes.to_dtype(type1, "promote_types"), dtypes.to_dtype(type2, "promote_types"))


def result_type(tensor: Any, other: Any) -> np.dtype:
    """The dtype ``tensor + other`` would have (tensors and Python numbers)."""
    return _result_type(tensor, other, op="result_type")


def can_cast(from_: Any, to: Any) -> bool:
    """Whether an in-place op may write a ``from_`` result into a ``to`` tensor (no float to
    integer, nothing but bool to bool)."""
    return _can_cast(dtypes.to_dtype(from_, "can_cast"), dtypes.to_dtype(to, "can_cast"))
