"""Moving data between strided regions of flat buffers, for the layers above the kernels.

Each function picks the cheaper engine: NumPy for small regions (a ufunc call costs ~1 us;
a kernel call, which validates and coalesces its geometry in Python first, ~6 us), the
Numba kernels for large ones. Both are memory-safe: NumPy checks a strided view against
its buffer when it is made (``np.ndarray(buffer=...)`` raises rather than overrun), and the
kernels validate before they run.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from . import dtypes, kernels
from ._quiet import IGNORE_ALL, QUIET, QUIET_RUN, quiet_call
from .geometry.strided import is_non_overlapping_and_dense, numel

# At and below this many elements NumPy is cheaper than a kernel call.
SMALL = 4096

Ints = Sequence[int]

# NumPy keeps byte strides in a C ``npy_intp``: a larger one (possible in a valid geometry
# with a huge stride over a size-1 dim) must go to the kernels.
_MAX_BYTE_STRIDE = 2**56

_F64 = np.dtype(np.float64)


def _numpy_ok(n: int, *stride_lists: Ints) -> bool:
    return n <= SMALL and all(abs(s) < _MAX_BYTE_STRIDE for st in stride_lists for s in st)


def _use_numpy(n: int, buffers: tuple[np.ndarray, ...], *stride_lists: Ints) -> bool:
    """NumPy for small regions, and always for dtypes the kernels are not compiled for
    (float16, int32, ...: ``dtypes.KERNEL``); the kernels would refuse those buffers."""
    if n <= SMALL:  # (_numpy_ok, spelled out: every gradient scatter asks)
        small = True
        for st in stride_lists:
            for s in st:
                if not -_MAX_BYTE_STRIDE < s < _MAX_BYTE_STRIDE:
                    small = False
        if small:
            return True
    for b in buffers:
        if b.dtype not in dtypes.KERNEL:
            return True
    return False


def as_array(buffer: np.ndarray, offset: int, strides: Ints, sizes: Ints) -> np.ndarray:
    """The region as a NumPy view (NumPy refuses one that does not fit in ``buffer``)."""
    ndim = len(sizes)
    if ndim == 1:  # a row or a column: a slice of the buffer, checked to fit
        n, step = sizes[0], strides[0]
        if 0 < n and 0 < step < _MAX_BYTE_STRIDE and 0 <= offset:
            end = offset + (n - 1) * step + 1
            if end <= buffer.shape[0]:
                return buffer[offset:end:step]
    elif ndim == 2 and strides[1] == 1:  # a block of a row-major table: rows of its rows
        (n0, n1), width = sizes, strides[0]
        if 1 < n0 and 0 < n1 <= width < _MAX_BYTE_STRIDE and 0 <= offset and buffer.shape[0] % width == 0:
            row, col = divmod(offset, width)
            if col + n1 <= width and (row + n0) * width <= buffer.shape[0]:
                return buffer.reshape(-1, width)[row:row + n0, col:col + n1]
    if not buffer.shape[0] and numel(sizes):  # (NumPy accepts any view of an empty buffer)
        raise ValueError(
            f"region of sizes {list(sizes)} at offset {offset} outside an empty buffer; expected "
            "a region inside the buffer"
        )
    item = buffer.itemsize
    return np.ndarray(
        tuple(sizes), buffer.dtype, buffer=buffer, offset=offset * item,
        strides=tuple(0 if n == 1 else s * item for n, s in zip(sizes, strides)),
    )


def copy_region(
    dst: np.ndarray, dst_offset: int, dst_strides: Ints,
    src: np.ndarray, src_offset: int, src_strides: Ints, sizes: Ints,
) -> None:
    """``dst[region] = src[region]`` with dtype conversion (regions must not partly overlap)."""
    if not sizes and dst.dtype is _F64 and src.dtype is _F64 and 0 <= dst_offset < dst.shape[0] \
            and 0 <= src_offset < src.shape[0]:
        dst[dst_offset] = src.item(src_offset)  # one float64 element: its bits as they are
        return
    if len(sizes) < 2 and dst.dtype == src.dtype:  # a row, a column or a cell of a table
        n, step, src_step = (sizes[0], dst_strides[0], src_strides[0]) if sizes else (1, 1, 1)
        if 0 < n <= SMALL and 0 < step < _MAX_BYTE_STRIDE and 0 <= src_step < _MAX_BYTE_STRIDE:
            end, src_end = dst_offset + (n - 1) * step + 1, src_offset + (n - 1) * src_step + 1
            if 0 <= dst_offset and end <= dst.shape[0] and 0 <= src_offset and src_end <= src.shape[0]:
                # one slice assignment: no region views made, and no cast to quiet (a
                # broadcast source, stride 0 (``sum``'s gradient), is its one element)
                dst[dst_offset:end:step] = src[src_offset:src_end:src_step or 1]
                return
    n = numel(sizes)
    if n == 0:
        return
    if _use_numpy(n, (dst, src), dst_strides, src_strides):
        token = QUIET.set(IGNORE_ALL)  # a cast that overflows gives inf silently, as in PyTorch
        try:
            np.copyto(
                as_array(dst, dst_offset, dst_strides, sizes),
                as_array(src, src_offset, src_strides, sizes), casting="unsafe",
            )
        finally:
            QUIET.reset(token)
    else:
        kernels.strided_copy(dst, dst_offset, dst_strides, src, src_offset, src_strides, sizes)


def add_region(
    dst: np.ndarray, dst_offset: int, dst_strides: Ints,
    src: np.ndarray, src_offset: int, src_strides: Ints, sizes: Ints,
) -> None:
    """``dst[region] += src[region]``; ``dst``'s region must not overlap itself."""
    if not sizes and dst.dtype is _F64 and src.dtype is _F64 and 0 <= dst_offset < dst.shape[0] \
            and 0 <= src_offset < src.shape[0]:
        # one float64 element (a table's cell, a vector's entry): Python's float addition is
        # IEEE double addition, as NumPy's, and never warns (inf + -inf is nan quietly); a
        # nan result goes to NumPy's loop below, whose choice of nan payload (of two nans
        # added) can differ from the C compiler's
        total = dst.item(dst_offset) + src.item(src_offset)
        if total == total:
            dst[dst_offset] = total
            return
    if len(sizes) < 2 and dst.dtype is src.dtype:  # a row, a column, an element: slices
        n, step, src_step = (sizes[0], dst_strides[0], src_strides[0]) if sizes else (1, 1, 1)
        if 0 < n <= SMALL and 0 < step < _MAX_BYTE_STRIDE and 0 <= src_step < _MAX_BYTE_STRIDE:
            end, src_end = dst_offset + (n - 1) * step + 1, src_offset + (n - 1) * src_step + 1
            if 0 <= dst_offset and end <= dst.shape[0] and 0 <= src_offset and src_end <= src.shape[0]:
                out = dst[dst_offset:end:step]
                values = src[src_offset:src_end:src_step or 1]  # (stride 0: one, broadcast)
                try:  # inf + -inf is nan, silently, as in PyTorch (``out`` positional: cheaper)
                    QUIET_RUN(np.add, out, values, out)
                except RuntimeError:  # (another thread is in QUIET_RUN's context: see ``_quiet``)
                    quiet_call(np.add, out, values, out)
                return
    if len(sizes) == 2 and dst.dtype is src.dtype and dst_strides[1] == 1:
        # a block of a table from a contiguous gradient (a 2-D stepper's slice): the block's
        # view (as_array checks it) and the gradient's rows, reshaped
        n0, n1 = sizes
        src_end = src_offset + n0 * n1
        if 0 < n0 and 0 < n1 and n0 * n1 <= SMALL and src_strides == (n1, 1) and 0 <= src_offset \
                and src_end <= src.shape[0] and dst_strides[0] < _MAX_BYTE_STRIDE:
            out = as_array(dst, dst_offset, dst_strides, sizes)
            token = QUIET.set(IGNORE_ALL)  # inf + -inf is nan, silently, as in PyTorch
            try:
                np.add(out, src[src_offset:src_end].reshape(n0, n1), out=out)
            finally:
                QUIET.reset(token)
            return
    n = numel(sizes)
    if n == 0:
        return
    if _use_numpy(n, (dst, src), dst_strides, src_strides):
        out = as_array(dst, dst_offset, dst_strides, sizes)
        token = QUIET.set(IGNORE_ALL)  # inf + -inf is nan, silently, as in PyTorch
        try:
            np.add(out, as_array(src, src_offset, src_strides, sizes), out=out, casting="unsafe")
        finally:
            QUIET.reset(token)
    else:
        kernels.strided_add(dst, dst_offset, dst_strides, src, src_offset, src_strides, sizes)


