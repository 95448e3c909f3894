"""PyTorch's ``out=``: refused when grad mode is on and an input or ``out`` requires grad
(nothing is computed then); otherwise the result is computed, its dtype checked against
``out``'s by the op's rule (castable, ``can_cast``, for most; the same dtype for the ops in
``_SAME``, the tuple results' and the ``exact`` ones of ``with_out``; each with PyTorch's
message), and copied into ``out``, which is resized first when its shape differs (with
PyTorch's deprecation warning when it had elements; the resize bumps no version).

Two ways in. The hot functions take ``out`` in their own code and hand it to ``into_out``
after one ``if out is not None`` test: the fused templates (``jitgrad.exp`` and every
declared unary op, ``maximum``/``atan2``/... , also the Tensor methods; so the methods
accept ``out`` too, a deliberate leniency: README), the declared ops' functions
(``declare.py``), ``add``/``sub``/``mul``/``div``, ``cat``, ``stack``, ``where``,
``clamp``, ``sum``, ``mean``, ``max``/``min``, ``pow``, ``logsumexp``. Their ``out`` is
keyword-only (``fused_unary``'s: a fourth positional parameter, so that the op's call stays
specialised by CPython, which specialises no call of a function with keyword-only
parameters; a surplus positional argument still fails, in the computation, before anything
is written; ``fused_binary``'s: in its ``**given`` keywords). The other top-level functions
(``matmul``, ``cumsum``, ``prod``, ``sort``, the comparisons...) are wrapped by
``with_out`` in ``jitgrad/__init__.py``: their Tensor methods take no ``out``, as PyTorch's."""

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


def into_out(op: str, out: Any, function: Callable[..., Any], args: tuple[Any, ...],
             kwargs: dict[str, Any] | None = None, *, same: bool = False) -> Tensor:
    """``function(*args, **kwargs)``'s result written into ``out`` (returned); its tensors
    (in ``args`` and ``kwargs``, and in the lists, tuples and dicts among ``args``) are the
    inputs checked for autograd. (The callers pass the function and its arguments rather
    than a lambda: a lambda would make its variables cells in the caller, a cost on every
    call of a hot function.) ``same``: ``out`` must have
    the result's dtype (as for the ops in ``_SAME``). ``out`` a tuple of tensors: the result
    is one (``max(x, 0)``'s ``(values, indices)``), written into them in order, and returned
    as the result's own kind of tuple holding them."""
    outs = out if out.__class__ is tuple or out.__class__ is list else (out,)
    for o in outs:
        if not isinstance(o, Tensor):  # (a list of numbers: as for the ops whose result is one tensor)
            raise TypeError(f"{op}(): argument 'out' must be Tensor, not {type(out).__name__}")
    if is_grad_enabled() and (
        any(requires_grad(o) for o in outs) or any(requires_grad(t) for t in _tensors(args, kwargs))
    ):
        raise RuntimeError(
            f"{op}(): functions with out=... arguments don't support automatic differentiation, "
            "but one of the arguments requires grad."
        )
    result = function(*args, **kwargs) if kwargs else function(*args)
    if isinstance(result, tuple):
        if outs is not out or len(outs) != len(result):
            raise TypeError(f"{op}(): argument 'out' must be tuple of {len(result)} Tensors, not "
                            f"{type(out).__name__}" + ("" if outs is not out else f" of {len(outs)}"))
        for r, o in zip(result, outs):  # (each of the result's dtype, as PyTorch's kernels check)
            if r.dtype != o.dtype:
                raise RuntimeError(f"Expected out tensor to have dtype {_CPP_NAMES[r.dtype.name]}, but got "
                                   f"{_CPP_NAMES.get(o.dtype.name, o.dtype.name)} instead")
        written = [_write(r, o) for r, o in zip(result, outs)]
        return type(result)(*written) if hasattr(result, "_fields") else tuple(written)  # type: ignore[return-value]
    if outs is out:
        raise TypeError(f"{op}(): argument 'out' must be Tensor, not {type(out).__name__}")
    _check_dtype(op, result.dtype, out.dtype, same)
    return _write(result, out)


def _tensors(args: tuple[Any, ...], kwargs: dict[str, Any] | None) -> list[Tensor]:
    """The tensors among ``args`` and ``kwargs``' values, and in the lists, tuples and dicts
    among ``args`` (``cat``'s list, ``call_pointwise``'s arguments and parameters)."""
    found = [] if kwargs is None else [t for t in kwargs.values() if isinstance(t, Tensor)]
    for x in args:
        if isinstance(x, Tensor):
            found.append(x)
        elif isinstance(x, (list, tuple)):
            found += [t for t in x if isinstance(t, Tensor)]
        elif isinstance(x, dict):
            found += [t for t in x.values() if isinstance(t, Tensor)]
    return found


