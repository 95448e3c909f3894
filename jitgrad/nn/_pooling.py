"""The machinery of the max, average and adaptive pools over 2 or 3 spatial dims (the
functions and their argument checks: ``_pool_functional.py``, ``_pool3d.py``), with PyTorch's
nodes (``MaxPool2DWithIndicesBackward0``, ``AvgPool3DBackward0``, ...).

Every pool is described per spatial dim by a window table: ``pos[o, k]``, the input position
the ``k``-th element of output ``o``'s window reads, and ``valid[o, k]`` (False in padding or
past an adaptive window's end). The Numba kernels (``kernels/_pool_jit.py``) walk each window
in row-major order keeping a running maximum (PyTorch's rule: a later element wins only when
strictly greater or NaN; the index starts at the window's first in-bounds element) or a
running sum. The max pools' backward scatter-adds through ``index_put_zeros`` (whose own
backward is a gather); the average pools' backward is an op of its own whose backward is
the average pool again (the two are adjoint), so gradients of any order follow.

The 1-d pools are the 2-d ones on ``input.unsqueeze(-2)``, as in PyTorch (hence the
``SqueezeBackward1`` / ``UnsqueezeBackward0`` around their nodes); the 2-d pools run the 3-d
kernels with a depth of 1.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .. import dtypes
from ..autograd.graph import needs_grad, record
from ..autograd.node import Grads, Node
from ..kernels import pooling as kernels
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


_DEPTH_ONE: Windows = (np.zeros((1, 1), np.int64), np.ones((1, 1), np.bool_))  # (a 2-d pool's depth)


def _three(windows: Sequence[Windows], sizes: Sequence[int]) -> tuple[list[Windows], tuple[int, ...]]:
    """The windows and input sizes over 3 dims (a 2-d pool gets a depth of 1)."""
    if len(windows) == 3:
        return list(windows), tuple(sizes)
    return [_DEPTH_ONE, *windows], (1, *sizes)


def _tables(windows: Sequence[Windows], sizes: Sequence[int]) -> list[np.ndarray]:
    """The kernels' arguments: per dim the positions clipped into the input, and validity."""
    out = []
    for (pos, valid), size in zip(windows, sizes):
        out += [np.ascontiguousarray(np.clip(pos, 0, max(size - 1, 0)), dtype=np.int64),
                np.ascontiguousarray(valid, dtype=np.bool_)]
    return out


def _first_valid(windows: Sequence[Windows], sizes: Sequence[int]) -> np.ndarray:
    """Each window's first in-bounds element (flat): where PyTorch's running maximum starts."""
    flat: Any = np.zeros((), np.int64)
    for (pos, valid), size in zip(windows, sizes):
        k = valid.argmax(1)  # (a window wholly in the padding, which only max_pool1d lets through, is
        first = pos[np.arange(len(pos)), k] if len(pos) else np.zeros(0, np.int64)  # -inf at its nearest)
        flat = flat[..., None] * size + np.clip(first, 0, size - 1)
    return np.ascontiguousarray(flat, dtype=np.int64)


def _kernel_dtype(x: np.ndarray) -> np.ndarray:
    """float16 runs in float32 (exact for a maximum; PyTorch also accumulates half in float)."""
    return np.ascontiguousarray(x, dtype=np.float32 if x.dtype == np.float16 else x.dtype)


# --- forward and backward on plain arrays (batch dims flattened: x is (B, *spatial)) ----------

def _out_shape(batch: int, windows: Sequence[Windows]) -> tuple[int, ...]:
    return (batch,) + tuple(len(pos) for pos, _ in windows)


def max_over_windows(x: np.ndarray, windows: Sequence[Windows]) -> tuple[np.ndarray, np.ndarray]:
    """Each window's maximum and its flat input index (``h * W + w``, ``(d * H + h) * W + w``)."""
    xk = _kernel_dtype(x)
    w3, sizes = _three(windows, x.shape[1:])
    best, index = np.empty(_out_shape(len(x), w3), xk.dtype), np.empty(_out_shape(len(x), w3), np.int64)
    lowest = xk.dtype.type(-np.inf if xk.dtype.kind == "f" else np.iinfo(xk.dtype).min)
    kernels.max_windows(xk.reshape((len(x),) + sizes), *_tables(w3, sizes), _first_valid(w3, sizes), lowest,
                        best, index)
    shape = _out_shape(len(x), windows)
    return best.astype(x.dtype, copy=False).reshape(shape), index.reshape(shape)


def sum_over_windows(x: np.ndarray, windows: Sequence[Windows]) -> np.ndarray:
    xk = _kernel_dtype(x)
    w3, sizes = _three(windows, x.shape[1:])
    total = np.zeros(_out_shape(len(x), w3), xk.dtype)
    kernels.sum_windows(xk.reshape((len(x),) + sizes), *_tables(w3, sizes), total)
    return total.reshape(_out_shape(len(x), windows))


def spread_over_windows(g: np.ndarray, divisor: np.ndarray, windows: Sequence[Windows],
                        sizes: tuple[int, ...]) -> np.ndarray:
    """The average pool's backward: ``g / divisor`` added over each window."""
    gk = _kernel_dtype(g)
    w3, sizes3 = _three(windows, sizes)
    grad = np.zeros((len(g),) + sizes3, gk.dtype)
    kernels.spread_windows(gk.reshape(_out_shape(len(g), w3)),
                           np.ascontiguousarray(divisor, dtype=gk.dtype).reshape(_out_shape(1, w3)[1:]),
                           *_tables(w3, sizes3), grad)
    return grad.astype(g.dtype, copy=False).reshape((len(g),) + tuple(sizes))


