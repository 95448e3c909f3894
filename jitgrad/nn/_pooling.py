"""Max, average and adaptive pooling over 1 or 2 spatial dims, with PyTorch's nodes
(``MaxPool2DWithIndicesBackward0``, ``AvgPool2DBackward0``, ``AdaptiveAvgPool2DBackward0``,
``AdaptiveMaxPool2DBackward0``) and argument checks.

Every pool is described per spatial dim by a window table: ``pos[o, k]``, the input position
the ``k``-th element of output ``o``'s window reads, and ``valid[o, k]`` (False in padding or
past an adaptive window's end). The forward walks the window offsets in row-major order, one
NumPy gather of every output per offset, keeping a running maximum (PyTorch's rule: a later
element wins only when strictly greater or NaN; the index starts at the window's first
in-bounds element) or a running sum. Backward scatter-adds through ``index_put_zeros``, so
gradients of gradients come from its own backward (a gather).

The 1-d pools are the 2-d ones on ``input.unsqueeze(-2)``, as in PyTorch (hence the
``SqueezeBackward1`` / ``UnsqueezeBackward0`` around their nodes).
"""

from __future__ import annotations

import itertools
from typing import Any, Sequence

import numpy as np

from .. import dtypes
from ..autograd.graph import needs_grad, record
from ..autograd.node import Grads, Node
from ..ops.index_ops import index_put_zeros
from ..ops.operands import array_of, from_result
from ..tensor import Tensor

Windows = tuple[np.ndarray, np.ndarray]  # pos[o, k], valid[o, k]


# --- window tables --------------------------------------------------------------------------

def output_size(size: int, k: int, s: int, p: int, d: int, ceil_mode: bool) -> int:
    """PyTorch's ``pooling_output_shape``: a last window starting in the right padding is
    dropped in ceil mode."""
    numerator = size + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)
    out = numerator // s + 1
    if ceil_mode and (out - 1) * s >= size + p:
        out -= 1
    return out


def sliding_windows(size: int, out: int, k: int, s: int, p: int, d: int) -> Windows:
    pos = np.arange(out)[:, None] * s - p + np.arange(k)[None, :] * d
    return pos, (pos >= 0) & (pos < size)


