"""What the gather/scatter, mask and sorting ops share: argument checks (tensors, int64
index tensors and their bounds, matching dtypes, fill values, broadcasting; errors name the
op) and ``gather_as``, a gather recorded under the node name PyTorch gives that op."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from .. import dtypes
from ..autograd.grad_mode import no_grad
from ..autograd.graph import needs_grad, record
from ..autograd.node import Grads, SavingNode
from ..geometry import broadcast_shapes
from ..tensor import Tensor
from .index_ops import gather as gather_at
from .index_ops import index_put_zeros
from .structure import to_dtype
from .view_ops import reshape


def tensor_arg(op: str, name: str, x: Any) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}(): argument '{name}' must be a Tensor, got {type(x).__name__}")
    return x


def index_array(op: str, index: Any, name: str = "index", int32: bool = False,
                error: type[Exception] = RuntimeError) -> np.ndarray:
    """The int64 index tensor as a NumPy array (TypeError / RuntimeError as PyTorch);
    ``int32``: an int32 one is taken too (converted), as PyTorch's gather/scatter family,
    ``index_select`` and ``index_add`` take it (``take``, ``index_copy`` do not)."""
    tensor_arg(op, name, index)
    if index.dtype != dtypes.int64:
        if int32 and index.dtype == dtypes.int32:
            return index._numpy().astype(np.int64)
        expected = "int32/int64" if int32 else "int64"
        raise error(f"{op}(): Expected dtype {expected} for {name}, got {index.dtype.name}")
    return index._numpy()


def check_bounds(op: str, idx: np.ndarray, size: int, dim: int, negative: bool = False,
                  error: type = RuntimeError) -> np.ndarray:
    """``idx`` with negative entries wrapped (when ``negative``), refusing out-of-range ones."""
    low = -size if negative else 0
    if idx.size and (idx.min() < low or idx.max() >= size):
        bad = int(idx[(idx < low) | (idx >= size)].flat[0])
        raise error(
            f"{op}(): index {bad} is out of bounds for dimension {dim} with size {size} "
            f"(expected indices in [{low}, {size - 1}])"
        )
    return np.where(idx < 0, idx + size, idx) if negative else idx


def same_dtype(op: str, self: Tensor, src: Tensor, name: str = "src") -> None:
    if src.dtype != self.dtype:
        raise RuntimeError(
            f"{op}(): Expected self.dtype to be equal to {name}.dtype (got {self.dtype.name} "
            f"and {src.dtype.name})"
        )


def fill_value(op: str, self: Tensor, value: Any) -> Tensor | Any:
    """A fill value: a number cast to ``self``'s dtype or a 0-d tensor (converted)."""
    if isinstance(value, Tensor):
        if value.ndim:
            raise RuntimeError(
                f"{op}(): only supports a 0-dimensional value tensor, but got tensor with "
                f"{value.ndim} dimension(s)"
            )
        return value if value.dtype == self.dtype else to_dtype(value, self.dtype)
    if not isinstance(value, numbers.Number):
        raise TypeError(f"{op}(): argument 'value' must be a number or a 0-d Tensor, got {type(value).__name__}")
    return value


def broadcast(op: str, a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    try:
        return broadcast_shapes(a, b)
    except RuntimeError as exc:
        raise RuntimeError(f"{op}(): {exc}") from None


def flat(x: Tensor) -> Tensor:
    return reshape(x, -1) if x.ndim != 1 else x


class GatherBackward0(SavingNode):
    """A gather's backward (a scatter-add into zeros) under PyTorch's names for the ops
    built on it. It saves what PyTorch's node saves (``SAVED_NAMES``: the input, the index,
    the dim...), though the scatter needs only the NumPy index: so that, as in PyTorch, a
    second backward is refused, and so is one after a saved tensor was written in place."""

    def __init__(self, input_sizes: tuple[int, ...], np_index: tuple[Any, ...]) -> None:
        super().__init__()
        self.input_sizes = input_sizes
        self.np_index = np_index

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        self.unpack()  # (PyTorch's checks of what it saved)
        return (index_put_zeros(grads[0], self.input_sizes, self.np_index),)  # type: ignore[arg-type]


class IndexSelectBackward0(GatherBackward0):
    pass


class TakeBackward0(GatherBackward0):
    pass


class MaskedSelectBackward0(GatherBackward0):
    pass


class SortBackward0(GatherBackward0):
    pass


class SortBackward1(SortBackward0):
    """``sort`` called with ``stable=`` (PyTorch's ``sort.stable`` overload)."""


class TopkBackward0(GatherBackward0):
    pass


def gather_as(node_cls: type, source: Tensor, np_index: tuple[Any, ...], saved: tuple[Any, ...] = ()) -> Tensor:
    """``source[np_index]`` (a copy) recorded as ``node_cls``, which saves ``saved`` (what
    PyTorch's node saves, in the order of its ``SAVED_NAMES``)."""
    with no_grad():
        out = gather_at(source, np_index)
    if needs_grad(source):
        node = record(node_cls(source._sizes, np_index), (source,), (out,))
        node.save(*saved)
    return out


def saved_dim(dim: int) -> int:
    """A dim as PyTorch's node shows it: as given, a negative one read as uint64
    (``topk``'s default -1 is ``2**64 - 1``)."""
    return dim % 2**64


def saved_sizes(t: Tensor) -> tuple[int, ...]:
    return tuple(t._sizes)