# --- nodes ----------------------------------------------------------------------------------

class MaxPool2DWithIndicesBackward0(Node):
    """The gradient goes to each window's maximum (scatter-added by the saved indices)."""

    def __init__(self, indices: np.ndarray, in_shape: tuple[int, ...], n: int) -> None:
        super().__init__()
        self.indices, self.in_shape, self.n = indices, in_shape, n  # indices: (B, P), flat over the spatial dims

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        g = grads[0]
        b, p = self.indices.shape
        rows = np.arange(b)[:, None]
        flat = index_put_zeros(g.reshape(b, p), (b, int(np.prod(self.in_shape[-self.n:]))),  # type: ignore[attr-defined]
                               (rows, self.indices))
        return (flat.reshape(self.in_shape),)  # type: ignore[attr-defined]


class AdaptiveMaxPool2DBackward0(MaxPool2DWithIndicesBackward0):
    pass


class MaxPool3DWithIndicesBackward0(MaxPool2DWithIndicesBackward0):
    pass


class AdaptiveMaxPool3DBackward0(MaxPool2DWithIndicesBackward0):
    pass


class _AvgPoolNode(Node):
    def __init__(self, windows: Sequence[Windows], divisor: np.ndarray, in_shape: tuple[int, ...]) -> None:
        super().__init__()
        self.windows, self.divisor, self.in_shape = windows, divisor, in_shape


class AvgPool2DBackward0(_AvgPoolNode):
    """Each output's gradient, divided by its divisor, added to every in-bounds element of
    its window (``avg_pool_backward``, differentiable again)."""

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        return (avg_pool_backward(grads[0], self.windows, self.divisor, self.in_shape),)  # type: ignore[arg-type]


class AdaptiveAvgPool2DBackward0(AvgPool2DBackward0):
    pass


class AvgPool3DBackward0(AvgPool2DBackward0):
    pass


class AdaptiveAvgPool3DBackward0(AvgPool2DBackward0):
    pass


class AvgPool2DBackwardBackward0(_AvgPoolNode):
    """The backward of ``avg_pool_backward``: the average pool itself (they are adjoint)."""

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        return (pool_avg(grads[0], self.windows, self.divisor, AvgPool2DBackward0),)  # type: ignore[arg-type]


# --- the ops on tensors (2 or 3 spatial dims, one window table each; leading dims (N, C) or (C,))

def _flat(input: Tensor, n: int) -> np.ndarray:
    x = array_of(input)
    return x.reshape((-1,) + x.shape[-n:])


def pool_max(input: Tensor, windows: Sequence[Windows], node_type: type[MaxPool2DWithIndicesBackward0]
             ) -> tuple[Tensor, Tensor]:
    n = len(windows)
    x = _flat(input, n)
    best, index = max_over_windows(x, windows)
    lead = tuple(input.shape[:-n])
    out = from_result(best.reshape(lead + best.shape[1:]), input.dtype)
    indices = from_result(index.reshape(lead + index.shape[1:]))
    if needs_grad(input):
        record(node_type(index.reshape(len(x), -1) if len(x) else index.reshape(0, int(np.prod(best.shape[1:]))),
                         tuple(input.shape), n), (input,), (out,))
    return out, indices


def pool_avg(input: Tensor, windows: Sequence[Windows], divisor: np.ndarray,
             node_type: type[_AvgPoolNode]) -> Tensor:
    n = len(windows)
    x = _flat(input, n)
    total = sum_over_windows(x, windows)
    if x.dtype.kind == "f":
        mean = total / divisor
    else:  # (integer division truncating toward zero, as C++)
        mean = np.sign(total) * (np.abs(total) // divisor.astype(total.dtype))
    out = from_result(mean.reshape(tuple(input.shape[:-n]) + mean.shape[1:]), input.dtype)
    if needs_grad(input):
        record(node_type(windows, divisor, tuple(input.shape)), (input,), (out,))
    return out


def avg_pool_backward(grad: Tensor, windows: Sequence[Windows], divisor: np.ndarray,
                      in_shape: tuple[int, ...]) -> Tensor:
    n = len(windows)
    values = spread_over_windows(_flat(grad, n), divisor, windows, tuple(in_shape[-n:]))
    out = from_result(values.reshape(in_shape), grad.dtype)
    if needs_grad(grad):
        record(AvgPool2DBackwardBackward0(windows, divisor, in_shape), (grad,), (out,))
    return out


_TYPE_NAMES = {"bool": "Bool", "uint8": "Byte", "int8": "Char", "int16": "Short", "int32": "Int",
               "int64": "Long", "float16": "Half", "float32": "Float", "float64": "Double"}


def check_tensor(op: str, input: Tensor) -> None:
    if not isinstance(input, Tensor):
        raise TypeError(f"{op}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")


def check_dtype(op: str, input: Tensor, integers: tuple[str, ...]) -> None:
    """PyTorch's CPU kernels take the floating dtypes and ``integers`` (bool never)."""
    name = input.dtype.name
    if input.dtype.kind != "f" and name not in integers:
        raise NotImplementedError(f"\"{op}\" not implemented for '{_TYPE_NAMES.get(name, name)}'")
