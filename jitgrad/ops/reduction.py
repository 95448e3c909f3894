"""Reductions: ``sum`` (and ``sum_to``, the engine's un-broadcast)."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .. import dtypes
from ..autograd.graph import needs_grad, record
from ..autograd.node import Grads, Node
from ..geometry.strided import wrap_dim
from ..tensor import Tensor
from ._common import from_result


def reduce_dims(op: str, self: Tensor, dim: Any) -> tuple[int, ...]:
    """``dim`` (None, an int or a sequence) as sorted non-negative dims of ``self``."""
    if dim is None:
        return tuple(range(self.ndim))
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    wrapped = tuple(sorted(wrap_dim(d, self.ndim, op) for d in dims))
    if len(set(wrapped)) != len(wrapped):
        raise RuntimeError(f"{op}: dim {wrapped[0]} appears multiple times in the list of dims")
    return wrapped


def keepdim_shape(sizes: tuple[int, ...], dims: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(1 if d in dims else s for d, s in enumerate(sizes))


class SumBackward0(Node):
    """Backward of ``sum``: the gradient broadcast back over the reduced dims."""

    def __init__(self, input_sizes: tuple[int, ...], dims: tuple[int, ...], keepdim: bool) -> None:
        super().__init__()
        self.input_sizes = input_sizes
        self.dims = dims
        self.keepdim = keepdim

    def apply(self, grads: Grads, owned: Sequence[bool] = ()) -> tuple[Tensor | None, ...]:
        g = grads[0]
        assert g is not None
        if not self.keepdim and self.input_sizes:
            g = g.reshape(keepdim_shape(self.input_sizes, self.dims))  # type: ignore[attr-defined]
        return (g.expand(self.input_sizes),)  # type: ignore[attr-defined]


class SumBackward1(SumBackward0):
    pass


def sum(self: Tensor, dim: Any = None, keepdim: bool = False, dtype: Any = None) -> Tensor:
    dims = reduce_dims("sum", self, dim)
    if dtype is not None:
        out_dtype = dtypes.to_dtype(dtype, "sum")
    elif self.dtype in dtypes.FLOATING:
        out_dtype = self.dtype
    else:
        out_dtype = dtypes.int64  # PyTorch sums bool and integer tensors as int64
    values = np.sum(self.numpy(), axis=dims, keepdims=keepdim, dtype=out_dtype)
    out = from_result(np.asarray(values), out_dtype)
    if needs_grad(self):
        node = (SumBackward0 if dim is None else SumBackward1)(self._sizes, dims, keepdim)
        record(node, (self,), (out,))
    return out


def sum_to(self: Tensor, shape: Sequence[int]) -> Tensor:
    """Sum ``self`` down to ``shape`` (which it must broadcast from): the adjoint of expand."""
    shape = tuple(shape)
    if self._sizes == shape:
        return self
    lead = self.ndim - len(shape)
    dims = tuple(range(lead)) + tuple(
        lead + i for i, s in enumerate(shape) if s == 1 and self._sizes[lead + i] != 1
    )
    out = sum(self, dims, keepdim=True) if dims else self
    return out.view(shape) if out._sizes != shape else out  # type: ignore[attr-defined]
