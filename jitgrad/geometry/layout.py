"""Memory layout of new tensors: PyTorch's rules for which strides an op's output gets."""

from __future__ import annotations

from typing import Sequence

from .strided import contiguous_strides, is_contiguous, is_non_overlapping_and_dense, numel

Geom = tuple[tuple[int, ...], tuple[int, ...]]


def _broadcast_strides(sizes: tuple[int, ...], strides: tuple[int, ...], shape: tuple[int, ...]) -> tuple[int, ...]:
    """Strides seen at ``shape`` (stride 0 on broadcast and missing dims)."""
    lead = len(shape) - len(sizes)
    return (0,) * lead + tuple(
        0 if n == 1 and m != 1 else st for n, m, st in zip(sizes, shape[lead:], strides)
    )


# The dims of a channels-last layout, innermost first: C, then the spatial dims from the
# last, then N (``channels_last`` for 4-D tensors, ``channels_last_3d`` for 5-D).
_CHANNELS_LAST_ORDER = {4: (1, 3, 2, 0), 5: (1, 4, 3, 2, 0)}


def is_channels_last(sizes: Sequence[int], strides: Sequence[int]) -> bool:
    """PyTorch's ``is_contiguous(memory_format=channels_last)`` (4-D) or ``channels_last_3d``
    (5-D): the dims in channels-last order are row-major (size-1 dims' strides ignored);
    False for any other number of dims."""
    order = _CHANNELS_LAST_ORDER.get(len(sizes))
    if order is None:
        return False
    expected = 1
    for d in order:
        if sizes[d] != 1:
            if strides[d] != expected:
                return False
            expected *= sizes[d]
    return True


def strides_like_channels_last(sizes: Sequence[int], strides: Sequence[int]) -> bool:
    """PyTorch's ``is_channels_last_strides_2d`` / ``_3d`` (4-D / 5-D), what
    ``suggest_memory_format`` asks: the strides grow in channels-last order, not necessarily
    densely; ambiguous geometries (a trivial channel stride, N111 with equal strides) count as
    row-major."""
    order = _CHANNELS_LAST_ORDER.get(len(sizes))
    if order is None or strides[1] == 0:
        return False
    least = 0
    for d in order:
        if sizes[d] == 0 or strides[d] < least:
            return False
        if d == 0 and least == strides[1]:
            return False
        least = strides[d] * (sizes[d] if sizes[d] > 1 else 1)
    return True


def channels_last_strides(sizes: Sequence[int]) -> tuple[int, ...]:
    """The strides of a dense channels-last tensor of ``sizes`` (4-D or 5-D; a size-0 dim
    counts as 1, as in ``contiguous_strides``)."""
    strides = [0] * len(sizes)
    acc = 1
    for d in _CHANNELS_LAST_ORDER[len(sizes)]:
        strides[d] = acc
        acc *= max(sizes[d], 1)
    return tuple(strides)


def _fast_setup(shape: tuple[int, ...], operands: Sequence[Geom]) -> tuple[int, ...] | None | bool:
    """TensorIterator's ``fast_set_up``, for operands that all have the output's shape: None
    (contiguous) when every operand is contiguous (PyTorch's ``is_contiguous``: size-1 dims'
    strides do not count); channels-last strides when every one is channels-last (4-D); the
    operands' strides when all are dense and non-overlapping with the same strides; False
    when none of these holds (the general rule decides)."""
    first = operands[0][1]
    if is_contiguous(shape, first) and all(is_contiguous(sz, st) for sz, st in operands):
        return None
    if len(shape) == 4 and all(is_channels_last(sz, st) for sz, st in operands):
        return channels_last_strides(shape)
    # (dense and non-overlapping needs the elements to span exactly numel slots: a cheap test first)
    span = sum((n - 1) * st for n, st in zip(shape, first) if n > 1) + 1
    if span == numel(shape) and all(st == first for _, st in operands) and \
            is_non_overlapping_and_dense(shape, first):
        return tuple(first)
    return False


def output_strides(shape: tuple[int, ...], operands: Sequence[Geom]) -> tuple[int, ...] | None:
    """The strides PyTorch's TensorIterator gives a new elementwise output, or None for
    contiguous: the output follows its inputs' memory layout (``x.t().sin()`` is transposed
    too), so that ``stride()``, ``view`` and ``as_strided`` see what they see in PyTorch.

    ``operands`` are the geometries of the tensor operands, Python numbers the op wraps as
    tensors (``a * 2.0``) counted as 0-d ``((), ())``: when every operand has the output's
    shape, TensorIterator's fast setup decides (``_fast_setup``). Otherwise dims are ordered
    fastest-first by comparing, for each pair, the strides of the first
    operand that tells them apart (broadcast dims are skipped; equal strides put the
    smaller dim first) — PyTorch's ``reorder_dimensions`` insertion sort."""
    ndim = len(shape)
    if ndim < 2 or not operands:
        return None
    if all(sizes == shape for sizes, _ in operands):
        fast = _fast_setup(shape, operands)
        if fast is not False:
            return None if fast is None or fast == contiguous_strides(shape) else fast
    strides = [_broadcast_strides(sz, st, shape) for sz, st in operands if sz]

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
