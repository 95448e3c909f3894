"""In-place view ops: ``t_``, ``transpose_``/``swapdims_``/``swapaxes_``, ``squeeze_``,
``unsqueeze_``, ``as_strided_``, and the resizes ``resize_``/``resize_as_``.

They change a tensor's *geometry* in place, never its memory. As in PyTorch:

- the write bumps the version (every alias sees it) and is refused where an in-place write
  would be (a leaf that requires grad, a view of one, a view whose creation forbids it —
  Note [Views and in-place writes] in ``view_meta.py``; an inference tensor outside
  inference mode);
- recorded, the tensor's new ``grad_fn`` is the op's backward (``TransposeBackward1``, ...)
  whose edge is the tensor's old history. A view stays a view of the same base, with the op
  appended to its replay chain and its history current (no ``CopySlices``: nothing was
  written). Unrecorded (no_grad), a view's history goes stale and is regenerated from its
  base on next read, as for any write.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from .. import views
from ..autograd.grad_mode import is_grad_enabled
from ..autograd.graph import gradient_edge, requires_grad
from ..geometry import Geometry, contiguous_strides, numel
from ..storage import INFERENCE, Storage, UntypedStorage, allocate
from ..tensor import Tensor, sizes_arg
from . import view_meta, view_ops
from .as_strided import AsStridedBackward0, _as_strided_from_root
from .inplace import check_autograd_inplace
from .view_ops import (
    SqueezeBackward0, TBackward0, TransposeBackward0, UnsqueezeBackward0, ViewBackward,
    _relative, _same,
)
from ..geometry import views as vg


class TBackward1(TBackward0):
    pass


class TransposeBackward1(TransposeBackward0):
    pass


class SqueezeBackward3(SqueezeBackward0):  # squeeze_()
    pass


class SqueezeBackward4(SqueezeBackward0):  # squeeze_(dim)
    pass


class SqueezeBackward5(SqueezeBackward0):  # squeeze_(dims)
    pass


class UnsqueezeBackward1(UnsqueezeBackward0):
    pass


class AsStridedBackward1(AsStridedBackward0):
    pass


def check_inference(op: str, self: Tensor) -> None:
    """An inference tensor may change only inside inference mode (PyTorch's rule)."""
    if self._storage.inference and not INFERENCE.enabled:
        self._storage.check_writable(op)  # raises the inference-tensor error


def _restride_in_place(
    op: str, self: Tensor, new: Tensor, make_node: Callable[[], Any], step: view_meta.Step
) -> Tensor:
    """Give ``self`` the geometry of ``new`` (a view of it), as one in-place write."""
    check_inference(op, self)
    record = check_autograd_inplace(op, self, (self,))
    node = None
    if record:
        node = make_node()
        node._set_edges((gradient_edge(self),))
        node.input_metadata = ((new._sizes, new.dtype),)
    self._storage.before_write()  # a saved ``self`` keeps its geometry (allow_mutation_...)
    self._sizes, self._strides, self._offset = new._sizes, new._strides, new._offset
    self._storage.bump(op)
    vm = self._view_meta
    if vm is not None:
        # still a view of the same base; the op joins its replay chain
        meta = view_meta.ViewMeta(vm.base, None, step, vm.creation, vm.view_fn + (step,))
        meta.parent, meta.parent_meta = vm.parent, vm.parent_meta
        if node is None:
            meta.attr_version = vm.attr_version  # stale: regenerated from the base when read
        self._view_meta = meta
    if node is not None:
        # (unlike other in-place ops, a retained grad stays with the old node: PyTorch's
        # in-place view ops set the new history without moving retains_grad's hook)
        self._grad_fn = node
        self._output_nr = 0
    return self


def _view_node(node_type: type[ViewBackward], self: Tensor, geometry_fn: Callable[..., Geometry],
               *args: Any) -> Callable[[], ViewBackward]:
    sizes = self._sizes
    return lambda: node_type(sizes, _relative(self, geometry_fn, *args))


def t_(self: Tensor) -> Tensor:
    new = views.t(self, "t_")
    geometry_fn = (lambda g: vg.transpose(g, 0, -1)) if self.ndim == 2 else _same
    return _restride_in_place("t_", self, new, _view_node(TBackward1, self, geometry_fn), (view_ops.t, ()))


def transpose_(self: Tensor, dim0: int, dim1: int) -> Tensor:
    new = views.transpose(self, dim0, dim1)
    node = _view_node(TransposeBackward1, self, vg.transpose, dim0, dim1)
    return _restride_in_place("transpose_", self, new, node, (view_ops.transpose, (dim0, dim1)))


def swapdims_(self: Tensor, dim0: int, dim1: int) -> Tensor:
    return transpose_(self, dim0, dim1)


def swapaxes_(self: Tensor, axis0: int, axis1: int) -> Tensor:
    return transpose_(self, axis0, axis1)


def squeeze_(self: Tensor, dim: Any = None) -> Tensor:
    new = views.squeeze(self, dim)
    node_type = SqueezeBackward3 if dim is None else (
        SqueezeBackward5 if isinstance(dim, (tuple, list)) else SqueezeBackward4
    )
    node = _view_node(node_type, self, vg.squeeze, dim)
    return _restride_in_place("squeeze_", self, new, node, (view_ops.squeeze, (dim,)))


def unsqueeze_(self: Tensor, dim: int) -> Tensor:
    new = views.unsqueeze(self, dim)
    node = _view_node(UnsqueezeBackward1, self, vg.unsqueeze, dim)
    return _restride_in_place("unsqueeze_", self, new, node, (view_ops.unsqueeze, (dim,)))


def as_strided_(
    self: Tensor, size: Sequence[int], stride: Sequence[int], storage_offset: int | None = None
) -> Tensor:
    new = views.as_strided(self, size, stride, storage_offset)
    before = self._geometry
    root = self if self._base is None else self._base
    step = (_as_strided_from_root, (new._sizes, new._strides, new._offset - root._offset))
    return _restride_in_place(
        "as_strided_", self, new, lambda: AsStridedBackward1(before, new._geometry), step
    )


# -- resize_ / resize_as_ ------------------------------------------------------------------------
def resize_(self: Tensor, *sizes: Any) -> Tensor:
    """PyTorch's ``resize_``: contiguous geometry of ``sizes``, keeping the offset; the memory
    grows (new elements uninitialised) when it must. A no-op resize changes nothing and does
    not bump the version. Refused on tensors that require grad (not differentiable)."""
    return resize_output(self, tuple(int(n) for n in sizes_arg("resize_", sizes)), bump=True)


def resize_output(self: Tensor, shape: tuple[int, ...], bump: bool = False) -> Tensor:
    """``resize_``'s checks and geometry change; ``bump``: its version bump too (an ``out=``
    resized by ``out_arg.into_out`` is not bumped: only the write that follows is, as in
    PyTorch)."""
    if any(n < 0 for n in shape):
        raise RuntimeError(f"resize_: sizes must be non-negative, got {list(shape)}")
    if requires_grad(self) and is_grad_enabled():
        raise RuntimeError(
            "cannot resize variables that require grad (resize_ is not differentiable); "
            "resize a detached copy: t = t.detach().clone()"
        )
    check_inference("resize_", self)
    if shape == self._sizes:
        return self
    need = _storage_elements(shape, self._offset)
    storage = self._storage
    storage.before_write()
    if need > storage.size():
        storage.check_writable("resize_")
        if not storage.resizable:
            raise RuntimeError(
                f"resize_: Trying to resize storage that is not resizable: it holds "
                f"{storage.size()} elements, {list(shape)} at offset {self._offset} needs {need}, "
                "and its memory is shared (NumPy's, or another alias's); resize a copy: "
                "t = t.clone()"
            )
        grown = allocate(need, storage.dtype)
        grown[: storage.size()] = storage.buffer
        storage.buffer = grown  # every alias keeps seeing the same (now larger) memory
    self._sizes, self._strides = shape, contiguous_strides(shape)
    if bump:
        storage.bump("resize_")
    return self


def resize_as_(self: Tensor, other: Tensor) -> Tensor:
    """``resize_(other.shape)``: its checks first, even when the shape is the same (then the
    strides stay, as in PyTorch)."""
    return resize_(self, other._sizes)


def _storage_elements(shape: tuple[int, ...], offset: int) -> int:
    if numel(shape) > 2**63 - 1:  # (PyTorch checks the element count before the bytes)
        raise RuntimeError("resize_: numel: integer multiplication overflow")
    n = 1
    for d in shape:
        n *= d
        if n >= 2**63 // 8:
            raise RuntimeError(
                f"resize_: Storage size calculation overflowed with sizes={list(shape)}"
            )
    return offset + numel(shape) if n else offset


# -- set_ ----------------------------------------------------------------------------------------
# (the C++ element types PyTorch's message names)
_TYPE_NAMES = {"float64": "double", "float32": "float", "float16": "c10::Half", "int64": "long int",
               "int32": "int", "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
               "bool": "bool"}


def set_(
    self: Tensor, source: Any = None, storage_offset: int | None = None,
    size: Sequence[int] | None = None, stride: Sequence[int] | None = None,
) -> Tensor:
    """PyTorch's ``set_``: this tensor takes over the memory of ``source`` (a tensor, or a
    storage from ``untyped_storage()`` / ``storage()``) with ``source``'s geometry, or with
    ``storage_offset``, ``size`` and ``stride`` (contiguous by default) when given;
    ``set_()`` leaves it no memory (size 0). Refused where an in-place write would be (a
    leaf requiring grad), not recorded. The write bumps the version the tensor's old aliases
    see; the tensor then shares ``source``'s version counter (PyTorch's keeps its own)."""
    check_inference("set_", self)
    check_autograd_inplace("set_", self, (self,))
    dtype = self._storage.dtype
    if source is None:
        storage, geometry = Storage(allocate(0, dtype)), Geometry((0,), (1,), 0)
    else:
        if isinstance(source, Tensor):
            storage, geometry = source._storage, source._geometry
        elif isinstance(source, UntypedStorage):
            storage = source._storage
            geometry = Geometry((storage.size(),), (1,), 0)
        else:
            raise TypeError(
                f"set_(): expected a Tensor or a storage as source, got {type(source).__name__}"
            )
        if storage.dtype != dtype:
            raise RuntimeError(
                f"Could not set tensor of type {_TYPE_NAMES[storage.dtype.name]} to a tensor of "
                f"type {_TYPE_NAMES[dtype.name]}"
            )
        if size is not None:
            sizes = tuple(size)
            strides = contiguous_strides(sizes) if stride is None or not len(stride) else stride
            geometry = vg.as_strided(geometry, storage.size(), sizes, strides, storage_offset or 0)
        elif storage_offset is not None:
            raise TypeError("set_(): storage_offset needs size (and stride)")
    self._storage.bump("set_")
    self._storage = storage
    self._sizes, self._strides, self._offset = geometry
    self._base = self._view_meta = None  # (no longer a view of anything)
    return self
