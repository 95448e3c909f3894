"""``out=`` of the common binary ops (``add``, ``sub``, ``mul``, ``div`` and their alias
names), and of the functions ``with_out`` wraps for the top-level namespace (``matmul``,
``cumsum``, ``gather``...: their Tensor methods take no ``out``, as PyTorch's), as PyTorch's:
refused when grad mode is on and an input or ``out`` requires grad
(nothing is computed then); otherwise the result is computed, checked castable to ``out``'s
dtype, and copied into ``out``, which is resized first when its shape differs (with
PyTorch's deprecation warning when it had elements)."""

from __future__ import annotations

import functools
import warnings
from typing import Any, Callable

import numpy as np

from ..autograd.grad_mode import is_grad_enabled
from ..autograd.graph import requires_grad
from ..tensor import Tensor

# (PyTorch's ScalarType names, which its cast message prints)
_NAMES = {"float64": "Double", "float32": "Float", "float16": "Half", "int64": "Long",
          "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}


def can_cast(source: np.dtype, target: np.dtype) -> bool:
    """PyTorch's ``canCast``: no float into an integer dtype, nothing but bool into bool."""
    if source.kind == "f" and target.kind in "iu":
        return False
    return not (target.kind == "b" and source.kind != "b")


def into_out(op: str, out: Any, compute: Callable[[], Tensor], *inputs: Any) -> Tensor:
    """``compute()``'s result written into ``out`` (returned)."""
    if not isinstance(out, Tensor):
        raise TypeError(f"{op}(): argument 'out' must be Tensor, not {type(out).__name__}")
    if is_grad_enabled() and (
        requires_grad(out) or any(isinstance(t, Tensor) and requires_grad(t) for t in inputs)
    ):
        raise RuntimeError(
            f"{op}(): functions with out=... arguments don't support automatic differentiation, "
            "but one of the arguments requires grad."
        )
    result = compute()
    if not can_cast(result.dtype, out.dtype):
        raise RuntimeError(
            f"result type {_NAMES[result.dtype.name]} can't be cast to the desired output type "
            f"{_NAMES[out.dtype.name]}"
        )
    if out._sizes != result._sizes:
        if out.numel():
            warnings.warn(
                f"An output with one or more elements was resized since it had shape "
                f"{list(out._sizes)}, which does not match the required output shape "
                f"{list(result._sizes)}. This behavior is deprecated, and in a future PyTorch "
                "release outputs will not be resized unless they have zero elements. You can "
                "explicitly reuse an out tensor t by resizing it, inplace, to zero elements with "
                "t.resize_(0).", UserWarning, stacklevel=3,
            )
        out.resize_(result._sizes)  # type: ignore[attr-defined]
    return out.copy_(result)  # type: ignore[attr-defined, no-any-return]


# (the C++ type names PyTorch's "Expected out tensor to have dtype" message prints)
_CPP_NAMES = {"float64": "double", "float32": "float", "float16": "c10::Half", "int64": "long int",
              "int32": "int", "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
              "bool": "bool"}


def with_out(function: Callable[..., Tensor], dtype_rule: str = "cast") -> Callable[..., Tensor]:
    """``function`` with PyTorch's keyword ``out=`` (see ``into_out``); without it, the call
    goes straight through. ``dtype_rule``, as the op's kernel in PyTorch: ``cast`` (the
    result cast into ``out``), ``exact`` (``out`` must have the result's dtype: ``mm``,
    ``gather``), ``from_out`` (computed in ``out``'s dtype unless one is given: ``cumsum``,
    the factories)."""
    op = function.__name__

    @functools.wraps(function)
    def wrapped(*args: Any, out: Tensor | None = None, **kwargs: Any) -> Tensor:
        if out is None:
            return function(*args, **kwargs)
        if dtype_rule == "from_out" and kwargs.get("dtype") is None and isinstance(out, Tensor):
            kwargs["dtype"] = out.dtype

        def compute() -> Tensor:
            result = function(*args, **kwargs)
            if dtype_rule == "exact" and result.dtype != out.dtype:  # type: ignore[union-attr]
                raise RuntimeError(f"Expected out tensor to have dtype {_CPP_NAMES[result.dtype.name]}, but got "
                                   f"{_CPP_NAMES[out.dtype.name]} instead")  # type: ignore[union-attr]
            return result

        return into_out(op, out, compute, *args, *kwargs.values())

    return wrapped
