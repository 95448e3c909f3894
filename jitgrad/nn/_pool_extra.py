"""``lp_pool1d/2d/3d`` (the ``p``-norm of each window, from ``avg_pool``), ``max_unpool1d/2d/3d``
(each value put back at the index its max pool found; ``MaxUnpool2DBackward0``, whose backward
gathers the gradient at those indices) and the ``*_with_indices`` spellings of the max pools.
PyTorch's argument checks and messages; the 1-d ops run as the 2-d ones on a height of 1."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..autograd.graph import needs_grad, record
from ..autograd.node import Grads, Node
from ..ops.gather_scatter import gather
from ..ops.operands import array_of, from_result
from ..tensor import Tensor
from ._activations import relu
from ._pool_functional import adaptive_max_pool1d, adaptive_max_pool2d, avg_pool1d, avg_pool2d, max_pool1d, max_pool2d


def lp_pool2d(input: Tensor, norm_type: float, kernel_size: Any, stride: Any = None, ceil_mode: bool = False) -> Tensor:
    """``(sum over the window of x^p)^(1/p)``: PyTorch's composition, ``avg_pool2d`` of ``x^p``
    times the window's area."""
    kh, kw = (kernel_size, kernel_size) if isinstance(kernel_size, int) else tuple(kernel_size)
    out = avg_pool2d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)  # type: ignore[attr-defined]
    return (out.sign() * relu(out.abs())).mul(kh * kw).pow(1.0 / norm_type)  # type: ignore[attr-defined,no-any-return]


def lp_pool1d(input: Tensor, norm_type: float, kernel_size: int, stride: Any = None, ceil_mode: bool = False) -> Tensor:
    out = avg_pool1d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)  # type: ignore[attr-defined]
    return (out.sign() * relu(out.abs())).mul(kernel_size).pow(1.0 / norm_type)  # type: ignore[attr-defined,no-any-return]


def max_pool2d_with_indices(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
                            dilation: Any = 1, ceil_mode: bool = False, return_indices: bool = True) -> Any:
    return max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def max_pool1d_with_indices(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
                            dilation: Any = 1, ceil_mode: bool = False, return_indices: bool = True) -> Any:
    return max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def adaptive_max_pool2d_with_indices(input: Tensor, output_size: Any, return_indices: bool = True) -> Any:
    return adaptive_max_pool2d(input, output_size, return_indices)


def adaptive_max_pool1d_with_indices(input: Tensor, output_size: Any, return_indices: bool = True) -> Any:
    return adaptive_max_pool1d(input, output_size, return_indices)


# --- max_unpool -------------------------------------------------------------------------------

class MaxUnpool2DBackward0(Node):
    """The gradient gathered at the indices the values were put at."""

    def __init__(self, indices: Tensor, in_shape: tuple[int, ...]) -> None:
        super().__init__()
        self.indices, self.in_shape = indices, in_shape  # indices: (B, P) flat over the output plane

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        g = grads[0]
        picked = gather(g.reshape(self.indices.shape[0], -1), 1, self.indices)  # type: ignore[union-attr]
        return (picked.reshape(self.in_shape),)  # type: ignore[attr-defined]


def _unpool_size(op: str, input: Tensor, kernel: tuple[int, ...], stride: tuple[int, ...], padding: tuple[int, ...],
                 output_size: Sequence[int] | None) -> tuple[int, ...]:
    n = len(kernel)
    default = tuple((input.shape[-n + i] - 1) * stride[i] - 2 * padding[i] + kernel[i] for i in range(n))
    if output_size is None:
        return default
    sizes = list(output_size)
    if len(sizes) == n + 2 or (len(sizes) == n + 1 and input.ndim == n + 1):
        sizes = sizes[-n:]
    if len(sizes) != n:
        raise ValueError(f"output_size should be a sequence containing {n} or {n + 2} elements, but it has a "
                         f"length of '{len(output_size)}'")
    for d in range(n):
        lo, hi = default[d] - stride[d], default[d] + stride[d]
        if not lo < sizes[d] < hi:
            raise ValueError(f'invalid output_size "{tuple(output_size)}" (dim {d} must be between {lo} and {hi})')
    return tuple(int(s) for s in sizes)


