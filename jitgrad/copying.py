"""Data-only copies and writes: ``clone``, ``contiguous``, the data movement of ``copy_``
and ``fill_`` (whose autograd side is ``ops/assignment.py``), and the guard every in-place
write passes.

Every in-place write here bumps the storage's version counter exactly once, after the data is
written, and writes nothing when it raises (all checks run before the kernel).
"""

from __future__ import annotations

import numbers

import numpy as np

from . import dtypes, kernels, regions
from .geometry import check_broadcastable_to, numel
from .geometry import views as vg
from .geometry.layout import preserve_strides
from .storage import Storage, allocate
from .tensor import Tensor


def empty(sizes: tuple[int, ...], dtype: np.dtype) -> Tensor:
    return Tensor._from_buffer(allocate(numel(sizes), dtype), sizes)


def _empty_like(
    self: Tensor, dtype: np.dtype, contiguous: bool, strides: tuple[int, ...] | None = None
) -> Tensor:
    """A new tensor of ``self``'s shape: contiguous, with ``strides`` (dense ones), or laid
    out as PyTorch's ``preserve_format`` would (same strides when ``self`` is dense)."""
    if contiguous:
        return empty(self._sizes, dtype)
    if strides is None:
        strides = preserve_strides(self._sizes, self._strides)
    return Tensor._make(Storage._fresh(allocate(numel(self._sizes), dtype)), self._sizes, strides)


def clone(self: Tensor, contiguous: bool = False, strides: tuple[int, ...] | None = None) -> Tensor:
    """A copy with its own storage, keeping ``self``'s memory layout unless ``contiguous``
    or given dense ``strides`` (a memory format's)."""
    if not self._sizes:  # one element (a DP table's cell): no layout to choose, one copy
        start = self._offset
        return Tensor._make(Storage._fresh(self._storage.buffer[start:start + 1].copy()), (), ())
    out = _empty_like(self, self.dtype, contiguous, strides)
    _copy_region(out, self)
    return out


def contiguous(self: Tensor) -> Tensor:
    return self if self.is_contiguous() else clone(self, contiguous=True)


def to_dtype_copy(self: Tensor, dtype: np.dtype, strides: tuple[int, ...] | None = None) -> Tensor:
    """A copy converted to ``dtype`` (NumPy's ``astype`` casting), layout preserved or given
    dense ``strides``."""
    out = _empty_like(self, dtype, False, strides)
    _copy_region(out, self)
    return out


def _copy_region(dst: Tensor, src: Tensor) -> None:
    """Kernel call for same-shaped ``dst``/``src`` (``src`` may already be expanded)."""
    n = numel(dst._sizes)
    if n == 0:  # an empty view may sit past the end of its storage
        return
    dst_buffer, src_buffer = dst._storage.buffer, src._storage.buffer
    if n == 1 and dst_buffer.dtype == src_buffer.dtype:  # one element (a DP table's cell)
        dst_buffer[dst._offset] = src_buffer[src._offset]
        return
    regions.copy_region(
        dst._storage.buffer, dst._offset, dst._strides,
        src._storage.buffer, src._offset, src._strides,
        dst._sizes,
    )


def check_inplace(self: Tensor, op: str, order_dependent: bool = True) -> None:
    """Refuse an in-place write into read-only memory, or into a destination whose elements
    alias each other when the result would depend on the order of the writes."""
    check_inplace_geometry(self._storage, self._sizes, self._strides, op, order_dependent)


def check_inplace_geometry(
    storage: Storage, sizes: tuple[int, ...], strides: tuple[int, ...], op: str,
    order_dependent: bool = True,
) -> None:
    """``check_inplace`` for a destination given by its storage and geometry (no tensor)."""
    storage.check_writable(op)
    if order_dependent and regions.has_overlap(sizes, strides):
        raise RuntimeError(
            f"{op}: unsupported operation: more than one element of the written-to tensor refers "
            f"to a single memory location (sizes {list(sizes)}, strides "
            f"{list(strides)}), so the result would depend on the order of the writes. "
            "Please clone() the tensor before performing the operation."
        )


