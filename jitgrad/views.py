"""View operations on tensors: each returns a Tensor on the same storage (what a view is:
``tensor.py``'s docstring). The geometry rules live in ``geometry/views.py``.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from . import copying, dtypes
from ._warn_once import warn_once
from .geometry import views as vg
from .geometry.broadcast import infer_size
from .geometry.strided import contiguous_strides
from .geometry.strided import as_int, wrap_dim
from .storage import Storage
from .tensor import Tensor, sizes_arg


def as_strided(
    self: Tensor, size: Sequence[int], stride: Sequence[int], storage_offset: int | None = None
) -> Tensor:
    """A view with explicit geometry; ``storage_offset`` counts from the start of storage."""
    return self._alias(
        vg.as_strided(self._geometry, self._storage.size(), size, stride, storage_offset)
    )


def narrow(self: Tensor, dim: int, start: int, length: int) -> Tensor:
    return self._alias(vg.narrow(self._geometry, dim, start, length))


def select(self: Tensor, dim: int, index: int) -> Tensor:
    return self._alias(vg.select(self._geometry, dim, index))


def transpose(self: Tensor, dim0: int, dim1: int) -> Tensor:
    return self._alias(vg.transpose(self._geometry, dim0, dim1))


def t(self: Tensor, op: str = "t") -> Tensor:
    if self.ndim > 2:
        raise RuntimeError(
            f"{op}() expects a tensor with <= 2 dimensions, but self is {self.ndim}D"
        )
    return transpose(self, 0, -1) if self.ndim == 2 else self._alias(self._geometry)


def T(self: Tensor) -> Tensor:
    if self.ndim != 2:
        warn_once(  # (PyTorch's message and TORCH_WARN_ONCE)
            "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is "
            "deprecated and it will throw an error in a future release. Consider `x.mT` to "
            "transpose batches of matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` "
            "to reverse the dimensions of a tensor.",
            stacklevel=4,
        )
    return permute(self, *reversed(range(self.ndim)))


def permute(self: Tensor, *dims: int) -> Tensor:
    if not dims:
        raise TypeError('permute() missing 1 required positional argument: "dims"')
    return self._alias(vg.permute(self._geometry, sizes_arg("permute", dims)))


def movedim(self: Tensor, source: int | Sequence[int], destination: int | Sequence[int]) -> Tensor:
    return self._alias(vg.movedim(self._geometry, source, destination))


def view(self: Tensor, *shape: int) -> Tensor:
    return self._alias(vg.view(self._geometry, sizes_arg("view", shape)))


def view_as(self: Tensor, other: Tensor) -> Tensor:
    return view(self, *other.shape)


def reshape(self: Tensor, *shape: int) -> Tensor:
    """A view when the strides allow one, otherwise a contiguous copy (PyTorch's rule)."""
    sizes = infer_size("reshape", sizes_arg("reshape", shape), self.numel())
    strides = vg.view_strides(self._sizes, self._strides, sizes)
    if strides is not None:
        return self._alias(vg.Geometry(sizes, strides, self._offset))
    copy = copying.clone(self, contiguous=True)
    # like PyTorch's _unsafe_view: the copy is not a view of anything
    return Tensor._make(copy._storage, sizes, contiguous_strides(sizes))


def flatten_sizes(self: Tensor, start_dim: int = 0, end_dim: int = -1) -> tuple[int, ...] | None:
    """The shape ``flatten`` produces, or None when it returns ``self`` unchanged."""
    ndim = self.ndim
    start = wrap_dim(start_dim, ndim, "flatten")
    end = wrap_dim(end_dim, ndim, "flatten")
    if start > end:
        raise RuntimeError(
            "flatten() has invalid args: start_dim cannot come after end_dim (got "
            f"start_dim={start_dim}, end_dim={end_dim})"
        )
    if ndim == 0:
        return (1,)
    if start == end:
        return None
    sizes = self._sizes
    merged = 1
    for s in sizes[start : end + 1]:
        merged *= s
    return sizes[:start] + (merged,) + sizes[end + 1 :]


def flatten(self: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    sizes = flatten_sizes(self, start_dim, end_dim)
    return self if sizes is None else reshape(self, *sizes)


def expand(self: Tensor, *sizes: int) -> Tensor:
    return self._alias(vg.expand(self._geometry, sizes_arg("expand", sizes)))


def expand_as(self: Tensor, other: Tensor) -> Tensor:
    return expand(self, *other.shape)


def unsqueeze(self: Tensor, dim: int) -> Tensor:
    return self._alias(vg.unsqueeze(self._geometry, dim))


def squeeze(self: Tensor, dim: int | Sequence[int] | None = None) -> Tensor:
    return self._alias(vg.squeeze(self._geometry, dim))


def diagonal(self: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    return self._alias(vg.diagonal(self._geometry, offset, dim1, dim2))


def unfold(self: Tensor, dimension: int, size: int, step: int) -> Tensor:
    return self._alias(vg.unfold(self._geometry, dimension, size, step))


def unbind(self: Tensor, dim: int = 0) -> tuple[Tensor, ...]:
    if self.ndim == 0:
        raise IndexError("unbind(): Dimension specified as 0 but tensor has no dimensions")
    dim = wrap_dim(dim, self.ndim, "unbind")
    return tuple(select(self, dim, i) for i in range(self._sizes[dim]))


def split(self: Tensor, split_size_or_sections: int | Sequence[int], dim: int = 0) -> tuple[Tensor, ...]:
    if self.ndim == 0:
        raise RuntimeError("split(): split expects at least a 1-dimensional tensor")
    dim = wrap_dim(dim, self.ndim, "split")
    lengths = vg.split_sizes("split", self._sizes[dim], split_size_or_sections)
    return _pieces(self, dim, lengths)


def chunk(self: Tensor, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
    if self.ndim == 0:
        raise RuntimeError("chunk(): chunk expects at least a 1-dimensional tensor")
    dim = wrap_dim(dim, self.ndim, "chunk")
    return _pieces(self, dim, vg.chunk_sizes(self._sizes[dim], as_int("chunk", "chunks", chunks)))


def _pieces(self: Tensor, dim: int, lengths: Sequence[int]) -> tuple[Tensor, ...]:
    out, start = [], 0
    for length in lengths:
        out.append(narrow(self, dim, start, length))
        start += length
    return tuple(out)


def detach(self: Tensor) -> Tensor:
    """Same storage and version counter, but not a view and outside autograd."""
    return Tensor._make(self._storage, self._sizes, self._strides, self._offset)


# PyTorch's names of the scalar types, as its view(dtype) errors spell them
_SCALAR_TYPE_NAMES = {
    "bool": "Bool", "uint8": "Byte", "int8": "Char", "int16": "Short", "int32": "Int",
    "int64": "Long", "float16": "Half", "float32": "Float", "float64": "Double",
}


def view_dtype(self: Tensor, dtype: object) -> Tensor:
    """PyTorch's ``view(dtype)``: the same bytes read as ``dtype``. With another element size
    the last dimension (stride 1) is cut into, or merged from, that many elements. The result
    shares the memory and the version counter but is not a view for autograd (``_base`` is
    None) and is not differentiable (it never requires grad), as PyTorch's."""
    new = dtypes.to_dtype(dtype, "view")
    old = self.dtype
    sizes, strides, offset = self._sizes, self._strides, self._offset
    if new.itemsize != old.itemsize:
        what = f"to view {_SCALAR_TYPE_NAMES[old.name]} as {_SCALAR_TYPE_NAMES[new.name]} (different element sizes)"
        if not sizes:
            raise RuntimeError(f"self.dim() cannot be 0 {what}")
        if old.itemsize > new.itemsize:
            ratio = old.itemsize // new.itemsize
            if strides[-1] != 1:
                raise RuntimeError(f"self.stride(-1) must be 1 {what}, but got {strides[-1]}")
            sizes = (*sizes[:-1], sizes[-1] * ratio)
            strides = (*(s * ratio for s in strides[:-1]), 1)
            offset *= ratio
        else:
            ratio = new.itemsize // old.itemsize
            if sizes[-1] % ratio:
                raise RuntimeError(f"self.size(-1) must be divisible by {ratio} {what}, but got {sizes[-1]}")
            if offset % ratio:
                raise RuntimeError(
                    f"self.storage_offset() must be divisible by {ratio} {what}, but got {offset}"
                )
            if strides[-1] != 1:
                raise RuntimeError(f"self.stride(-1) must be 1 {what}, but got {strides[-1]}")
            for d, s in enumerate(strides[:-1]):
                if s % ratio:
                    raise RuntimeError(f"self.stride({d}) must be divisible by {ratio} {what}, but got {s}")
            sizes = (*sizes[:-1], sizes[-1] // ratio)
            strides = (*(s // ratio for s in strides[:-1]), 1)
            offset //= ratio
    old_storage = self._storage
    raw = old_storage.buffer.view(np.uint8)
    buffer = raw[: raw.shape[0] - raw.shape[0] % new.itemsize].view(new)
    storage = Storage(buffer, old_storage.counter)  # (one memory, one version counter)
    storage.inference = old_storage.inference
    storage.resizable = old_storage.resizable = False
    return Tensor._make(storage, sizes, strides, offset)