def row_copy(buffer: np.ndarray, offset: int, strides: Ints, sizes: Ints) -> np.ndarray | None:
    """A small 1-D region (a row or a column) or one element copied into a new flat buffer
    of its own, by one slice copy; None for any other region."""
    if len(sizes) < 2:
        n, step = (sizes[0], strides[0]) if sizes else (1, 1)
        if 0 < n <= SMALL and 0 < step < _MAX_BYTE_STRIDE and 0 <= offset:
            end = offset + (n - 1) * step + 1
            if end <= buffer.shape[0]:
                return buffer[offset:end:step].copy()
    return None


def region_offsets(offset: int, strides: Ints, sizes: Ints) -> np.ndarray:
    """Every element's position in the buffer, in the region's row-major order."""
    index = np.full(tuple(sizes), offset, dtype=np.int64)
    for d, (n, s) in enumerate(zip(sizes, strides)):
        shape = [1] * len(sizes)
        shape[d] = n
        index = index + (np.arange(n, dtype=np.int64) * s).reshape(shape)
    return index.reshape(-1)


def scatter_add(dst: np.ndarray, offset: int, strides: Ints, sizes: Ints, values: Any) -> None:
    """``dst[region] += values`` for a region whose elements may alias each other: the
    contributions to one position all add up (unbuffered ``np.add.at``)."""
    np.add.at(dst, region_offsets(offset, strides, sizes), np.ascontiguousarray(values).reshape(-1))