def copy_into(self: Tensor, src: Tensor, op: str, checked: bool = False) -> Tensor:
    """``copy_`` under the name of the user-facing ``op`` (``copy_``, ``__setitem__``);
    ``checked``: the caller has just run ``check_inplace`` with the same arguments."""
    if not isinstance(src, Tensor):
        raise TypeError(f"{op}(): argument 'src' must be a Tensor, got {type(src).__name__}")
    sizes = self._sizes
    if src._sizes != sizes:
        check_broadcastable_to(op, src._sizes, sizes)
    one_source = numel(src._sizes) == 1
    if not checked:  # one source element written everywhere cannot depend on the write order
        check_inplace(self, op, order_dependent=not one_source)
    dst_buffer, src_buffer = self._storage.buffer, src._storage.buffer
    if one_source and numel(sizes) == 1 and dst_buffer.dtype == src_buffer.dtype \
            and src_buffer is not dst_buffer:
        # one element into one element (a DP table's cell): no region views, no casts
        dst_buffer[self._offset] = src_buffer[src._offset]
        self._storage.bump(op)
        return self
    if src._sizes == sizes:
        src_strides, src_offset = src._strides, src._offset
    else:
        source = vg.expand(src._geometry, sizes)
        src_strides, src_offset = source.strides, source.storage_offset
    same_memory = src._storage.same_memory(self._storage)  # also x and x.data
    if numel(sizes) == 0 or (same_memory and src_offset == self._offset and src_strides == self._strides):
        pass  # nothing to move (an empty view may even sit past the end of its storage)
    elif same_memory and kernels.regions_overlap(
        self._offset, sizes, self._strides, src_offset, sizes, src_strides,
    ) and not kernels.shared_only_at_same_index(self._offset, self._strides, src_offset, src_strides, sizes):
        # (an element both read and written at the same index, x[:, 0] = x[0], is copied onto
        # itself: the result cannot depend on the order of the writes)
        raise RuntimeError(
            f"{op}: unsupported operation: some elements of the input tensor and the written-to "
            f"tensor refer to a single memory location (source sizes {list(sizes)}, strides "
            f"{list(src_strides)}, offset {src_offset}; destination sizes {list(sizes)}, "
            f"strides {list(self._strides)}, offset {self._offset}). Please clone() the source "
            "first."
        )
    else:
        regions.copy_region(
            dst_buffer, self._offset, self._strides, src_buffer, src_offset, src_strides, sizes,
        )
    self._storage.bump(op)
    return self


def scalar_value(op: str, value: object) -> bool | int | float:
    """A Python scalar from a Python/NumPy scalar or a one-element 0-d tensor."""
    if isinstance(value, Tensor):
        if value.ndim != 0:
            raise RuntimeError(
                f"{op} only supports 0-dimension value tensor but got tensor with "
                f"{value.ndim} dimensions."
            )
        # read directly: an internal read, not the user's (jitgrad.compile traces ``item()``)
        return value._storage.buffer[value._offset].item()  # type: ignore[no-any-return]
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, numbers.Integral):
        dtypes.check_python_int(op, int(value))
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    raise TypeError(
        f"{op}(): expected a number (bool, int or float) or a 0-d tensor, "
        f"got {type(value).__name__}"
    )


def fill_scalar(op: str, value: object, dtype: np.dtype, count: int) -> bool | int | float | np.generic:
    """The scalar ``fill_`` writes into ``count`` elements of ``dtype``: a number checked
    against the dtype (PyTorch's overflow error; one float16 element is unchecked: inf), a
    0-d tensor's element converted as a copy converts it, unchecked (PyTorch reads it with
    ``item()`` into a Scalar of the tensor's type: 300 fills an int8 tensor with 44)."""
    scalar = scalar_value(op, value)
    if isinstance(value, Tensor):
        cell = np.empty(1, dtype)
        regions.copy_region(cell, 0, (1,), value._storage.buffer, value._offset, (1,), (1,))
        return cell[0]
    if type(scalar) is int and dtype.kind == "u" and -int(np.iinfo(dtype).max) <= scalar < 0:
        return scalar + int(np.iinfo(dtype).max) + 1  # PyTorch wraps it (``fill_(-1)``: 255 in uint8)
    if dtype == dtypes.float16 and count == 1 and not isinstance(scalar, bool):
        with np.errstate(over="ignore"):
            return float(np.float16(scalar))
    dtypes.check_scalar_fits(op, scalar, dtype)  # (65505 in float16: beyond, though it rounds)
    with np.errstate(invalid="raise", over="raise"):
        try:
            dtype.type(scalar)
        except (ValueError, OverflowError, FloatingPointError):
            raise RuntimeError(
                f"{op}: value {scalar!r} cannot be converted to {dtype.name} without overflow"
            ) from None
    return scalar


def fill_into(self: Tensor, value: object, op: str, checked: bool = False, wrapped: bool = False) -> Tensor:
    """``fill_``: the value ``fill_scalar`` gives, written everywhere; ``wrapped``: a number
    indexing assignment first makes a 0-d tensor of ``self``'s dtype (converted as one
    element: ``x[1:] = 1e300`` fills float16 with inf)."""
    scalar = fill_scalar(op, value, self.dtype, 1 if wrapped else numel(self._sizes))
    if not checked:
        check_inplace(self, op, order_dependent=False)
    if numel(self._sizes):  # an empty view may sit past the end of its storage
        regions.fill_region(self._storage.buffer, self._offset, self._strides, self._sizes, scalar)
    self._storage.bump(op)
    return self
