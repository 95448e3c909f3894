"""Integer-only elementwise ops: ``bitwise_left_shift`` / ``bitwise_right_shift`` (``<<``,
``>>``) with PyTorch's rule for shifts outside ``[0, bits)`` (0, or -1 for a negative value
shifted right), ``gcd``, ``lcm``. Not differentiable (integer results)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..tensor import Tensor
from .operands import as_array, from_result, result_type

_TYPE_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half", "bool": "Bool"}


def _integral(kernel: str, *operands: Any, op: str) -> np.dtype:
    dtype = result_type(*operands, op=op)
    if dtype.kind not in "iu":
        raise NotImplementedError(f'"{kernel}_cpu" not implemented for \'{_TYPE_NAMES.get(dtype.name, dtype.name)}\'')
    return dtype


def _shift(input: Any, other: Any, left: bool) -> Tensor:
    name = "bitwise_left_shift" if left else "bitwise_right_shift"
    dtype = result_type(input, other, op=name)
    if dtype.kind == "b":  # bool << bool: PyTorch shifts them as int64
        dtype = np.dtype(np.int64)
    if dtype.kind not in "iu":
        kernel = "lshift" if left else "rshift"
        raise NotImplementedError(f'"{kernel}_cpu" not implemented for \'{_TYPE_NAMES.get(dtype.name, dtype.name)}\'')
    x = np.asarray(as_array(input)).astype(dtype)
    y = np.asarray(as_array(other)).astype(dtype)
    bits = dtype.itemsize * 8
    valid = (y >= 0) & (y < bits)
    safe = np.where(valid, y, 0).astype(dtype)
    if left:
        values = np.where(valid, np.left_shift(x, safe), 0)
    else:
        values = np.where(valid, np.right_shift(x, safe), np.where(x < 0, -1, 0))
    return from_result(np.asarray(values, dtype=dtype), dtype)


def bitwise_left_shift(input: Any, other: Any) -> Tensor:
    """``input << other`` (0 where the shift is negative or at least the bit width)."""
    return _shift(input, other, True)


def bitwise_right_shift(input: Any, other: Any) -> Tensor:
    """``input >> other``, arithmetic (outside ``[0, bits)``: 0, or -1 for a negative value)."""
    return _shift(input, other, False)


def _tensors(op: str, input: Any, other: Any) -> None:
    for name, t in (("input", input), ("other", other)):
        if not isinstance(t, Tensor):
            raise TypeError(f"{op}(): argument '{name}' must be Tensor, not {type(t).__name__}")


def gcd(input: Tensor, other: Tensor) -> Tensor:
    """The greatest common divisor (non-negative), elementwise."""
    _tensors("gcd", input, other)
    dtype = _integral("gcd", input, other, op="gcd")
    return from_result(np.asarray(np.gcd(input._numpy().astype(dtype), other._numpy().astype(dtype))), dtype)


def lcm(input: Tensor, other: Tensor) -> Tensor:
    """The least common multiple (non-negative), elementwise."""
    _tensors("lcm", input, other)
    dtype = _integral("lcm", input, other, op="lcm")
    return from_result(np.asarray(np.lcm(input._numpy().astype(dtype), other._numpy().astype(dtype))), dtype)


def _in_place(fn: Any) -> Any:
    def inplace(self: Tensor, other: Any) -> Tensor:
        result = fn(self, other)
        if result.dtype != self.dtype:
            raise RuntimeError(f"result type {result.dtype.name} can't be cast to the desired output type "
                               f"{self.dtype.name}")
        return self.copy_(result)  # type: ignore[attr-defined,no-any-return]
    return inplace


bitwise_left_shift_ = _in_place(bitwise_left_shift)
bitwise_right_shift_ = _in_place(bitwise_right_shift)
gcd_ = _in_place(gcd)
lcm_ = _in_place(lcm)
