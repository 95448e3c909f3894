"""Sizes, strides and offsets: the arithmetic every strided tensor needs."""

from __future__ import annotations

import operator
from typing import Iterable, NamedTuple, Sequence


class Size(tuple):
    """A tensor's shape: a tuple of ints that prints as PyTorch's does, ``torch.Size([2, 3])``,
    so that an error message formatting a shape reads exactly as PyTorch's."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"torch.Size({list(self)})"

    def numel(self) -> int:
        return numel(self)


class Geometry(NamedTuple):
    """A view's place in its storage (PyTorch's ``TensorGeometry``), all in elements."""

    sizes: tuple[int, ...]
    strides: tuple[int, ...]
    storage_offset: int

    def numel(self) -> int:
        return numel(self.sizes)


def as_int(op: str, name: str, value: object) -> int:
    """``value`` as a Python int, refusing bools, floats and other non-integers."""
    if isinstance(value, bool) or not hasattr(type(value), "__index__"):
        raise TypeError(f"{op}: {name} must be an integer, got {type(value).__name__} ({value!r})")
    return operator.index(value)  # type: ignore[arg-type]


def as_int_tuple(op: str, name: str, values: Iterable[object]) -> tuple[int, ...]:
    return tuple(as_int(op, name, v) for v in values)


def numel(sizes: Sequence[int]) -> int:
    n = 1
    for s in sizes:
        n *= s
    return n


def _numel_overflows(sizes: Sequence[int]) -> bool:
    """PyTorch's ``safe_compute_numel``: sizes multiplied left to right in uint64 must not
    overflow it, even when a later size is 0, and the product must fit in int64
    (``(2, 2**62, 0)`` is fine, ``(2**62, 4, 0)`` and ``(2, 2**62)`` are not)."""
    n = 1
    for s in sizes:
        n *= s
        if n >= 2**64:
            return True
    return n >= 2**63


def check_numel(op: str, sizes: Sequence[int]) -> None:
    """Refuse sizes whose element count PyTorch cannot compute (``_numel_overflows``)."""
    if _numel_overflows(sizes):
        raise RuntimeError(f"{op}: the product of sizes {list(sizes)} overflows (taken left to "
                           "right in uint64, as PyTorch does); expected every partial product "
                           "below 2**64 and the whole below 2**63")


def contiguous_strides(sizes: Sequence[int]) -> tuple[int, ...]:
    """Row-major strides; a size-0 or size-1 dimension gets the stride it would have at size 1."""
    strides = [1] * len(sizes)
    acc = 1
    for d in range(len(sizes) - 1, -1, -1):
        strides[d] = acc
        acc *= max(sizes[d], 1)
    return tuple(strides)


def is_contiguous(sizes: Sequence[int], strides: Sequence[int]) -> bool:
    """PyTorch's rule: empty tensors are contiguous; size-1 dimensions' strides are ignored."""
    if numel(sizes) == 0:
        return True
    expected = 1
    for size, stride in zip(reversed(sizes), reversed(strides)):
        if size != 1:
            if stride != expected:
                return False
            expected *= size
    return True


def is_non_overlapping_and_dense(sizes: Sequence[int], strides: Sequence[int]) -> bool:
    """True when the elements fill ``numel`` consecutive storage slots in some dimension order
    (PyTorch's flag, which an empty tensor has, being contiguous)."""
    if numel(sizes) == 0:
        return True
    if len(sizes) == 1:
        return sizes[0] < 2 or strides[0] == 1
    order = sorted(range(len(sizes)), key=lambda d: (strides[d], sizes[d]))
    expected = 1
    for d in order:
        if sizes[d] == 1:
            continue
        if sizes[d] == 0:
            return True
        if strides[d] != expected:
            return False
        expected *= sizes[d]
    return True


def required_storage(sizes: Sequence[int], strides: Sequence[int], offset: int) -> int:
    """Number of storage elements a geometry needs: one past its last reachable element."""
    if numel(sizes) == 0:
        return 0
    return offset + sum((s - 1) * st for s, st in zip(sizes, strides)) + 1


def check_in_bounds(
    op: str, sizes: Sequence[int], strides: Sequence[int], offset: int, storage_size: int
) -> None:
    """Refuse a geometry with negative entries or reaching past the end of its storage."""
    if len(sizes) != len(strides):
        raise RuntimeError(
            f"{op}: got {len(sizes)} sizes {list(sizes)} but {len(strides)} strides {list(strides)}; "
            "expected one stride per dimension"
        )
    bad = [s for s in sizes if s < 0]
    if bad:
        raise RuntimeError(f"{op}: sizes must be non-negative, got {list(sizes)}")
    if any(st < 0 for st in strides):
        raise RuntimeError(
            f"{op}: Negative strides are not supported, got strides: {list(strides)}"
        )
    if offset < 0:
        raise RuntimeError(f"{op}: storage offset must be non-negative, got {offset}")
    if max((*sizes, *strides, offset), default=0) >= 2**63:  # PyTorch: TypeError on parsing
        raise RuntimeError(f"{op}: sizes {list(sizes)}, strides {list(strides)} and storage "
                           f"offset {offset} must each be below 2**63 (they are int64)")
    check_numel(op, sizes)
    needed = required_storage(sizes, strides, offset)
    if needed > storage_size:
        raise RuntimeError(
            f"{op}: sizes {list(sizes)}, strides {list(strides)} and storage offset {offset} "
            f"need a storage of {needed} elements, but the storage has {storage_size}"
        )


def wrap_dim(dim: object, ndim: int, op: str = "", wrap_scalar: bool = True) -> int:
    """A dimension index in ``[-ndim, ndim)`` made non-negative (0-d tensors accept -1 and 0)."""
    dim = as_int(op or "dim", "dim", dim)
    n = ndim if ndim > 0 or not wrap_scalar else 1
    if n <= 0:
        raise IndexError(
            f"{op + ': ' if op else ''}Dimension specified as {dim} but tensor has no dimensions"
        )
    if not -n <= dim < n:
        raise IndexError(
            f"{op + ': ' if op else ''}Dimension out of range "
            f"(expected to be in range of [{-n}, {n - 1}], but got {dim})"
        )
    return dim + n if dim < 0 else dim