def _write(result: Tensor, out: Tensor) -> Tensor:
    """``result`` copied into ``out``, resized first (with PyTorch's warning when it had
    elements) when their shapes differ."""
    if out._sizes != result._sizes:
        if out.numel():
            warnings.warn(
                f"An output with one or more elements was resized since it had shape "
                f"{list(out._sizes)}, which does not match the required output shape "
                f"{list(result._sizes)}. This behavior is deprecated, and in a future PyTorch "
                "release outputs will not be resized unless they have zero elements. You can "
                "explicitly reuse an out tensor t by resizing it, inplace, to zero elements with "
                "t.resize_(0).", UserWarning, stacklevel=4,
            )
        from .inplace_views import resize_output  # (imports compare.py, which imports this module)

        resize_output(out, result._sizes)
    return out.copy_(result)  # type: ignore[attr-defined, no-any-return]


# ops whose ``out`` must have the result's dtype, as PyTorch's kernels check it, by the
# message they raise (the rest: castable, ``can_cast``)
_SAME = frozenset({"abs", "absolute", "ceil", "floor", "frac", "neg", "negative", "round", "sgn",
                   "sign", "trunc", "fix", "lerp"})
_BOOL_ONLY = frozenset({"isneginf", "isposinf", "signbit"})


def _check_dtype(op: str, result: np.dtype, out: np.dtype, same: bool) -> None:
    """PyTorch's test of ``out``'s dtype against the result's, for ``op``."""
    if result == out:
        return
    got, expected = _NAMES.get(out.name, out.name), _NAMES.get(result.name, result.name)
    if same or op in _SAME:
        raise RuntimeError(f"Found dtype {got} but expected {expected}")
    if op in _BOOL_ONLY:
        raise RuntimeError(f"{op} does not support non-boolean outputs.")
    if op == "nan_to_num":
        raise RuntimeError(f"nan_to_num: dtype of out: {got} should be same as input: {expected}")
    if op == "where":
        raise RuntimeError(f"Expected out type to be {expected} but got {got}")
    if op in ("amax", "amin"):
        raise RuntimeError(f"Expected the dtype for input and out to match, but got {expected} for "
                           f"input's dtype and {got} for out's dtype.")
    if op == "logsumexp" and out.kind not in "fc":
        raise RuntimeError(f"logsumexp(): Expected floating point type for result tensor, but got: {got}")
    if op in ("all", "any"):
        raise RuntimeError(f"{op} only supports bool tensor for result, got: {got}")
    if not can_cast(result, out):
        if op in ("cat", "stack"):
            raise TypeError(f"torch.cat(): input types can't be cast to the desired output type {got}")
        raise RuntimeError(f"result type {expected} can't be cast to the desired output type {got}")


# (the C++ type names PyTorch's "Expected out tensor to have dtype" message prints)
_CPP_NAMES = {"float64": "double", "float32": "float", "float16": "c10::Half", "int64": "long int",
              "int32": "int", "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
              "bool": "bool"}


def with_out(function: Callable[..., Tensor], dtype_rule: str = "cast") -> Callable[..., Tensor]:
    """``function`` with PyTorch's keyword ``out=`` (see ``into_out``); without it, the call
    goes straight through. ``dtype_rule``, as the op's kernel in PyTorch: ``cast`` (the
    result cast into ``out``), ``exact`` (``out`` must have the result's dtype: ``mm``,
    ``gather``), ``from_out`` (computed in ``out``'s dtype unless one is given: ``cumsum``,
    the factories). Not for a function that warns with a ``stacklevel``: the wrapper's frame
    would be the place the warning names."""
    op = function.__name__

    @functools.wraps(function)
    def wrapped(*args: Any, out: Tensor | None = None, **kwargs: Any) -> Tensor:
        if out is None:
            return function(*args, **kwargs)
        if dtype_rule == "from_out" and kwargs.get("dtype") is None and isinstance(out, Tensor):
            kwargs["dtype"] = out.dtype

        def compute(*args: Any, **kwargs: Any) -> Tensor:
            result = function(*args, **kwargs)
            if dtype_rule == "exact" and result.dtype != out.dtype:  # type: ignore[union-attr]
                raise RuntimeError(f"Expected out tensor to have dtype {_CPP_NAMES[result.dtype.name]}, but got "
                                   f"{_CPP_NAMES[out.dtype.name]} instead")  # type: ignore[union-attr]
            return result

        return into_out(op, out, compute, args, kwargs)

    return wrapped
