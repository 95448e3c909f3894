"""Copies and conversions: ``clone``, ``contiguous``, ``to(dtype)`` / ``float`` / ``double``
(the joins ``cat`` and ``stack`` are in ``stacking.py``)."""

from __future__ import annotations

from typing import Any

from .. import _tracing, copying, dtypes
from ..device import check as check_device
from ..device import is_device_like
from ..geometry.layout import strides_like_channels_last
from ..layouts import format_strides
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
    tensor's strides; ``memory_format="contiguous_format"`` makes it contiguous, and
    ``channels_last`` / ``channels_last_3d`` channels-last (a 4-D / 5-D tensor)."""
    strides = None
    if memory_format is not None and memory_format != "preserve_format":
        strides = format_strides("clone", memory_format, self._sizes)
        if memory_format == "contiguous_format":
            strides = None  # (copying.clone's contiguous copy)
    # contiguous: preserve and contiguous formats keep its strides (Note [Lean paths]); a
    # 0-d tensor is copied as cheaply by copying.clone
    data = lean_data(self) if self._sizes and strides is None else None
    if data is not None:
        out = fresh_result(data.copy(), self._sizes, self._strides)
    else:
        out = copying.clone(self, contiguous=memory_format == "contiguous_format", strides=strides)
    if needs_grad(self):
        record(CloneBackward0(), (self,), (out,))
    if _tracing.ACTIVE is not None:  # jitgrad.compile records it
        _tracing.ACTIVE.op("clone", out, self)
    return out


def contiguous(self: Tensor, memory_format: Any = None) -> Tensor:
    """``self`` when already contiguous in ``memory_format`` (row-major by default), else a
    differentiable copy that is."""
    if memory_format is None or memory_format == "contiguous_format":
        return self if self.is_contiguous() else clone(self, memory_format="contiguous_format")
    if memory_format == "preserve_format":  # (PyTorch's message, when a copy is needed)
        if self.is_contiguous():
            return self
        raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
    format_strides("contiguous", memory_format, self._sizes)  # (checks it and the rank)
    return self if self.is_contiguous(memory_format=memory_format) else clone(self, memory_format=memory_format)


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
    strides = format_strides("to", memory_format, self._sizes)  # (None: preserve the layout)
    target = self.dtype if dtype is None else dtypes.to_dtype(dtype, "to")
    if not copy and (strides is None or target == self.dtype and suggest_memory_format(self) == memory_format):
        return to_dtype(self, target)  # (``self`` when of ``target``: PyTorch's ``to_will_alias``)
    if _tracing.ACTIVE is not None:  # (jitgrad.compile records the ops it knows)
        return clone(to_dtype(self, target), memory_format=memory_format)
    out = copying.to_dtype_copy(self, target, strides)
    if target in dtypes.FLOATING and needs_grad(self):
        record(ToCopyBackward0(self.dtype), (self,), (out,))
    return out


def suggest_memory_format(self: Tensor) -> str:
    """PyTorch's ``suggest_memory_format``: the channels-last format whose order the strides
    follow (4-D or 5-D), else ``contiguous_format``."""
    if strides_like_channels_last(self._sizes, self._strides):
        return "channels_last" if len(self._sizes) == 4 else "channels_last_3d"
    return "contiguous_format"


def float_(self: Tensor) -> Tensor:
    return to_dtype(self, dtypes.float32)


def double(self: Tensor) -> Tensor:
    return to_dtype(self, dtypes.float64)


def long(self: Tensor) -> Tensor:
    return to_dtype(self, dtypes.int64)


def bool_(self: Tensor) -> Tensor:
    return to_dtype(self, dtypes.bool_)
