"""``copy.deepcopy`` and ``pickle`` of tensors, as PyTorch's ``Tensor.__deepcopy__`` /
``__reduce_ex__``.

deepcopy copies leaves only (a tensor with history is refused, with PyTorch's message); the
copies of tensors sharing one storage share one copied storage (the storage is memoised),
each keeping its geometry; ``requires_grad`` and ``.grad`` (deep-copied) follow. pickle
writes the storage's buffer and the geometry and reads back a leaf (``requires_grad`` kept,
history dropped, as PyTorch); tensors pickled together do not share memory afterwards (as
with PyTorch's plain pickle). Gradient hooks are not serialized (with PyTorch's warning).
"""

from __future__ import annotations

import copy
import warnings
from typing import Any

import numpy as np

from .autograd import variable
from .autograd.graph import grad_fn_of
from .storage import Storage
from .tensor import Tensor

_NOT_A_LEAF = (
    "Only Tensors created explicitly by the user (graph leaves) support the deepcopy protocol "
    "at the moment.  If you were attempting to deepcopy a module, this may be because of a "
    "torch.nn.utils.weight_norm usage, see https://github.com/pytorch/pytorch/pull/103001"
)


def deepcopy(self: Tensor, memo: dict[int, Any]) -> Tensor:
    if id(self) in memo:
        return memo[id(self)]  # type: ignore[no-any-return]
    if grad_fn_of(self) is not None:
        raise RuntimeError(_NOT_A_LEAF)
    storage = memo.get(id(self._storage))
    if storage is None:
        storage = Storage(np.array(self._storage.buffer, copy=True))
        memo[id(self._storage)] = storage
        copy._keep_alive(self._storage, memo)  # type: ignore[attr-defined]  # (its id stays unique)
    new = Tensor._make(storage, self._sizes, self._strides, self._offset)
    if self._requires_grad:
        variable.requires_grad_(new, True)
    if self._grad is not None:
        new._grad = copy.deepcopy(self._grad, memo)
    memo[id(self)] = new
    return new


def reduce_ex(self: Tensor, protocol: Any) -> Any:
    if self._hooks:
        for hook in self._hooks.values():
            warnings.warn(
                f"backward hook {hook!r} on tensor will not be serialized.  If this is expected, "
                "you can decorate the function with @torch.utils.hooks.unserializable_hook to "
                "suppress this warning", UserWarning, stacklevel=3,
            )
    requires_grad = bool(self._requires_grad or self._grad_fn is not None)
    return (_rebuild_tensor,
            (self._storage.buffer, self._offset, self._sizes, self._strides, requires_grad))


def _rebuild_tensor(buffer: np.ndarray, offset: int, sizes: tuple[int, ...], strides: tuple[int, ...],
                    requires_grad: bool) -> Tensor:
    t = Tensor._make(Storage(np.array(buffer, copy=True)), tuple(sizes), tuple(strides), offset)
    if requires_grad:
        variable.requires_grad_(t, True)
    return t
