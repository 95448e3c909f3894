"""Differentiable operations. Importing this package installs the few operations the
engine needs for ``create_graph`` (see ``autograd/graph.py``)."""

from __future__ import annotations

from ..autograd import graph as _graph
from ..tensor import Tensor
from . import elementwise, inplace, reduction, structure, view_meta, view_ops

_graph.OPS.add = elementwise.add
_graph.OPS.sum_to = reduction.sum_to
_graph.OPS.to_dtype = structure.to_dtype


def _clone_obey_contract(new: Tensor, variable: Tensor) -> Tensor:
    """PyTorch's ``clone_obey_contract`` (the first gradient of a leaf while building a
    graph): laid out as the leaf if it is dense, by ``new_empty_strided(...).copy_(new)``,
    so its history is ``CopyBackwards``; else a contiguous ``clone``."""
    from ..creation import empty_strided
    from ..geometry import is_non_overlapping_and_dense

    if is_non_overlapping_and_dense(variable._sizes, variable._strides):
        return empty_strided(variable._sizes, variable._strides, dtype=new.dtype).copy_(new)
    return structure.clone(new, memory_format="contiguous_format")


_graph.OPS.clone_obey_contract = _clone_obey_contract
# autograd engine: views' up-to-date history and custom Functions' in-place rebase
_graph.OPS.current_grad_fn = view_meta.current_grad_fn


def _rebase_dirty_view(t: Tensor, node: _graph.Node, base_edge: _graph.Edge, op: str) -> None:
    """A view a custom Function modified in place (``ctx.mark_dirty``): PyTorch's checks for
    any in-place write through a view (no_grad / custom-Function views, views of leaves),
    then CopySlices on its base."""
    if t._view_meta.creation != view_meta.DEFAULT:  # (refused whether or not t requires grad)
        view_meta.handle_view_on_rebase(t, indirect=False)
    inplace.check_autograd_inplace(op, t, (t,))
    inplace.rebase_history(t, node, base_edge)


_graph.OPS.rebase_history = _rebase_dirty_view


def _custom_function_view(input: Tensor, out: Tensor) -> Tensor:
    """An input a custom Function returned as-is comes back as this alias; writing into it
    in place is refused, as in PyTorch (Note [Views and in-place writes])."""
    return view_meta.make_view(input, out, (view_ops.alias, ()), view_meta.IN_CUSTOM_FUNCTION)


_graph.OPS.custom_function_view = _custom_function_view


def _custom_function_output_view(out: Tensor, multi_output: bool) -> None:
    """A view returned by a custom Function (made inside its forward, or an input returned
    as-is): its grad_fn is the Function's node as of now, and writing into it in place would
    override that node's backward, so it is refused (PyTorch's CreationMeta)."""
    vm = out._view_meta
    vm.creation = view_meta.MULTI_OUTPUT_NODE if multi_output else view_meta.IN_CUSTOM_FUNCTION
    vm.attr_version = out._storage.version


_graph.OPS.custom_function_output_view = _custom_function_output_view

__all__ = ["elementwise", "reduction", "structure", "view_ops"]
