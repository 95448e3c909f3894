"""``__getitem__`` and ``__setitem__``, with PyTorch's (NumPy's) indexing rules.

Basic indices (ints, positive-step slices, ``None``, ``...``) make a view; advanced ones
(integer arrays/lists/tensors, boolean masks) make a copy on read and scatter on write.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from . import dtypes
from .copying import check_inplace, copy_into, fill_into
from .geometry import Geometry
from .geometry import views as vg
from .tensor import Tensor

_VALID = (
    "only integers, slices (`:`), ellipsis (`...`), None and long or bool tensors are valid indices"
)


def _is_int(item: object) -> bool:
    return isinstance(item, numbers.Integral) and not isinstance(item, (bool, np.bool_))


def _is_scalar_index_tensor(item: object) -> bool:
    return isinstance(item, Tensor) and item.ndim == 0 and item.dtype == dtypes.int64


def _is_basic(item: object) -> bool:
    return item is None or item is Ellipsis or isinstance(item, slice) or _is_int(item) or (
        _is_scalar_index_tensor(item)
    )


def _as_tuple(index: Any) -> tuple[Any, ...]:
    return index if isinstance(index, tuple) else (index,)


def basic_geometry(g: Geometry, items: tuple[Any, ...]) -> Geometry:
    """The view geometry selected by a tuple of basic indices."""
    ndim = len(g.sizes)
    consumed = sum(1 for it in items if it is not None and it is not Ellipsis)
    if consumed > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    dim = 0
    for item in items:
        if item is None:
            g = vg.unsqueeze(g, dim)
            dim += 1
        elif item is Ellipsis:  # PyTorch lets every ellipsis skip the unindexed dims
            dim += ndim - consumed
        elif isinstance(item, slice):
            size = g.sizes[dim]
            if item.step is not None and item.step <= 0:
                raise ValueError(
                    "step must be greater than zero" if item.step < 0 else "slice step cannot be zero"
                )
            start, stop, step = item.indices(size)
            g = vg.slice_dim(g, dim, start, max(start, stop), step)
            dim += 1
        else:
            index, size = int(item), g.sizes[dim]
            if not -size <= index < size:
                raise IndexError(
                    f"index {index} is out of bounds for dimension {dim} with size {size}"
                )
            g = vg.select(g, dim, index)
    return g


def _numpy_index(items: tuple[Any, ...]) -> tuple[Any, ...]:
    converted = []
    for item in items:
        if isinstance(item, Tensor):
            if item.dtype not in (dtypes.int64, dtypes.bool_):
                raise IndexError(
                    f"tensors used as indices must be long or bool tensors, got {item.dtype.name}"
                )
            item = item.numpy()
        elif not (_is_basic(item) or isinstance(item, (bool, np.bool_, list, np.ndarray))):
            raise IndexError(f"{_VALID} (got {type(item).__name__})")
        converted.append(item)
    return tuple(converted)


def getitem(self: Tensor, index: Any) -> Tensor:
    items = _as_tuple(index)
    if all(_is_basic(it) for it in items):
        return self._alias(basic_geometry(self._geometry, items))
    from .creation import from_numpy_copy

    return from_numpy_copy(self.numpy()[_numpy_index(items)])


def setitem(self: Tensor, index: Any, value: Any) -> None:
    items = _as_tuple(index)
    is_scalar = not isinstance(value, Tensor) and isinstance(value, (numbers.Number, np.bool_))
    if all(_is_basic(it) for it in items):
        target = self._alias(basic_geometry(self._geometry, items))
        if is_scalar:
            fill_into(target, value, "__setitem__")
        else:
            copy_into(target, _value_tensor(value, self.dtype), "__setitem__")
        return
    np_index = _numpy_index(items)
    check_inplace(self, "__setitem__", order_dependent=not is_scalar)
    source = value if is_scalar else _value_tensor(value, self.dtype).numpy()
    try:
        self.numpy()[np_index] = source
    except ValueError as exc:  # NumPy checks shapes before writing anything
        raise RuntimeError(f"__setitem__: {exc}") from None
    self._storage.bump("__setitem__")


def _value_tensor(value: Any, dtype: np.dtype) -> Tensor:
    if isinstance(value, Tensor):
        return value
    from .creation import tensor

    return tensor(value, dtype=dtype)
