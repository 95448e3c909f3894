"""Copies and conversions: ``clone``, ``contiguous``, ``to(dtype)`` / ``float`` / ``double``."""

from __future__ import annotations

from typing import Any, Sequence

from .. import copying, dtypes
from ..autograd.graph import needs_grad, record
from ..autograd.node import Grads, Node
from ..tensor import Tensor


class CloneBackward0(Node):
    def apply(self, grads: Grads, owned: Sequence[bool] = ()) -> tuple[Tensor | None, ...]:
        return (grads[0],)


class ToCopyBackward0(Node):
    def __init__(self, dtype: Any) -> None:
        super().__init__()
        self.dtype = dtype

    def apply(self, grads: Grads, owned: Sequence[bool] = ()) -> tuple[Tensor | None, ...]:
        return (to_dtype(grads[0], self.dtype),)  # type: ignore[arg-type]


def clone(self: Tensor) -> Tensor:
    out = copying.clone(self)
    if needs_grad(self):
        record(CloneBackward0(), (self,), (out,))
    return out


def contiguous(self: Tensor) -> Tensor:
    return self if self.is_contiguous() else clone(self)


def to_dtype(self: Tensor, dtype: Any) -> Tensor:
    """A converted copy (``self`` itself when already of ``dtype``). Differentiable between
    floating dtypes; converting a tensor that requires grad to a non-float dtype gives a
    tensor outside the graph, as in PyTorch."""
    target = dtypes.to_dtype(dtype, "to")
    if self.dtype == target:
        return self
    out = copying.to_dtype_copy(self, target)
    if target in dtypes.FLOATING and needs_grad(self):
        record(ToCopyBackward0(self.dtype), (self,), (out,))
    return out


def to(self: Tensor, *args: Any, dtype: Any = None, copy: bool = False) -> Tensor:
    """``t.to(dtype)`` / ``t.to(other_tensor)`` / ``t.to("cpu")`` (the only device)."""
    for a in args:
        if isinstance(a, Tensor):
            dtype = a.dtype
        elif isinstance(a, str) and a == "cpu":
            continue
        else:
            dtype = a
    if dtype is None:
        return clone(self) if copy else self
    out = to_dtype(self, dtype)
    return clone(out) if copy and out is self else out


def float_(self: Tensor) -> Tensor:
    return to_dtype(self, dtypes.float32)


def double(self: Tensor) -> Tensor:
    return to_dtype(self, dtypes.float64)


def long(self: Tensor) -> Tensor:
    return to_dtype(self, dtypes.int64)


def bool_(self: Tensor) -> Tensor:
    return to_dtype(self, dtypes.bool_)
