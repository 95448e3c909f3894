"""Copies and conversions: ``clone``, ``contiguous``, ``to(dtype)`` / ``float`` / ``double``
(the joins ``cat`` and ``stack`` are in ``stacking.py``)."""

from __future__ import annotations

from typing import Any

from .. import _tracing, copying, dtypes
from ..device import check as check_device
from ..device import is_device_like
from ..layouts import check_memory_format
from ..autograd.graph import needs_grad, record
from ..autograd.node import Grads, Node
from ..tensor import Tensor
from .operands import fresh_result, lean_data


class CloneBackward0(Node):
    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        return (grads[0],)


class ToCopyBackward0(Node):
    def __init__(self, dtype: Any) -> None:
        super().__init__()
        self.dtype = dtype

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        return (to_dtype(grads[0], self.dtype),)  # type: ignore[arg-type]


def clone(self: Tensor, *, memory_format: str | None = None) -> Tensor:
    """A differentiable copy. Like PyTorch's default ``preserve_format`` it keeps a dense
    tensor's strides; ``memory_format="contiguous_format"`` makes it contiguous."""
    if memory_format not in (None, "preserve_format", "contiguous_format"):
        raise ValueError(
            f"clone(): memory_format must be 'preserve_format' or 'contiguous_format', "
            f"got {memory_format!r}"
        )
    # contiguous: both formats keep its strides (Note [Lean paths]); a 0-d tensor
    # is copied as cheaply by copying.clone
    data = lean_data(self) if self._sizes else None
    if data is not None:
        out = fresh_result(data.copy(), self._sizes, self._strides)
    else:
        out = copying.clone(self, contiguous=memory_format == "contiguous_format")
    if needs_grad(self):
        record(CloneBackward0(), (self,), (out,))
    if _tracing.ACTIVE is not None:  # jitgrad.compile records it
        _tracing.ACTIVE.op("clone", out, self)
    return out


def contiguous(self: Tensor) -> Tensor:
    return self if self.is_contiguous() else clone(self, memory_format="contiguous_format")


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


def to(
    self: Tensor, *args: Any, dtype: Any = None, device: Any = None, non_blocking: bool = False,
    copy: bool = False, memory_format: Any = None,
) -> Tensor:
    """PyTorch's three forms: ``t.to(dtype)``, ``t.to(device, dtype)`` (jitgrad has only
    the CPU: any other device raises) and ``t.to(other_tensor)``, each followed by optional
    ``non_blocking`` and ``copy``; also as keywords. ``self`` itself when nothing changes
    and ``copy`` is False."""
    rest = list(args)
    if rest and isinstance(rest[0], Tensor):
        dtype = rest.pop(0).dtype
    elif rest and is_device_like(rest[0]):
        device = rest.pop(0)
        if rest and not isinstance(rest[0], bool):
            dtype = rest.pop(0)
    elif rest and not isinstance(rest[0], bool):
        dtype = rest.pop(0)
    if len(rest) > 2:
        raise TypeError(f"to(): too many positional arguments: {args!r}")
    if rest:
        non_blocking = rest[0]
        copy = rest[1] if len(rest) > 1 else copy
    check_device("to()", device)
    contiguous = check_memory_format("to", memory_format)
    out = self if dtype is None else to_dtype(self, dtype)
    if (copy and out is self) or (contiguous and not out.is_contiguous()):
        out = clone(out, memory_format="contiguous_format" if contiguous else None)
    return out


def float_(self: Tensor) -> Tensor:
    return to_dtype(self, dtypes.float32)


def double(self: Tensor) -> Tensor:
    return to_dtype(self, dtypes.float64)


def long(self: Tensor) -> Tensor:
    return to_dtype(self, dtypes.int64)


def bool_(self: Tensor) -> Tensor:
    return to_dtype(self, dtypes.bool_)
