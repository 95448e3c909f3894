"""``Parameter``: a leaf Tensor that a ``Module`` registers as one of its parameters.

A subclass of ``Tensor`` (``isinstance(p, Tensor)`` holds), sharing the storage and version
counter of the data it wraps, as ``torch.nn.Parameter`` does. Results of ops on a Parameter
are plain Tensors (ops build their outputs with ``Tensor._make``).
"""

from __future__ import annotations

import copy
from typing import Any

from .. import creation
from ..autograd import variable
from ..tensor import Tensor


class Parameter(Tensor):
    """``Parameter(data=None, requires_grad=True)``: a leaf aliasing ``data``'s memory."""

    __slots__ = ()

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True) -> Parameter:
        if data is None:
            data = creation.empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(
                f"Parameter(): expected data to be a jitgrad.Tensor, got {type(data).__name__}"
            )
        p = cls._make(data._storage, data._sizes, data._strides, data._offset)
        variable.requires_grad_(p, requires_grad)
        return p  # type: ignore[return-value]

    def __init__(self, data: Tensor | None = None, requires_grad: bool = True) -> None:
        pass  # everything happened in __new__ (Tensor.__init__ refuses direct construction)

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    def __deepcopy__(self, memo: dict[int, Any]) -> Parameter:
        if id(self) in memo:
            return memo[id(self)]
        result = Parameter(self.detach().clone(), self._requires_grad)  # type: ignore[attr-defined]
        if self._grad is not None:
            result._grad = copy.deepcopy(self._grad, memo)
        memo[id(self)] = result
        return result

    def __reduce_ex__(self, protocol: Any) -> Any:
        return (_rebuild_parameter, (self.detach().clone(), self._requires_grad))  # type: ignore[attr-defined]


class Buffer(Tensor):
    """``Buffer(data=None, *, persistent=True)``: a tensor that, assigned as a ``Module``
    attribute, is registered as a buffer (in ``state_dict`` unless not ``persistent``), as
    ``torch.nn.Buffer``. It aliases ``data`` without its history (``data.detach()``) and keeps
    its ``requires_grad``. (PyTorch's is a plain ``Tensor`` marked by an attribute; jitgrad's
    tensors have fixed slots, so it is a subclass, as ``Parameter``.)"""

    __slots__ = ("persistent",)

    def __new__(cls, data: Tensor | None = None, *, persistent: bool = True) -> Buffer:
        if data is None:
            data = creation.empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Buffer(): expected data to be a jitgrad.Tensor, got {type(data).__name__}")
        b = cls._make(data._storage, data._sizes, data._strides, data._offset)
        variable.requires_grad_(b, bool(data._requires_grad or data._grad_fn is not None))
        b.persistent = bool(persistent)
        return b  # type: ignore[return-value]

    def __init__(self, data: Tensor | None = None, *, persistent: bool = True) -> None:
        pass  # everything happened in __new__

    def __deepcopy__(self, memo: dict[int, Any]) -> Buffer:
        if id(self) not in memo:
            memo[id(self)] = Buffer(self.detach().clone(), persistent=self.persistent)  # type: ignore[attr-defined]
        return memo[id(self)]  # type: ignore[no-any-return]

    def __reduce_ex__(self, protocol: Any) -> Any:
        return (_rebuild_buffer, (self.detach().clone(), self.persistent))  # type: ignore[attr-defined]


def _rebuild_buffer(data: Tensor, persistent: bool) -> Buffer:
    return Buffer(data, persistent=persistent)


def _rebuild_parameter(data: Tensor, requires_grad: bool) -> Parameter:
    return Parameter(data, requires_grad)


def set_data(t: Tensor, new: Tensor) -> None:
    """Make ``t`` see ``new``'s memory and geometry, keeping ``t``'s identity and autograd
    state: what ``param.data = new`` does in PyTorch (used by ``Module.to``/``double``)."""
    t._storage = new._storage
    t._sizes = new._sizes
    t._strides = new._strides
    t._offset = new._offset