class MaxUnpool3DBackward0(MaxUnpool2DBackward0):
    pass


def _unpool(input: Tensor, indices: Tensor, size: tuple[int, ...]) -> Tensor:
    n = len(size)
    if indices.dtype != np.dtype(np.int64):
        raise RuntimeError(f"elements in indices should be type int64 but got: {_type_name(indices)}")
    if tuple(indices.shape) != tuple(input.shape):
        raise RuntimeError(
            f"Expected shape of indices to be same as that of the input tensor ({list(input.shape)}) but got "
            f"indices tensor with shape: {list(indices.shape)}"
        )
    if input.ndim not in (n + 1, n + 2):
        raise RuntimeError(f"Input to max_unpooling{n}d should be a {n + 1}d or {n + 2}d Tensor, but got a tensor "
                           f"with {input.ndim} dimensions.")
    plane = int(np.prod(size))
    x = array_of(input).reshape(-1, int(np.prod(input.shape[-n:])))
    idx = array_of(indices).reshape(x.shape)
    invalid = (idx < 0) | (idx >= plane)
    if invalid.any():  # (PyTorch names the last invalid index of the first plane holding one)
        row = int(invalid.any(1).argmax())
        bad = idx[row][invalid[row]]
        raise RuntimeError(f"Found an invalid max index: {int(bad[-1])} (output volumes are of size "
                           f"{'x'.join(map(str, size))})")
    values = np.zeros((x.shape[0], plane), x.dtype)
    np.put_along_axis(values, idx, x, axis=1)
    out = from_result(values.reshape(tuple(input.shape[:-n]) + size), input.dtype)
    if needs_grad(input):
        node_type = MaxUnpool3DBackward0 if n == 3 else MaxUnpool2DBackward0
        record(node_type(from_result(idx), tuple(input.shape)), (input,), (out,))
    return out


def _type_name(t: Tensor) -> str:
    from ._pooling import _TYPE_NAMES

    return _TYPE_NAMES.get(t.dtype.name, t.dtype.name)


def _ints(value: Any, n: int) -> tuple[int, ...]:
    return (int(value),) * n if isinstance(value, int) else tuple(int(v) for v in value) * (n if len(value) == 1 else 1)


def max_unpool2d(input: Tensor, indices: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 output_size: Sequence[int] | None = None) -> Tensor:
    """Zeros of the unpooled size with each ``input`` value at its ``indices`` (flat ``h * W + w``)."""
    k = _ints(kernel_size, 2)
    s = k if stride is None else _ints(stride, 2)
    size = _unpool_size("max_unpool2d", input, k, s, _ints(padding, 2), output_size)
    return _unpool(input, indices, size)  # type: ignore[arg-type]


def max_unpool1d(input: Tensor, indices: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 output_size: Sequence[int] | None = None) -> Tensor:
    k = _ints(kernel_size, 1)
    s = k if stride is None else _ints(stride, 1)
    (length,) = _unpool_size("max_unpool1d", input, k, s, _ints(padding, 1), output_size)
    out = _unpool(input.unsqueeze(-2), indices.unsqueeze(-2), (1, length))  # type: ignore[attr-defined]
    return out.squeeze(-2)  # type: ignore[attr-defined,no-any-return]


def max_unpool3d(input: Tensor, indices: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 output_size: Sequence[int] | None = None) -> Tensor:
    """Zeros of the unpooled size with each ``input`` value at its ``indices`` (flat ``(d * H + h) * W + w``)."""
    k = _ints(kernel_size, 3)
    s = k if stride is None else _ints(stride, 3)
    size = _unpool_size("max_unpool3d", input, k, s, _ints(padding, 3), output_size)
    return _unpool(input, indices, size)


def lp_pool3d(input: Tensor, norm_type: float, kernel_size: Any, stride: Any = None, ceil_mode: bool = False) -> Tensor:
    from ._pool3d import avg_pool3d

    kd, kh, kw = (kernel_size,) * 3 if isinstance(kernel_size, int) else tuple(kernel_size)
    out = avg_pool3d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)  # type: ignore[attr-defined]
    return (out.sign() * relu(out.abs())).mul(kd * kh * kw).pow(1.0 / norm_type)  # type: ignore[attr-defined,no-any-return]
