"""Joining and broadcasting helpers built on ``cat``/``expand``/``reshape``: ``concat``,
``concatenate``, ``hstack``, ``vstack``, ``dstack``, ``column_stack``, ``atleast_1d/2d/3d``,
``broadcast_to``, ``broadcast_tensors``, ``broadcast_shapes`` and ``inner``.

Each is a composition of differentiable ops, so gradients (and gradients of gradients) are
those of ``cat``, ``expand`` and ``tensordot``, as PyTorch's are.
"""

from __future__ import annotations

from typing import Any, Sequence

from ..geometry import Size
from ..tensor import Tensor
from .stacking import _tensor_list, cat
from .products import tensordot
from .elementwise import mul


def _cat(op: str, tensors: Any, dim: int) -> Tensor:
    """``cat``, its errors naming ``op`` (the function the user called)."""
    try:
        return cat(tensors, dim)
    except (RuntimeError, IndexError) as e:
        message = str(e)
        raise type(e)(message if message.startswith(op) else f"{op}(): {message}") from None


def concat(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    """Alias of ``cat``."""
    return _cat("concat", _tensor_list("concat", tensors), dim)


def concatenate(tensors: Sequence[Tensor], axis: int = 0) -> Tensor:
    """Alias of ``cat`` (NumPy's argument name ``axis``)."""
    return _cat("concatenate", _tensor_list("concatenate", tensors), axis)


def _atleast(t: Tensor, n: int) -> Tensor:
    if t.ndim >= n:
        return t
    if n == 3 and t.ndim == 2:
        return t.unsqueeze(-1)  # type: ignore[attr-defined,no-any-return]
    if n == 3 and t.ndim == 1:
        return t.reshape(1, t.shape[0], 1)  # type: ignore[attr-defined,no-any-return]
    return t.reshape((1,) * (n - t.ndim) + tuple(t.shape))  # type: ignore[attr-defined,no-any-return]


def _atleast_fn(n: int, name: str) -> Any:
    def fn(*tensors: Any) -> Any:
        if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
            return tuple(_atleast(t, n) for t in _tensor_list(name, tensors[0]))
        for t in tensors:
            if not isinstance(t, Tensor):
                raise TypeError(f"{name}(): expected Tensor arguments, got {type(t).__name__}")
        out = tuple(_atleast(t, n) for t in tensors)
        return out[0] if len(out) == 1 else out

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Each tensor viewed with at least {n} dimensions (a single tensor in, one out)."
    return fn


atleast_1d = _atleast_fn(1, "atleast_1d")
atleast_2d = _atleast_fn(2, "atleast_2d")
atleast_3d = _atleast_fn(3, "atleast_3d")


def _nonempty(op: str, tensors: Any) -> list[Tensor]:
    items = _tensor_list(op, tensors)
    if not items:
        raise RuntimeError(f"{op} expects a non-empty TensorList")
    return items


def hstack(tensors: Sequence[Tensor]) -> Tensor:
    """Join along dim 1 (dim 0 when every tensor is at most 1-D)."""
    items = [_atleast(t, 1) for t in _nonempty("hstack", tensors)]
    return _cat("hstack", items, 0 if items[0].ndim == 1 else 1)


def vstack(tensors: Sequence[Tensor]) -> Tensor:
    """Join along dim 0 after viewing each tensor with at least 2 dims."""
    return _cat("vstack", [_atleast(t, 2) for t in _nonempty("vstack", tensors)], 0)


row_stack = vstack


def dstack(tensors: Sequence[Tensor]) -> Tensor:
    """Join along dim 2 after viewing each tensor with at least 3 dims."""
    return _cat("dstack", [_atleast(t, 3) for t in _nonempty("dstack", tensors)], 2)


def column_stack(tensors: Sequence[Tensor]) -> Tensor:
    """0-d and 1-d tensors become columns; then join along dim 1."""
    items = _nonempty("column_stack", tensors)
    cols = [t.reshape(t.numel(), 1) if t.ndim <= 1 else t for t in items]  # type: ignore[attr-defined]
    return _cat("column_stack", cols, 1)


def broadcast_shapes(*shapes: Any) -> Size:
    """The shape all ``shapes`` broadcast to (an int counts as a 1-d shape)."""
    result: list[int] = []
    for index, shape in enumerate(shapes):
        dims = (shape,) if isinstance(shape, int) else tuple(shape)
        for d in dims:
            if isinstance(d, bool) or not isinstance(d, int):
                raise TypeError(f"broadcast_shapes(): shapes must be ints or sequences of ints, got {type(d).__name__}")
            if d < 0:
                raise RuntimeError(f"broadcast_shapes(): Trying to create tensor with negative dimension {d}: {list(dims)}")
        width = max(len(result), len(dims))
        result = [1] * (width - len(result)) + result
        padded = [1] * (width - len(dims)) + list(dims)
        for i, (r, d) in enumerate(zip(result, padded)):
            if r == 1:
                result[i] = d
            elif d != 1 and d != r:
                raise RuntimeError(
                    f"broadcast_shapes(): shape {list(dims)} (argument {index}) cannot be broadcast "
                    f"to {result}: dim {i - width} is {d}, expected {r} or 1"
                )
    return Size(result)


def broadcast_to(input: Tensor, size: Any) -> Tensor:
    """``input.expand(size)``: a view (``-1`` keeps a dim)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"broadcast_to(): argument 'input' must be a Tensor, got {type(input).__name__}")
    return input.expand(tuple(size))  # type: ignore[attr-defined,no-any-return]


def broadcast_tensors(*tensors: Any) -> tuple[Tensor, ...]:
    """Every tensor expanded (as a view) to the shape they broadcast to together."""
    items = _tensor_list("broadcast_tensors", tensors[0] if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)) else tensors)
    try:
        shape = broadcast_shapes(*(t.shape for t in items))
    except RuntimeError as e:
        raise RuntimeError(str(e).replace("broadcast_shapes()", "broadcast_tensors()")) from None
    # (a tensor already of that shape is returned itself, as PyTorch does)
    return tuple(t if t.shape == shape else t.expand(tuple(shape)) for t in items)  # type: ignore[attr-defined]


def inner(input: Tensor, other: Tensor) -> Tensor:
    """Sum over the last dims of both (a product when either is 0-d)."""
    for name, t in (("input", input), ("other", other)):
        if not isinstance(t, Tensor):
            raise TypeError(f"inner(): argument '{name}' must be a Tensor, got {type(t).__name__}")
    if input.ndim == 0 or other.ndim == 0:
        return mul(input, other)
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(
            f"inner(): the last dims must match, got input {list(input.shape)} and other "
            f"{list(other.shape)} ({input.shape[-1]} != {other.shape[-1]})"
        )
    return tensordot(input, other, dims=([-1], [-1]))
