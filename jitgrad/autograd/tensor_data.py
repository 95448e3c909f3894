"""``Tensor.data`` (get and set), ``_version``, ``is_inference``, ``new``, ``data_ptr`` and
the storage accessors, with PyTorch's version-counter semantics (Note [Version counter] in
``storage.py``): ``x.data`` shares x's memory but has its own version counter and no
history; ``x.data = y`` gives x y's memory and geometry but keeps x's counter (shared with
x's views) and x's autograd identity. Attached to ``Tensor`` in ``jitgrad/_bind.py``.
"""

from __future__ import annotations

from typing import Any

from .. import dtypes
from ..storage import Storage, TypedStorage, UntypedStorage, _warn_typed_storage_removal
from ..tensor import Tensor


def get_data(self: Tensor) -> Tensor:
    """An alias of ``self``'s memory outside autograd, with a fresh version counter: writes
    through it are not seen by autograd's checks (the reason ``.data`` is discouraged)."""
    return Tensor._make(self._storage.alias(), self._sizes, self._strides, self._offset)


def set_data(self: Tensor, value: Any) -> None:
    """``x.data = y``: x now reads y's memory with y's geometry; x keeps its version counter,
    ``requires_grad`` and history."""
    if not isinstance(value, Tensor):
        raise TypeError(
            f"Variable data has to be a tensor, but got {type(value).__name__}"
        )
    if self._requires_grad and value.dtype not in dtypes.FLOATING:
        raise RuntimeError(
            f"data set to a tensor that requires gradients must be floating point or complex "
            f"dtype, got {value.dtype.name}"
        )
    storage = Storage(value._storage.buffer, counter=self._storage.counter)
    storage.inference = value._storage.inference
    storage.resizable = value._storage.resizable = False  # two storages on one buffer
    self._storage = storage
    self._sizes, self._strides, self._offset = value._sizes, value._strides, value._offset


def delete_data(self: Tensor) -> None:
    raise RuntimeError("Deleting tensor data is not allowed. Delete tensor instead!")  # PyTorch's


def version(self: Tensor) -> int:
    if self._storage.inference:
        raise RuntimeError(
            "Inference tensors do not track version counter: this tensor was created under "
            "jitgrad.inference_mode()"
        )
    return self._storage.version


def is_inference(self: Tensor) -> bool:
    """Whether ``self`` was made under ``inference_mode`` (or is a view of such a tensor)."""
    return bool(self._storage.inference)


def data_ptr(self: Tensor) -> int:
    """The address of the tensor's first element; 0 when it has none (as PyTorch's)."""
    if not self.numel():
        return 0
    buffer = self._storage.buffer
    return int(buffer.ctypes.data) + self._offset * buffer.itemsize


def untyped_storage(self: Tensor) -> UntypedStorage:
    return UntypedStorage(self._storage)


def storage(self: Tensor) -> TypedStorage:
    """PyTorch's legacy typed storage: ``data_ptr()``, ``size()`` / ``len()`` in elements
    (with PyTorch's deprecation warning, once per process)."""
    _warn_typed_storage_removal(stacklevel=2)
    return TypedStorage(self._storage)