def fill_region(dst: np.ndarray, offset: int, strides: Ints, sizes: Ints, value: Any) -> None:
    if len(sizes) == 1 and 0 < sizes[0] <= SMALL and -_MAX_BYTE_STRIDE < strides[0] < _MAX_BYTE_STRIDE:
        # a row or a column (``_use_numpy``'s case): a slice of the buffer (as_array's, here
        # for a positive step)
        n, step = sizes[0], strides[0]
        end = offset + (n - 1) * step + 1
        if 0 < step and 0 <= offset and end <= dst.shape[0]:
            dst[offset:end:step].fill(value)
        else:
            as_array(dst, offset, strides, sizes).fill(value)
        return
    if not sizes and 0 <= offset < dst.shape[0]:  # one element (a table's cell)
        if dst.dtype is _F64 and value.__class__ in (int, float):
            dst[offset] = value  # (what fill stores)
        else:
            dst[offset:offset + 1].fill(value)
        return
    n = numel(sizes)
    if n == 0:
        return
    if _use_numpy(n, (dst,), strides):
        as_array(dst, offset, strides, sizes).fill(value)
    else:
        kernels.fill(dst, offset, strides, sizes, value)


def has_overlap(sizes: Ints, strides: Ints) -> bool:
    """Whether two indices of the geometry reach one element (exact; cheap when dense or
    when each stride exceeds the span of the dimensions after it, as in any basic-indexing
    view of a row-major tensor)."""
    span = 0
    for k in range(len(sizes) - 1, -1, -1):
        n = sizes[k]
        if n == 1:
            continue
        if n == 0:
            return False
        if strides[k] <= span:
            break
        span += (n - 1) * strides[k]
    else:
        return False
    if is_non_overlapping_and_dense(sizes, strides):
        return False
    return kernels.has_internal_overlap(sizes, strides)
