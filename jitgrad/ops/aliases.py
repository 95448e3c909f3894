"""PyTorch's alias names (``torch.absolute`` is ``torch.abs``, ``torch.arccos`` is
``torch.acos``, ``divide``/``multiply``/``subtract``/``negative``, the comparison words,
``fix``): the very same functions, so their nodes, errors and dtypes are the aliased op's,
as in PyTorch (``torch.absolute(x).grad_fn`` is an ``AbsBackward0``). Also the small
queries PyTorch offers under two names (``ndimension``, ``ravel``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..tensor import Tensor
from .compare import eq, ge, gt, le, lt, ne
from .elementwise import div, mul, neg, sub
from .pointwise import abs, acos, acosh, asin, asinh, atan, atanh, trunc  # noqa: A004
from .binary_math import atan2

absolute = abs
arccos, arcsin, arctan = acos, asin, atan
arccosh, arcsinh, arctanh = acosh, asinh, atanh
arctan2 = atan2
divide, multiply, subtract, negative = div, mul, sub, neg
greater, greater_equal, less, less_equal, not_equal = gt, ge, lt, le, ne
fix = trunc


def ravel(input: Tensor) -> Tensor:
    """``input`` flattened: a view of it, or of a contiguous copy (PyTorch's
    ``contiguous().view(-1)``)."""
    return input.contiguous().view(-1)  # type: ignore[attr-defined,no-any-return]


def is_nonzero(input: Tensor) -> bool:
    """Whether the one element is nonzero (RuntimeError for any other number of elements)."""
    n = input.numel()
    if n != 1:
        raise RuntimeError(
            "Boolean value of Tensor with no values is ambiguous" if n == 0 else
            "Boolean value of Tensor with more than one value is ambiguous"
        )
    return bool(input.item())


def contains(self: Tensor, element: Any) -> bool:
    """``element in self``: whether any element equals ``element`` (a number or a tensor)."""
    if not isinstance(element, (Tensor, bool, int, float)):
        raise RuntimeError(
            "Tensor.__contains__ only supports Tensor or scalar, but you passed in a "
            f"{type(element)}."
        )
    return bool((eq(self, element)).any().item())  # type: ignore[attr-defined]


# -- complex-number queries of real tensors: the tensor itself, as PyTorch ----------------------
def resolve_conj(input: Tensor) -> Tensor:
    """The tensor itself (jitgrad's dtypes are real; PyTorch returns ``input`` too)."""
    return input


resolve_neg = resolve_conj


def real(input: Tensor) -> Tensor:
    return input


def imag(input: Tensor) -> Tensor:
    raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")


def isreal(input: Tensor) -> Tensor:
    """True everywhere (every jitgrad dtype is real)."""
    from ..creation import ones_like

    return ones_like(input, dtype=np.bool_)


def is_conj(input: Tensor) -> bool:
    return False
