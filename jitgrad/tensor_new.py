"""Factories that take their defaults from a tensor or from PyTorch's legacy rules:
``jitgrad.Tensor(...)`` (the legacy constructor, attached as ``Tensor.__new__``),
``t.new(...)`` and ``t.new_tensor / new_full / new_empty / new_zeros / new_ones``."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from . import dtypes
from .creation import _filled, _sizes, full, tensor
from .device import check as check_device
from .geometry import Size, contiguous_strides, numel
from .layouts import check_layout
from .storage import Storage, allocate
from .tensor import Tensor


def legacy_new(cls: type, *args: Any, device: Any = None) -> Tensor:
    """PyTorch's legacy constructor ``Tensor(...)``: ``Tensor()`` is empty, ``Tensor(2, 3)``
    or ``Tensor(size)`` uninitialised of the default dtype, ``Tensor(data)`` a copy of
    ``data`` in the default dtype, ``Tensor(tensor)`` an alias of ``tensor``."""
    return _legacy(cls, "Tensor", args, dtypes.DEFAULT_FLOAT, device)


def new(self: Tensor, *args: Any, device: Any = None) -> Tensor:
    """``t.new(...)``: the legacy constructor with ``t``'s dtype."""
    return _legacy(Tensor, "new", args, self.dtype, device)


def _legacy(cls: type, op: str, args: tuple[Any, ...], dtype: np.dtype, device: Any) -> Tensor:
    check_device(f"{op}()", device)
    if len(args) == 1 and isinstance(args[0], Tensor):
        t = args[0]
        if op == "new" and t.dtype != dtype:  # Tensor(t) aliases t whatever its dtype
            raise TypeError(f"{op}(): expected a tensor of dtype {dtype.name}, got {t.dtype.name}")
        return cls._make(t._storage, t._sizes, t._strides, t._offset, t if t._base is None else t._base)  # type: ignore[attr-defined]
    if not args:
        sizes: tuple[int, ...] = (0,)
    elif all(isinstance(a, (int, np.integer)) and not isinstance(a, (bool, np.bool_)) for a in args) or (
        len(args) == 1 and isinstance(args[0], Size)
    ):
        sizes = _sizes(op, args)
    elif len(args) == 1 and isinstance(args[0], (list, tuple, np.ndarray)):
        made = tensor(args[0], dtype=dtype)
        return cls._make(made._storage, made._sizes, made._strides)  # type: ignore[attr-defined]
    else:
        got = ", ".join(type(a).__name__ for a in args)
        raise TypeError(
            f"{op}(): expected sizes (ints or a Size), a sequence of data or a Tensor, got ({got})"
        )
    buffer = allocate(numel(sizes), dtype)
    return cls._make(Storage(buffer), sizes, contiguous_strides(sizes))  # type: ignore[attr-defined]


def new_tensor(
    self: Tensor, data: Any, *, dtype: object = None, device: Any = None,
    requires_grad: bool = False, layout: Any = None, pin_memory: bool = False,
) -> Tensor:
    check_layout("new_tensor", layout)
    return tensor(data, dtype=self.dtype if dtype is None else dtype, device=device,
                  requires_grad=requires_grad, pin_memory=pin_memory)


def new_full(
    self: Tensor, size: Sequence[int], fill_value: Any, *, dtype: object = None,
    device: Any = None, requires_grad: bool = False, layout: Any = None, pin_memory: bool = False,
) -> Tensor:
    return full(size, fill_value, dtype=self.dtype if dtype is None else dtype, device=device,
                requires_grad=requires_grad, layout=layout, pin_memory=pin_memory)


def new_empty(
    self: Tensor, *size: Any, dtype: object = None, device: Any = None,
    requires_grad: bool = False, layout: Any = None, pin_memory: bool = False,
) -> Tensor:
    return _filled("new_empty", size, None, None, self.dtype if dtype is None else dtype,
                   device, layout, pin_memory, requires_grad)


def new_zeros(
    self: Tensor, *size: Any, dtype: object = None, device: Any = None,
    requires_grad: bool = False, layout: Any = None, pin_memory: bool = False,
) -> Tensor:
    return _filled("new_zeros", size, None, 0, self.dtype if dtype is None else dtype,
                   device, layout, pin_memory, requires_grad)


def new_ones(
    self: Tensor, *size: Any, dtype: object = None, device: Any = None,
    requires_grad: bool = False, layout: Any = None, pin_memory: bool = False,
) -> Tensor:
    return _filled("new_ones", size, None, 1, self.dtype if dtype is None else dtype,
                   device, layout, pin_memory, requires_grad)
