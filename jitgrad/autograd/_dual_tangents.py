"""The tangents of forward-mode AD (``forward_ad``): which tensor carries which tangent.

A dual tensor's tangent is kept here, beside it (the Tensor holds no forward-AD state, so
the eager path does not change). Every tangent is laid out like its primal: the same sizes,
strides and storage offset, in a storage of the primal storage's size. A view's tangent is
then the same view of its source's tangent storage (no copy), and a write into a view of a
dual tensor is a write into the dual tensor's tangent, as PyTorch's view tangents are views.

A view whose own tangent was never set reads its base's, viewed (``tangent_of``), when the
base became dual by a write of a dual value (into it, or into one of its views): its views
made before see it, as in PyTorch. Other bases do not show through: a view made from a
non-dual alias of a dual tensor (``unpack_dual``'s primal) is not dual, as in PyTorch.
"""

from __future__ import annotations

import weakref
from typing import Any

from ..storage import allocate
from ..tensor import Tensor
from . import grad_mode


class TangentError:
    """Stands for a tangent that could not be computed: ``unpack_dual`` raises it (an
    exception of ``kind``)."""

    __slots__ = ("kind", "message")

    def __init__(self, kind: type[Exception], message: str) -> None:
        self.kind = kind
        self.message = message


# id(primal) -> (weak reference to the primal, its tangent or a TangentError, whether it
# shows through the primal's views)
TANGENTS: dict[int, tuple[Any, Any, bool]] = {}


def _forget(key: int, ref: Any) -> None:
    entry = TANGENTS.get(key)
    if entry is not None and entry[0] is ref:
        del TANGENTS[key]


def clear() -> None:
    """Forget every tangent (the level was exited)."""
    TANGENTS.clear()


NOT_DUAL = object()  # the tangent of a view that is not dual although its base is (a primal)


def own_tangent(t: Tensor) -> Any:
    """The tangent set on ``t`` itself (None if none)."""
    entry = TANGENTS.get(id(t))
    if entry is None or entry[0]() is not t or entry[1] is NOT_DUAL:
        return None
    return entry[1]


def set_tangent(t: Tensor, tangent: Any, shows_through: bool = False) -> None:
    """``t``'s tangent is ``tangent``; ``shows_through``: its views that have none read it
    (a base made dual by a write into one of its views)."""
    key = id(t)
    ref = weakref.ref(t, lambda r, key=key: _forget(key, r))
    TANGENTS[key] = (ref, tangent, shows_through)


def tangent_of(t: Tensor) -> Any:
    """``t``'s tangent (or TangentError): its own, else its base's viewed as ``t``, else None."""
    entry = TANGENTS.get(id(t))
    if entry is not None and entry[0]() is t:
        return None if entry[1] is NOT_DUAL else entry[1]
    base = t._base
    if base is None:
        return None
    entry = TANGENTS.get(id(base))
    if entry is None or entry[0]() is not base or not entry[2]:
        return None
    of_base = entry[1]
    if isinstance(of_base, TangentError):
        return of_base
    view = view_like(of_base, t)
    set_tangent(t, view)
    return view


def view_like(tangent: Tensor, t: Tensor) -> Tensor:
    """``tangent``'s storage seen through ``t``'s geometry (``tangent`` mirrors the storage
    ``t`` views): a view of its root made by ``as_strided`` with grad mode on, so that a
    differentiable write into it is one into the root (a tangent with a graph)."""
    from ..ops.as_strided import as_strided

    root = tangent if tangent._base is None else tangent._base
    with grad_mode.enable_grad():
        return as_strided(root, t._sizes, t._strides, t._offset)  # type: ignore[no-any-return]


def mirrors(primal: Tensor, tangent: Tensor) -> bool:
    """Whether ``tangent`` is laid out like ``primal``'s storage (then used as it is)."""
    return (tangent._sizes == primal._sizes and tangent._strides == primal._strides
            and tangent._offset == primal._offset
            and tangent._storage.size() == primal._storage.size())


def zeros_like_storage(primal: Tensor, dtype: Any) -> Tensor:
    """A zero tangent for ``primal``, laid out like it."""
    whole = Tensor._from_buffer(allocate(primal._storage.size(), dtype, 0), (primal._storage.size(),))
    return view_like(whole, primal)


def laid_out_like(primal: Tensor, values: Tensor) -> Tensor:
    """``values`` in a tensor laid out like ``primal`` (``values`` itself if it already is:
    PyTorch keeps such a tangent as it is, else copies it). The copy is differentiable: a
    tangent requiring grad stays connected to its graph."""
    if mirrors(primal, values):
        return values
    out = zeros_like_storage(primal, values.dtype)
    with grad_mode.set_grad_enabled(values.requires_grad):  # (a copy with a graph if it has one)
        out.copy_(values)  # type: ignore[attr-defined]
    return out
