"""Memory layout of new tensors: PyTorch's rules for which strides an op's output gets."""

from __future__ import annotations

from typing import Sequence

from .strided import contiguous_strides, is_non_overlapping_and_dense

Geom = tuple[tuple[int, ...], tuple[int, ...]]


def _broadcast_strides(sizes: tuple[int, ...], strides: tuple[int, ...], shape: tuple[int, ...]) -> tuple[int, ...]:
    """Strides seen at ``shape`` (stride 0 on broadcast and missing dims)."""
    lead = len(shape) - len(sizes)
    return (0,) * lead + tuple(
        0 if n == 1 and m != 1 else st for n, m, st in zip(sizes, shape[lead:], strides)
    )


def output_strides(shape: tuple[int, ...], operands: Sequence[Geom]) -> tuple[int, ...] | None:
    """The strides PyTorch's TensorIterator gives a new elementwise output, or None for
    contiguous: the output follows its inputs' memory layout (``x.t().sin()`` is transposed
    too), so that ``stride()``, ``view`` and ``as_strided`` see what they see in PyTorch.

    Dims are ordered fastest-first by comparing, for each pair, the strides of the first
    operand that tells them apart (broadcast dims are skipped; equal strides put the
    smaller dim first) — PyTorch's ``reorder_dimensions`` insertion sort."""
    ndim = len(shape)
    if ndim < 2 or not operands:
        return None
    contiguous = contiguous_strides(shape)
    if all(sizes == shape and strides == contiguous for sizes, strides in operands):
        return None
    strides = [_broadcast_strides(sz, st, shape) for sz, st in operands]

    def should_swap(d0: int, d1: int) -> int:
        for st in strides:
            s0, s1 = st[d0], st[d1]
            if s0 == 0 or s1 == 0:
                continue
            if s0 < s1:
                return -1
            if s0 > s1:
                return 1
            if shape[d0] > shape[d1]:
                return 1
        return 0

    perm = list(range(ndim - 1, -1, -1))  # fastest first
    for i in range(1, ndim):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            c = should_swap(perm[d0], perm[d1])
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    if perm == list(range(ndim - 1, -1, -1)):
        return None
    out = [0] * ndim
    step = 1
    for d in perm:
        out[d] = step
        step *= shape[d]
    return tuple(out)


def preserve_strides(sizes: tuple[int, ...], strides: tuple[int, ...]) -> tuple[int, ...]:
    """Strides of a copy made with PyTorch's ``preserve_format`` (``clone``, ``to``,
    ``*_like``): the same strides when the source is dense and non-overlapping, else its
    dimension order made dense."""
    if is_non_overlapping_and_dense(sizes, strides):
        return tuple(strides)
    inferred = output_strides(sizes, [(sizes, strides)])
    return contiguous_strides(sizes) if inferred is None else inferred
