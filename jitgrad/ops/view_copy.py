"""The ``*_copy`` variants of the view ops (``view_copy``, ``diagonal_copy``, ``split_copy``,
...): the same values and gradients as the view, in fresh contiguous memory, so the result
is not a view and writing into it leaves the input alone. Each takes ``out=`` (a tensor, or
a sequence of tensors for the multi-output ones) as PyTorch's do: the result is copied into
it, resized first when its shape differs.

The backward is the view's backward followed by ``clone``'s (two nodes where PyTorch has one
``<Op>Backward0_copy``); the gradients are the same.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from ..autograd.graph import requires_grad
from ..autograd.grad_mode import is_grad_enabled
from ..tensor import Tensor
from . import as_strided as _as_strided
from . import view_ops
from .structure import clone


def _into(op: str, result: Tensor, out: Tensor) -> Tensor:
    if not isinstance(out, Tensor):
        raise TypeError(f"{op}(): argument 'out' must be a Tensor, got {type(out).__name__}")
    if is_grad_enabled() and (requires_grad(result) or requires_grad(out)):
        raise RuntimeError(
            f"{op}(): functions with out=... arguments don't support automatic differentiation, "
            "but one of the arguments requires grad."
        )
    if out.dtype != result.dtype:
        raise RuntimeError(
            f"{op}(): expected out= of dtype {result.dtype.name}, got {out.dtype.name}"
        )
    if out._sizes != result._sizes:
        out.resize_(result._sizes)  # type: ignore[attr-defined]
    return out.copy_(result)  # type: ignore[attr-defined, no-any-return]


def _copy_variant(name: str, view_fn: Callable[..., Any]) -> Callable[..., Any]:
    def op(self: Tensor, *args: Any, out: Any = None, **kwargs: Any) -> Any:
        result = view_fn(self, *args, **kwargs)
        if isinstance(result, tuple):
            copies = tuple(clone(r, memory_format="contiguous_format") for r in result)
            if out is None:
                return copies
            if not isinstance(out, (tuple, list)) or len(out) != len(copies):
                raise RuntimeError(
                    f"{name}(): expected out= to be a sequence of {len(copies)} tensors, got {out!r}"
                )
            return tuple(_into(name, c, o) for c, o in zip(copies, out))
        copy = clone(result, memory_format="contiguous_format")
        return copy if out is None else _into(name, copy, out)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"``{view_fn.__name__}`` into new memory (not a view); takes ``out=``."
    return op


def _view(self: Tensor, *shape: Any) -> Tensor:
    return view_ops.view(self, *shape)


view_copy = _copy_variant("view_copy", _view)
as_strided_copy = _copy_variant("as_strided_copy", _as_strided.as_strided)
alias_copy = _copy_variant("alias_copy", view_ops.alias)
diagonal_copy = _copy_variant("diagonal_copy", view_ops.diagonal)
expand_copy = _copy_variant("expand_copy", view_ops.expand)
narrow_copy = _copy_variant("narrow_copy", view_ops.narrow)
permute_copy = _copy_variant("permute_copy", view_ops.permute)
select_copy = _copy_variant("select_copy", view_ops.select)
squeeze_copy = _copy_variant("squeeze_copy", view_ops.squeeze)
unsqueeze_copy = _copy_variant("unsqueeze_copy", view_ops.unsqueeze)
t_copy = _copy_variant("t_copy", view_ops.t)
transpose_copy = _copy_variant("transpose_copy", view_ops.transpose)
unfold_copy = _copy_variant("unfold_copy", view_ops.unfold)
unbind_copy = _copy_variant("unbind_copy", view_ops.unbind)
split_copy = _copy_variant("split_copy", view_ops.split)
split_with_sizes_copy = _copy_variant("split_with_sizes_copy", view_ops.split_with_sizes)

COPY_VARIANTS: Sequence[str] = (
    "view_copy", "as_strided_copy", "alias_copy", "diagonal_copy", "expand_copy", "narrow_copy",
    "permute_copy", "select_copy", "squeeze_copy", "unsqueeze_copy", "t_copy",
    "transpose_copy", "unfold_copy", "unbind_copy", "split_copy", "split_with_sizes_copy",
)