def adaptive_windows(size: int, out: int) -> Windows:
    """Output ``o`` reads ``[floor(o * size / out), ceil((o + 1) * size / out))``."""
    o = np.arange(out)
    start = (o * size) // out
    end = -((-(o + 1) * size) // out)
    k = int((end - start).max()) if out else 0
    pos = start[:, None] + np.arange(k)[None, :]
    return pos, pos < end[:, None]


def _offsets(windows: Sequence[Windows], sizes: Sequence[int]) -> Any:
    """For each window offset (row-major): the gather index per dim, the flat input index
    ``(o0, o1)`` and the validity ``(o0, o1)``."""
    (p0, v0), (p1, v1) = windows
    for k0, k1 in itertools.product(range(p0.shape[1]), range(p1.shape[1])):
        i0, i1 = np.clip(p0[:, k0], 0, sizes[0] - 1), np.clip(p1[:, k1], 0, sizes[1] - 1)
        yield (i0[:, None], i1[None, :]), i0[:, None] * sizes[1] + i1[None, :], v0[:, k0][:, None] & v1[:, k1][None, :]


def _first_valid(windows: Sequence[Windows], sizes: Sequence[int]) -> np.ndarray:
    firsts = []
    for (pos, valid), size in zip(windows, sizes):
        k = valid.argmax(1)  # (a window wholly in the padding, which only max_pool1d lets through, is
        first = pos[np.arange(len(pos)), k] if len(pos) else np.zeros(0, np.int64)  # -inf at its nearest)
        firsts.append(np.clip(first, 0, size - 1))
    return firsts[0][:, None] * sizes[1] + firsts[1][None, :]


# --- forward kernels on plain arrays (batch dims flattened: x is (B, H, W)) ------------------

def max_over_windows(x: np.ndarray, windows: Sequence[Windows]) -> tuple[np.ndarray, np.ndarray]:
    """Running maximum and its flat input index (``H * W`` numbering)."""
    sizes = x.shape[1:]
    shape = (x.shape[0], len(windows[0][0]), len(windows[1][0]))
    best = np.full(shape, -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min, dtype=x.dtype)
    index = np.broadcast_to(_first_valid(windows, sizes), shape).copy()
    first = True
    for gather, flat, valid in _offsets(windows, sizes):
        v = x[(slice(None),) + gather]
        if first and valid.all():
            best[...] = v  # (the first offset of every window is in bounds: its element starts)
            first = False
            continue
        first = False
        better = (v > best) | np.isnan(v) if x.dtype.kind == "f" else v > best
        better &= valid
        np.copyto(best, v, where=better)
        np.copyto(index, np.broadcast_to(flat, shape), where=better)
    return best, index


def sum_over_windows(x: np.ndarray, windows: Sequence[Windows]) -> np.ndarray:
    sizes = x.shape[1:]
    total = np.zeros((x.shape[0], len(windows[0][0]), len(windows[1][0])), dtype=x.dtype)
    for gather, _, valid in _offsets(windows, sizes):
        total += np.where(valid, x[(slice(None),) + gather], 0)
    return total


def window_entries(windows: Sequence[Windows], sizes: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """The (output, input) flat index pairs of every in-bounds window element."""
    outs, ins = [], []
    n_out = np.arange(len(windows[0][0]) * len(windows[1][0])).reshape(len(windows[0][0]), len(windows[1][0]))
    for _, flat, valid in _offsets(windows, sizes):
        outs.append(n_out[valid])
        ins.append(np.broadcast_to(flat, valid.shape)[valid])
    if not outs:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    return np.concatenate(outs), np.concatenate(ins)


# --- nodes ----------------------------------------------------------------------------------

class MaxPool2DWithIndicesBackward0(Node):
    """The gradient goes to each window's maximum (scatter-added by the saved indices)."""

    def __init__(self, indices: np.ndarray, in_shape: tuple[int, ...]) -> None:
        super().__init__()
        self.indices, self.in_shape = indices, in_shape  # indices: (B, P), flat over H * W

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        g = grads[0]
        b, p = self.indices.shape
        rows = np.arange(b)[:, None]
        flat = index_put_zeros(g.reshape(b, p), (b, int(np.prod(self.in_shape[-2:]))),  # type: ignore[attr-defined]
                               (rows, self.indices))
        return (flat.reshape(self.in_shape),)  # type: ignore[attr-defined]


class AdaptiveMaxPool2DBackward0(MaxPool2DWithIndicesBackward0):
    pass


class AvgPool2DBackward0(Node):
    """Each output's gradient, divided by its divisor, added to every in-bounds element of
    its window."""

    def __init__(self, entries: tuple[np.ndarray, np.ndarray], divisor: np.ndarray,
                 in_shape: tuple[int, ...]) -> None:
        super().__init__()
        self.entries, self.divisor, self.in_shape = entries, divisor, in_shape

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        g = grads[0]
        outs, ins = self.entries
        b = int(np.prod(self.in_shape[:-2]))
        per_output = g.reshape(b, -1) / from_result(self.divisor.reshape(-1), g.dtype)  # type: ignore[attr-defined]
        spread = per_output[:, from_result(outs)]
        flat = index_put_zeros(spread, (b, int(np.prod(self.in_shape[-2:]))), (slice(None), ins))
        return (flat.reshape(self.in_shape),)  # type: ignore[attr-defined]


class AdaptiveAvgPool2DBackward0(AvgPool2DBackward0):
    pass


# --- the ops on tensors (2 spatial dims; leading dims (N, C) or (C,)) -------------------------

def _flat_input(input: Tensor) -> np.ndarray:
    x = array_of(input)
    return x.reshape((-1,) + x.shape[-2:])


def pool_max(input: Tensor, windows: Sequence[Windows], node_type: type[MaxPool2DWithIndicesBackward0]
             ) -> tuple[Tensor, Tensor]:
    x = _flat_input(input)
    best, index = max_over_windows(x, windows)
    lead = tuple(input.shape[:-2])
    out = from_result(best.reshape(lead + best.shape[1:]), input.dtype)
    indices = from_result(index.reshape(lead + index.shape[1:]).astype(np.int64))
    if needs_grad(input):
        record(node_type(index.reshape(len(x), best.shape[1] * best.shape[2]), tuple(input.shape)), (input,), (out,))
    return out, indices


def pool_avg(input: Tensor, windows: Sequence[Windows], divisor: np.ndarray,
             node_type: type[AvgPool2DBackward0]) -> Tensor:
    x = _flat_input(input)
    total = sum_over_windows(x, windows)
    if x.dtype.kind == "f":
        mean = total / divisor
    else:  # (integer division truncating toward zero, as C++)
        mean = np.sign(total) * (np.abs(total) // divisor.astype(total.dtype))
    lead = tuple(input.shape[:-2])
    out = from_result(mean.reshape(lead + mean.shape[1:]), input.dtype)
    if needs_grad(input):
        entries = window_entries(windows, x.shape[1:])
        record(node_type(entries, divisor, tuple(input.shape)), (input,), (out,))
    return out


def check_float(op: str, input: Tensor) -> None:
    if not isinstance(input, Tensor):
        raise TypeError(f"{op}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if input.dtype == dtypes.bool_:
        raise RuntimeError(f"\"{op}\" not implemented for 'Bool'")
