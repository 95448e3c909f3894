"""Pure-Python validation and simplification of kernel arguments.

Every public kernel function runs its arguments through these helpers before any jitted
code sees them, which is what makes ``boundscheck=False`` in ``_policy.py`` safe:

* buffers are 1-D C-contiguous ``numpy.ndarray`` of a supported dtype;
* sizes, strides and offsets are Python/NumPy integers (never bool, float or None),
  non-negative, and ``len(sizes) == len(strides)``;
* a non-empty geometry's largest reachable element ``offset + sum((size-1)*stride)``
  (computed in Python ints, so it cannot overflow) lies inside the buffer.

Then :func:`coalesce` drops size-1 dims, orders dims so the destination is walked in
memory order, and merges dims that are contiguous for every operand. Metadata stays in
tuples/lists (cheap); one int64 ``geom`` array is built just before the jitted call.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

SUPPORTED_DTYPES: tuple[np.dtype, ...] = (
    np.dtype(np.float32), np.dtype(np.float64), np.dtype(np.int64), np.dtype(np.bool_))
_SUPPORTED = frozenset(SUPPORTED_DTYPES)
_NAMES = "float32, float64, int64, bool"
# Geometries with this many elements or more are refused: every count must fit in int64.
MAX_NUMEL = 2**62


def check_buffer(kernel: str, role: str, buf: Any, *, writeable: bool = False) -> np.ndarray:
    """Return ``buf`` as a plain ndarray if it is a usable 1-D buffer, else raise."""
    if not isinstance(buf, np.ndarray):
        raise TypeError(f"{kernel}: {role} buffer must be a numpy.ndarray, "
                        f"got {type(buf).__name__}")
    if buf.dtype not in _SUPPORTED:
        raise TypeError(f"{kernel}: {role} buffer dtype must be one of {_NAMES}, got {buf.dtype}")
    if buf.ndim != 1:
        raise ValueError(f"{kernel}: {role} buffer must be 1-D, got shape {buf.shape}")
    if not buf.flags.c_contiguous:
        raise ValueError(f"{kernel}: {role} buffer must be C-contiguous, "
                         f"got byte stride {buf.strides[0]} for itemsize {buf.itemsize}")
    if writeable and not buf.flags.writeable:
        raise ValueError(f"{kernel}: {role} buffer is read-only, expected a writeable array")
    return buf if type(buf) is np.ndarray else buf.view(np.ndarray)


def as_index(kernel: str, what: str, x: Any) -> int:
    """``x`` as a Python int; only int and numpy integer types are accepted (not bool)."""
    if type(x) is int:
        return x
    if isinstance(x, np.integer):
        return int(x)
    raise TypeError(f"{kernel}: {what} must be an integer, got {type(x).__name__} {x!r}")


def as_index_tuple(kernel: str, what: str, seq: Any) -> tuple[int, ...]:
    """``seq`` as a tuple of Python ints (see :func:`as_index`)."""
    if isinstance(seq, (str, bytes)):
        raise TypeError(f"{kernel}: {what} must be a sequence of integers, got {seq!r}")
    try:
        t = tuple(seq)
    except TypeError:
        raise TypeError(f"{kernel}: {what} must be a sequence of integers, "
                        f"got {type(seq).__name__}") from None
    for x in t:
        if type(x) is not int:
            return tuple(as_index(kernel, f"every entry of {what}", x) for x in t)
    return t


def check_geometry(kernel: str, role: str, buf_len: int, offset: int,
                   sizes: tuple[int, ...], strides: tuple[int, ...]) -> int:
    """Raise unless the geometry stays inside a buffer of ``buf_len`` elements; return numel."""
    if len(sizes) != len(strides):
        raise ValueError(f"{kernel}: {role} has {len(strides)} strides {strides} "
                         f"but {len(sizes)} sizes {sizes}")
    for n in sizes:
        if n < 0:
            raise ValueError(f"{kernel}: sizes must be >= 0, got {sizes}")
    for st in strides:
        if st < 0:
            raise ValueError(f"{kernel}: {role} strides must be >= 0, got {strides}")
    if offset < 0:
        raise ValueError(f"{kernel}: {role} offset must be >= 0, got {offset}")
    numel = 1
    for n in sizes:
        numel *= n
    if numel == 0:  # touches nothing; PyTorch's slicing may leave the offset past the end
        return 0
    reach = offset
    for n, st in zip(sizes, strides):
        reach += (n - 1) * st
    if reach >= buf_len:
        raise IndexError(f"{kernel}: {role} geometry reaches element {reach} but the buffer "
                         f"has {buf_len} elements (sizes {sizes}, strides {strides}, "
                         f"offset {offset})")
    if numel >= MAX_NUMEL:
        raise ValueError(f"{kernel}: {role} geometry has {numel} elements, expected fewer "
                         f"than 2**62 (sizes {sizes})")
    return numel


def coalesce(sizes: Sequence[int], strides: Sequence[Sequence[int]], *,
             reorder: bool = True, drop_broadcast: bool = False
             ) -> tuple[list[int], list[list[int]]]:
    """Simplify an elementwise geometry shared by several operands (``strides[0]`` is the
    destination): drop size-1 dims (and, with ``drop_broadcast``, dims where every operand
    has stride 0 -- only valid for idempotent writes); with ``reorder`` sort dims by
    destination stride, largest first (ties: by the other operands' strides), applying the
    same permutation to every operand; then merge neighbours i, i+1 whenever
    ``stride[i] == stride[i+1] * size[i+1]`` for every operand. Always returns >= 1 dim.
    """
    # Plain loops rather than generators/any(): this runs on every kernel call.
    dims = [k for k in range(len(sizes)) if sizes[k] != 1]
    if drop_broadcast:
        kept = []
        for k in dims:
            for st in strides:
                if st[k]:
                    kept.append(k)
                    break
        dims = kept
    if reorder and len(dims) > 1:
        dst = strides[0]
        for i in range(len(dims) - 1):
            if dst[dims[i]] <= dst[dims[i + 1]]:  # not strictly decreasing yet: sort
                dims.sort(key=lambda k: tuple([-st[k] for st in strides]))
                break
    out_sizes: list[int] = []
    out_strides: list[list[int]] = [[] for _ in strides]
    pairs = list(zip(out_strides, strides))
    for k in dims:
        n = sizes[k]
        if out_sizes:
            for o, st in pairs:
                if o[-1] != st[k] * n:
                    break
            else:
                out_sizes[-1] *= n
                for o, st in pairs:
                    o[-1] = st[k]
                continue
        out_sizes.append(n)
        for o, st in pairs:
            o.append(st[k])
    if not out_sizes:
        return [1], [[0] for _ in strides]
    return out_sizes, out_strides


def order_for_transpose(sizes: list[int], dst: list[int], src: list[int]) -> None:
    """In place: if the layout is transpose-like (dst inner stride 1, src inner stride
    not 0/1, and some outer dim has src stride 1), move that dim next to the inner one so
    the copy kernel can walk (that dim, inner dim) planes with its tiled path."""
    nd = len(sizes)
    if nd < 2 or dst[-1] != 1 or src[-1] <= 1 or src[-2] == 1:
        return
    for k in range(nd - 2):
        if src[k] == 1:
            for lst in (sizes, dst, src):
                lst.insert(nd - 2, lst.pop(k))
            return


def dense_no_overlap(sizes: Sequence[int], strides: Sequence[int]) -> bool:
    """Sufficient test for 'no internal overlap', for dims already without size-1 entries
    and sorted by stride, largest first: each stride exceeds the span of the smaller ones."""
    span = 0
    for k in range(len(sizes) - 1, -1, -1):
        if sizes[k] == 1:
            continue
        if strides[k] <= span:
            return False
        span += (sizes[k] - 1) * strides[k]
    return True
