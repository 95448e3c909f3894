"""Forward-mode AD, as PyTorch's ``torch.autograd.forward_ad``: ``dual_level``,
``make_dual``, ``unpack_dual`` (and ``enter_dual_level``/``exit_dual_level``).

Inside a level, ``make_dual(primal, tangent)`` is a tensor carrying ``tangent``; every op on
it gives its outputs the Jacobian-vector product as tangent, read with ``unpack_dual``. How
the tangents flow (no per-op forward formulas: the double-vjp trick on each op's backward,
and nothing on the eager path when no level is open) is ``_dual_propagation``'s docstring.
One level at a time, as in PyTorch (``torch.func.jvp`` nests instead).
"""

from __future__ import annotations

import functools
from typing import Any, Callable, NamedTuple

from ..tensor import Tensor
from . import _dual_tangents as dt

__all__ = [
    "UnpackedDualTensor",
    "enter_dual_level",
    "exit_dual_level",
    "make_dual",
    "unpack_dual",
    "dual_level",
]

_current_level = -1
_propagator: Any = None


def enter_dual_level() -> int:
    """Enter a new forward grad level (the only one: levels do not nest) and return it; it
    becomes the default level of ``make_dual`` and ``unpack_dual``."""
    global _current_level, _propagator
    if _current_level >= 0:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    from ._dual_propagation import Propagator

    _propagator = Propagator()
    _propagator.install()
    _current_level = 0
    return _current_level


def exit_dual_level(*, level: int | None = None) -> None:
    """Exit the forward grad level ``level`` (default: the current one): every tangent made
    in it is forgotten."""
    global _current_level, _propagator
    if level is None:
        level = _current_level
    if level != _current_level:
        raise RuntimeError(
            "Trying to exit a forward AD level that was not the last one that was created. "
            "This is not supported."
        )
    if level < 0:  # (PyTorch's check, its message: exit_dual_level() with no level open)
        raise RuntimeError("Dual level must be a positive number.")
    if _propagator is not None:
        _propagator.uninstall()
        _propagator = None
    dt.clear()
    _current_level = level - 1


def _is_float(t: Any) -> bool:
    return isinstance(t, Tensor) and t.dtype.kind in "fc"


def make_dual(tensor: Tensor, tangent: Tensor, *, level: int | None = None) -> Tensor:
    """A new tensor aliasing ``tensor`` (a view of it, differentiable in reverse mode) with
    ``tangent`` as its forward gradient: ``tangent`` itself when laid out like ``tensor``,
    else a copy laid out so."""
    if level is None:
        level = _current_level
    if level < 0:
        raise RuntimeError(
            "Trying to create a dual Tensor for forward AD but no level exists, make sure to "
            "enter_dual_level() first."
        )
    for what, t in (("primal", tensor), ("tangent", tangent)):
        if not isinstance(t, Tensor):  # (PyTorch's type: its check reads t.is_floating_point)
            raise AttributeError(
                f"make_dual(): expected the {what} to be a Tensor, got {type(t).__name__} (which has no "
                "attribute 'is_floating_point')"
            )
        if not _is_float(t):
            raise ValueError(f"Expected {what} to be floating point or complex, but got: {_dtype_name(t)}")
    if level != _current_level:
        raise RuntimeError("Invalid level given to _make_dual")
    if tuple(tangent.shape) != tuple(tensor.shape):
        raise RuntimeError(
            "Trying to set a forward gradient that has a different size than that of the original "
            f"Tensor, this is not supported. Tensor is of size {list(tensor.shape)} while the given "
            f"forward gradient is of size {list(tangent.shape)}."
        )
    if dt.tangent_of(tensor) is not None:
        raise RuntimeError(
            "Making a dual Tensor based on a Tensor that already has a forward gradient at the same "
            f"level {level} is not supported."
        )
    from ..ops.view_ops import view

    _propagator.watch()  # (again, should something have replaced the profile function)
    dual = view(tensor, tensor._sizes)
    dt.set_tangent(dual, dt.laid_out_like(dual, tangent))
    return dual


def _dtype_name(t: Tensor) -> str:
    return f"torch.{t.dtype.name}" if t.dtype.name != "bool" else "torch.bool"


class UnpackedDualTensor(NamedTuple):
    """What ``unpack_dual`` returns: ``primal`` and ``tangent`` (None when not dual)."""

    primal: Tensor
    tangent: Tensor | None


def unpack_dual(tensor: Tensor, *, level: int | None = None) -> UnpackedDualTensor:
    """``(primal, tangent)`` of ``tensor``: ``primal`` a view of it (differentiable), without
    tangent; ``tangent`` its forward gradient at ``level``, or None."""
    if level is None:
        level = _current_level
    if level < 0:
        return UnpackedDualTensor(tensor, None)
    if not isinstance(tensor, Tensor):
        raise TypeError(
            f"_unpack_dual(): argument 'dual' (position 1) must be Tensor, not {type(tensor).__name__}"
        )
    tangent = dt.tangent_of(tensor)
    if level != _current_level:
        if tangent is not None:  # (PyTorch's message: its primal view is an op of its own)
            raise RuntimeError("Invalid level given to _fw_primal")
        return UnpackedDualTensor(_primal_view(tensor), None)
    if isinstance(tangent, dt.TangentError):
        raise tangent.kind(tangent.message)
    return UnpackedDualTensor(_primal_view(tensor), tangent)


def _primal_view(tensor: Tensor) -> Tensor:
    """A view of ``tensor`` that is not dual (neither its base's tangent shows through)."""
    from ..ops.view_ops import view

    primal = view(tensor, tensor._sizes)
    dt.set_tangent(primal, dt.NOT_DUAL)
    return primal


class dual_level:
    """Context manager (and decorator) for forward AD: enters a level on entry (its value is
    what ``with`` gives) and exits it on exit, forgetting its tangents."""

    def __call__(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with dual_level():
                return fn(*args, **kwargs)
        return wrapper

    def __enter__(self) -> int:
        return enter_dual_level()

    def __exit__(self, exc_type: Any, exc_value: Any, traceback: Any) -> None:
        exit_dual_level()
