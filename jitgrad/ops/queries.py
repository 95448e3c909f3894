"""Function forms of tensor queries and copies: ``is_tensor``, ``is_floating_point``,
``is_complex``, ``numel``, ``clone``, ``detach``, ``positive`` (``+x``), and the
``type_as``/``is_complex`` methods."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..tensor import Tensor


def _tensor(op: str, input: Any) -> Tensor:
    if not isinstance(input, Tensor):
        raise TypeError(f"{op}(): argument 'input' must be a Tensor, got {type(input).__name__}")
    return input


def is_tensor(obj: Any) -> bool:
    """Whether ``obj`` is a jitgrad Tensor."""
    return isinstance(obj, Tensor)


def is_floating_point(input: Tensor) -> bool:
    return _tensor("is_floating_point", input).is_floating_point()  # type: ignore[attr-defined,no-any-return]


def is_complex(input: Tensor) -> bool:
    """Whether the dtype is complex (never, with jitgrad's dtypes)."""
    return bool(np.issubdtype(_tensor("is_complex", input).dtype, np.complexfloating))


def numel(input: Tensor) -> int:
    return _tensor("numel", input).numel()  # type: ignore[attr-defined,no-any-return]


def clone(input: Tensor, *, memory_format: Any = None) -> Tensor:
    """``input.clone()``: a differentiable copy with its own storage."""
    return _tensor("clone", input).clone(memory_format=memory_format)  # type: ignore[attr-defined,no-any-return]


def detach(input: Tensor) -> Tensor:
    """``input.detach()``: the same storage, outside autograd."""
    return _tensor("detach", input).detach()  # type: ignore[attr-defined,no-any-return]


def type_as(self: Tensor, other: Tensor) -> Tensor:
    """``self`` converted to ``other``'s dtype (``self`` itself when it already has it)."""
    if not isinstance(other, Tensor):
        raise TypeError(f"type_as(): argument 'other' must be a Tensor, got {type(other).__name__}")
    return self.to(other.dtype)  # type: ignore[attr-defined,no-any-return]


_LEGACY_NAMES = {"float64": "DoubleTensor", "float32": "FloatTensor", "float16": "HalfTensor",
                 "int64": "LongTensor", "int32": "IntTensor", "int16": "ShortTensor",
                 "int8": "CharTensor", "uint8": "ByteTensor", "bool": "BoolTensor"}


def type_method(self: Tensor, dtype: Any = None, non_blocking: bool = False, **kwargs: Any) -> Any:
    """``t.type()``: PyTorch's legacy type string (``"torch.FloatTensor"``, which scripts
    compare against); ``t.type(dtype)``: ``t`` converted (``t`` itself if it already has it);
    the dtype may be a legacy string (``"torch.LongTensor"``)."""
    from .. import dtypes

    if dtype is None:
        return f"torch.{_LEGACY_NAMES[self.dtype.name]}"
    if isinstance(dtype, str):
        by_name = {v: k for k, v in _LEGACY_NAMES.items()}
        short = dtype.rsplit(".", 1)[-1]
        if short not in by_name:
            raise ValueError(f"type(): invalid type: '{dtype}'")
        dtype = dtypes.to_dtype(by_name[short], "type")
    return self.to(dtype)  # type: ignore[attr-defined,no-any-return]


def positive(input: Tensor) -> Tensor:
    """``+input``: the very tensor, as PyTorch (refused for bool)."""
    if _tensor("positive", input).dtype == np.bool_:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


def isin(elements: Any, test_elements: Any, *, assume_unique: bool = False, invert: bool = False) -> Tensor:
    """Whether each element of ``elements`` is in ``test_elements`` (either may be a number,
    not both); ``invert``: whether it is not."""
    from .operands import from_result

    if not isinstance(elements, Tensor) and not isinstance(test_elements, Tensor):
        raise TypeError(
            f"isin(): expected a Tensor for elements or test_elements, got "
            f"{type(elements).__name__} and {type(test_elements).__name__}"
        )
    values = elements._numpy() if isinstance(elements, Tensor) else np.asarray(elements)
    tests = test_elements._numpy() if isinstance(test_elements, Tensor) else np.asarray(test_elements)
    return from_result(np.asarray(np.isin(values, tests, invert=bool(invert))))


def is_same_size(self: Tensor, other: Tensor) -> bool:
    return self._sizes == _tensor("is_same_size", other)._sizes


def nbytes(self: Tensor) -> int:
    """The bytes of the elements the tensor shows (``numel * itemsize``, not its storage's)."""
    return self.numel() * self._storage.buffer.itemsize  # type: ignore[attr-defined,no-any-return]


def itemsize(self: Tensor) -> int:
    return self._storage.buffer.itemsize  # type: ignore[no-any-return]
