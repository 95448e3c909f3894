"""Differentiable operations. Importing this package installs the few operations the
engine needs for ``create_graph`` (see ``autograd/graph.py``)."""

from __future__ import annotations

from ..autograd import graph as _graph
from . import elementwise, reduction, structure, view_meta, view_ops

_graph.OPS.add = elementwise.add
_graph.OPS.sum_to = reduction.sum_to
_graph.OPS.to_dtype = structure.to_dtype
_graph.OPS.clone = structure.clone
# autograd engine: views' up-to-date history and custom Functions' in-place rebase
_graph.OPS.current_grad_fn = view_meta.current_grad_fn

__all__ = ["elementwise", "reduction", "structure", "view_ops"]
