"""Attach the functions of the layers above ``tensor.py`` to ``Tensor`` as methods.

One explicit assignment per method, so every method can be found with grep.
"""

from __future__ import annotations

from . import copying, indexing, views
from .autograd import variable
from .ops import as_strided, elementwise, reduction, structure, view_ops, write_ops
from .tensor import Tensor

# autograd attributes (autograd/variable.py)
Tensor.requires_grad = property(variable.requires_grad, variable.set_requires_grad)  # type: ignore[attr-defined]
Tensor.requires_grad_ = variable.requires_grad_  # type: ignore[attr-defined]
Tensor.is_leaf = property(variable.is_leaf)  # type: ignore[attr-defined]
Tensor.grad_fn = property(variable.grad_fn)  # type: ignore[attr-defined]
Tensor.grad = property(variable.get_grad, variable.set_grad)  # type: ignore[attr-defined]
Tensor.output_nr = property(variable.output_nr)  # type: ignore[attr-defined]
Tensor.retain_grad = variable.retain_grad  # type: ignore[attr-defined]
Tensor.retains_grad = property(variable.retains_grad)  # type: ignore[attr-defined]
Tensor.register_hook = variable.register_hook  # type: ignore[attr-defined]
Tensor.backward = variable.backward  # type: ignore[attr-defined]
Tensor.detach_ = variable.detach_  # type: ignore[attr-defined]
Tensor._repr_suffixes = variable.repr_suffixes  # type: ignore[method-assign]

# views (ops/view_ops.py: views.py plus their backward)
Tensor.as_strided = as_strided.as_strided  # type: ignore[attr-defined]
Tensor.narrow = view_ops.narrow  # type: ignore[attr-defined]
Tensor.select = view_ops.select  # type: ignore[attr-defined]
Tensor.transpose = view_ops.transpose  # type: ignore[attr-defined]
Tensor.t = view_ops.t  # type: ignore[attr-defined]
Tensor.T = property(view_ops.T)  # type: ignore[attr-defined]
Tensor.permute = view_ops.permute  # type: ignore[attr-defined]
Tensor.movedim = view_ops.movedim  # type: ignore[attr-defined]
Tensor.view = view_ops.view  # type: ignore[attr-defined]
Tensor.view_as = view_ops.view_as  # type: ignore[attr-defined]
Tensor.reshape = view_ops.reshape  # type: ignore[attr-defined]
Tensor.flatten = view_ops.flatten  # type: ignore[attr-defined]
Tensor.expand = view_ops.expand  # type: ignore[attr-defined]
Tensor.expand_as = view_ops.expand_as  # type: ignore[attr-defined]
Tensor.unsqueeze = view_ops.unsqueeze  # type: ignore[attr-defined]
Tensor.squeeze = view_ops.squeeze  # type: ignore[attr-defined]
Tensor.diagonal = view_ops.diagonal  # type: ignore[attr-defined]
Tensor.unfold = view_ops.unfold  # type: ignore[attr-defined]
Tensor.unbind = view_ops.unbind  # type: ignore[attr-defined]
Tensor.split = view_ops.split  # type: ignore[attr-defined]
Tensor.chunk = view_ops.chunk  # type: ignore[attr-defined]
Tensor.detach = views.detach  # type: ignore[attr-defined]

# arithmetic (ops/elementwise.py)
Tensor.add = elementwise.add  # type: ignore[attr-defined]
Tensor.__add__ = elementwise.add  # type: ignore[attr-defined]
Tensor.__radd__ = lambda self, other: elementwise.add(other, self)  # type: ignore[attr-defined]
Tensor.add_ = elementwise.add_  # type: ignore[attr-defined]
Tensor.__iadd__ = elementwise.add_  # type: ignore[attr-defined]
Tensor.mul = elementwise.mul  # type: ignore[attr-defined]
Tensor.__mul__ = elementwise.mul  # type: ignore[attr-defined]
Tensor.__rmul__ = lambda self, other: elementwise.mul(other, self)  # type: ignore[attr-defined]

# reductions (ops/reduction.py)
Tensor.sum = reduction.sum  # type: ignore[attr-defined]

# conversions (ops/structure.py)
Tensor.to = structure.to  # type: ignore[attr-defined]
Tensor.float = structure.float_  # type: ignore[attr-defined]
Tensor.double = structure.double  # type: ignore[attr-defined]
Tensor.long = structure.long  # type: ignore[attr-defined]
Tensor.bool = structure.bool_  # type: ignore[attr-defined]

# indexing (indexing.py)
Tensor.__getitem__ = view_ops.getitem  # type: ignore[attr-defined]
Tensor.__setitem__ = write_ops.setitem  # type: ignore[attr-defined]
Tensor.index_put_ = write_ops.index_put_  # type: ignore[attr-defined]

# copies and in-place writes (copying.py)
Tensor.clone = structure.clone  # type: ignore[attr-defined]
Tensor.contiguous = structure.contiguous  # type: ignore[attr-defined]
Tensor.copy_ = write_ops.copy_  # type: ignore[attr-defined]
Tensor.fill_ = write_ops.fill_  # type: ignore[attr-defined]
Tensor.zero_ = write_ops.zero_  # type: ignore[attr-defined]

# -- reductions, softmax family, matrix products (ops/reduction.py, ops/linalg.py) ----------
from .ops import linalg  # noqa: E402

Tensor.mean = reduction.mean  # type: ignore[attr-defined]
Tensor.max = reduction.max  # type: ignore[attr-defined]
Tensor.min = reduction.min  # type: ignore[attr-defined]
Tensor.amax = reduction.amax  # type: ignore[attr-defined]
Tensor.amin = reduction.amin  # type: ignore[attr-defined]
Tensor.logsumexp = reduction.logsumexp  # type: ignore[attr-defined]
Tensor.softmax = reduction.softmax  # type: ignore[attr-defined]
Tensor.log_softmax = reduction.log_softmax  # type: ignore[attr-defined]
Tensor.matmul = linalg.matmul  # type: ignore[attr-defined]
Tensor.__matmul__ = linalg.matmul  # type: ignore[attr-defined]
Tensor.__rmatmul__ = lambda self, other: linalg.matmul(other, self)  # type: ignore[attr-defined]
Tensor.mm = linalg.mm  # type: ignore[attr-defined]
Tensor.bmm = linalg.bmm  # type: ignore[attr-defined]
Tensor.mv = linalg.mv  # type: ignore[attr-defined]
Tensor.dot = linalg.dot  # type: ignore[attr-defined]
