"""The ``*_copy`` variants of the view ops (``view_copy``, ``diagonal_copy``, ``split_copy``,
...): the same values and gradients as the view, in fresh contiguous memory, so the result
is not a view and writing into it leaves the input alone. Each takes ``out=`` (a tensor, or
a sequence of tensors for the multi-output ones) as PyTorch's do: the result is copied into
it, resized first when its shape differs (with PyTorch's deprecation warning unless it was
empty).

The result's ``grad_fn`` is one node, ``<View>Backward0_copy`` as in PyTorch, which runs the
view's backward.
"""

from __future__ import annotations

import warnings
from typing import Any, Callable, Sequence

from ..autograd.graph import record, requires_grad
from ..autograd.grad_mode import is_grad_enabled, no_grad
from ..autograd.node import Grads, Node
from ..tensor import Tensor
from . import as_strided as _as_strided
from . import view_ops
from .structure import clone


def _resize_out(out: Tensor, sizes: tuple[int, ...]) -> None:
    """PyTorch's ``at::native::resize_output``: a non-empty ``out`` of another shape is
    resized with a deprecation warning (on every call), an empty one silently."""
    if out._sizes == sizes:
        return
    if out.numel():
        warnings.warn(
            f"An output with one or more elements was resized since it had shape "
            f"{list(out._sizes)}, which does not match the required output shape "
            f"{list(sizes)}. This behavior is deprecated, and in a future PyTorch "
            "release outputs will not be resized unless they have zero elements. You can "
            "explicitly reuse an out tensor t by resizing it, inplace, to zero elements "
            "with t.resize_(0).", UserWarning, stacklevel=4,
        )
    out.resize_(sizes)  # type: ignore[attr-defined]


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
    _resize_out(out, result._sizes)
    return out.copy_(result)  # type: ignore[attr-defined, no-any-return]


# PyTorch's kernels for the copy variants with several results, by name: what each calls
# itself when out= has the wrong length, and whether it writes into out as ``copy_`` does
# (broadcasting and casting, never resizing) or checks dtypes and resizes as ``_into`` does.
# None of them refuses arguments that require grad, and the Python call returns None.
_LIST_OUT = {
    "split_copy": ("split_copy_Tensor_out()", True),
    "split_with_sizes_copy": ("split_with_sizes_copy_out", False),
    "unbind_copy": ("unbind_copy_int_out", False),
}


def _into_list(name: str, copies: tuple[Tensor, ...], out: Any) -> None:
    kernel, as_copy_ = _LIST_OUT[name]
    if not isinstance(out, (tuple, list)):
        raise TypeError(f"{name}(): argument 'out' must be a tuple or list of Tensors, "
                        f"got {type(out).__name__}")
    if len(out) != len(copies):
        raise RuntimeError(f"{kernel} expected an out= argument of size {len(copies)}, "
                           f"got size {len(out)}")
    for copy, o in zip(copies, out):
        if as_copy_:
            o.copy_(copy)  # type: ignore[attr-defined]
            continue
        if o.dtype != copy.dtype:
            raise RuntimeError(f"{name}(): expected out= of dtype {copy.dtype.name}, got {o.dtype.name}")
        _resize_out(o, copy._sizes)
        o.copy_(copy)  # type: ignore[attr-defined]


class CopyOfViewBackward(Node):
    """The one node of a ``*_copy`` variant's result (PyTorch's ``<View>Backward0_copy``):
    the view's own node, which the copy was made from, computes the gradient. (The copy is
    made as ``clone(view)``, so jitgrad.compile's tracer sees those two ops; the result's
    ``grad_fn`` is then replaced by this node.)"""

    def __init__(self, view_node: Node) -> None:
        super().__init__()
        self.view_node = view_node

    def apply(self, grads: Grads) -> tuple[Any, ...]:
        return self.view_node.apply(grads)  # type: ignore[no-any-return]


_COPY_NODE_TYPES: dict[tuple[str, type], type[CopyOfViewBackward]] = {}


def _copy_node_type(name: str, view_type: type) -> type[CopyOfViewBackward]:
    """``<View>Backward0_copy`` (``narrow_copy``, an op of its own in PyTorch:
    ``NarrowCopyBackward0``)."""
    key = (name, view_type)
    made = _COPY_NODE_TYPES.get(key)
    if made is None:
        node_name = "NarrowCopyBackward0" if name == "narrow_copy" else f"{view_type.__name__}_copy"
        made = _COPY_NODE_TYPES[key] = type(node_name, (CopyOfViewBackward,), {"__module__": __name__})
    return made


def _copy_variant(name: str, view_fn: Callable[..., Any]) -> Callable[..., Any]:
    def op(self: Tensor, *args: Any, out: Any = None, **kwargs: Any) -> Any:
        result = view_fn(self, *args, **kwargs)
        pieces = result if isinstance(result, tuple) else (result,)
        copies = tuple(clone(r, memory_format="contiguous_format") for r in pieces)
        view_node = pieces[0].grad_fn if pieces else None
        if view_node is not None and copies[0]._grad_fn is not None:
            record(_copy_node_type(name, type(view_node))(view_node), (self,), copies)
        if not isinstance(result, tuple):
            return copies[0] if out is None else _into(name, copies[0], out)
        if out is None:
            return copies
        with no_grad():
            _into_list(name, copies, out)
        return None

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
