"""Differentiable operations. Importing this package installs the few operations the
engine needs for ``create_graph`` (see ``autograd/graph.py``)."""

from __future__ import annotations

from ..autograd import graph as _graph
from ..tensor import Tensor
from . import elementwise, inplace, reduction, structure, view_meta, view_ops

_graph.OPS.add = elementwise.add
_graph.OPS.sum_to = reduction.sum_to
_graph.OPS.to_dtype = structure.to_dtype
_graph.OPS.clone = structure.clone
# autograd engine: views' up-to-date history and custom Functions' in-place rebase
_graph.OPS.current_grad_fn = view_meta.current_grad_fn
_graph.OPS.rebase_history = inplace.rebase_history


def _custom_function_view(input: Tensor, out: Tensor) -> Tensor:
    """An input a custom Function returned as-is comes back as this alias; writing into it
    in place is refused, as in PyTorch (Note [Views and in-place writes])."""
    return view_meta.make_view(input, out, (view_ops.alias, ()), view_meta.IN_CUSTOM_FUNCTION)


_graph.OPS.custom_function_view = _custom_function_view

__all__ = ["elementwise", "reduction", "structure", "view_ops"]
