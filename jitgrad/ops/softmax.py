"""``softmax`` and ``log_softmax`` along one dim, and their backward nodes.

A softmax whose rows are contiguous (a 1-D tensor, or the last dim of a contiguous one) and
which has at most ``kernels.softmax.MAX_NUMEL`` elements runs on the softmax kernels
(``kernels/_softmax_jit.py``: one call instead of five or six NumPy calls), on every path:
the fused per-op path of a 1-D tensor (``fused_unary.py``), the lean path and the general
path. Any other runs NumPy's formula, as the kernels compute it but with NumPy's ``exp``
(whose SIMD loop may differ from the C library's in the last bit). Without
``create_graph`` the backward formulas run on data too (``_softmax_grad_on_data``): the
general formula's operations in its order, so the same bits.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from .. import _tracing, dtypes
from .._quiet import QUIET_RUN, quiet_call
from ..autograd.grad_mode import _state as _grad_state
from ..autograd.graph import needs_grad, record
from ..autograd.node import _RELEASED, _RESULT_CODES, Grads, SavingNode
from ..geometry.strided import wrap_dim
from ..kernels import softmax as kernels
from ..storage import INFERENCE, Storage
from ..tensor import Tensor
from .elementwise import mul, sub
from .fused import RESULT
from .fused_unary import fused_unary
from . import operands
from .operands import fresh_result, from_result, layout, lean_data
from .pointwise import exp
from .reduction import sum

_exp, _subtract, _multiply, _empty = np.exp, np.subtract, np.multiply, np.empty
_new = object.__new__


def _softmax_grad_on_data(node: SavingNode, g: Any, log: bool) -> Tensor | None:
    """The gradient ``node`` (a softmax's; ``log``: a log-softmax's) passes on, on data: the
    backward kernels, when no graph is being recorded, the node holds its result in
    ``save_result``'s compact form (unmodified: else ``unpack`` raises the error), ``g`` is a
    lean tensor (Note [Lean paths] in ``operands.py``) of the result's dtype and sizes, and
    the kernels take its rows along the node's dim (the last; at most ``MAX_NUMEL``
    elements). None otherwise: the general formula runs."""
    if _grad_state.enabled or node._codes is not _RESULT_CODES or g.__class__ is not Tensor:
        return None
    storage, sizes, strides = node._compact
    if storage is _RELEASED or g._sizes != sizes or node.dim != len(sizes) - 1:  # type: ignore[attr-defined]
        return None
    counter = storage._counter
    if counter is not None and counter.value:
        return None
    yd = storage.buffer  # (the result owns its whole storage: ``save_result``)
    n = len(yd)
    buffer = g._storage.buffer
    if g._strides == strides and g._offset == 0 and len(buffer) == n and _tracing.ACTIVE is None:
        gd = buffer  # (``lean_data``'s answer for a gradient owning its storage: the commonest)
    else:
        gd = lean_data(g)
        if gd is None:
            return None
    dtype = yd.dtype
    if gd.dtype is not dtype or dtype not in operands.LEAN_DTYPES or n > kernels.MAX_NUMEL:
        return None
    if log:
        try:  # (the general formula's ``exp(y)``, quietly)
            out = QUIET_RUN(_exp, yd)
        except RuntimeError:  # (another thread is in QUIET_RUN's context: see ``_quiet``)
            out = quiet_call(_exp, yd)
        kernel = kernels.log_softmax_backward_rows
        (kernel._entries.get(dtype) or kernel.entry(dtype))(gd, out, out, sizes[-1])
    else:
        out = _empty(n, dtype)
        kernel = kernels.softmax_backward_rows
        (kernel._entries.get(dtype) or kernel.entry(dtype))(gd, yd, out, sizes[-1])
    # ``Storage._fresh`` and ``Tensor._make``, written out (every slot set; nothing traced)
    storage = _new(Storage)
    storage.buffer = out
    storage._counter = None
    storage.inference = INFERENCE.enabled
    storage.resizable = True
    t = _new(Tensor)
    t._storage = storage
    t._sizes = sizes
    t._strides = strides
    t._offset = 0
    t._base = None
    t._requires_grad = False
    t._grad = None
    t._grad_fn = None
    t._output_nr = 0
    t._grad_accumulator = None
    t._hooks = None
    t._retains_grad = False
    t._view_meta = None
    return t


class SoftmaxBackward0(SavingNode):
    """``y * (grad - sum(grad * y, dim))`` with ``y`` the softmax (PyTorch's
    ``_softmax_backward_data``)."""

    dim: int = 0  # the softmax's dim: set on the node when another (no __init__ call)

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        g = grads[0]
        out = _softmax_grad_on_data(self, g, False)
        if out is not None:
            return (out,)
        (y,) = self.unpack()
        dot = sum(mul(g, y), self.dim, keepdim=True)
        return (mul(y, sub(g, dot)),)


class LogSoftmaxBackward0(SavingNode):
    """``grad - exp(y) * sum(grad, dim)`` with ``y`` the log-softmax."""

    dim: int = 0  # the softmax's dim: set on the node when another (no __init__ call)

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        g = grads[0]
        out = _softmax_grad_on_data(self, g, True)
        if out is not None:
            return (out,)
        (y,) = self.unpack()
        return (sub(g, mul(exp(y), sum(g, self.dim, keepdim=True))),)


def _softmax_input(op: str, self: Tensor, dim: Any, dtype: Any) -> tuple[Tensor, int]:
    if not isinstance(dim, numbers.Integral) or isinstance(dim, (bool, np.bool_)):
        raise TypeError(f"{op}(): argument 'dim' must be int, not {type(dim).__name__}")
    d = wrap_dim(dim, self.ndim, op)
    if dtype is not None:
        self = self.to(dtypes.to_dtype(dtype, op))  # type: ignore[attr-defined]
    if self.dtype not in dtypes.FLOATING:
        raise NotImplementedError(
            f"{op}: not implemented for {self.dtype.name} tensors; expected float32 or "
            f"float64 (pass dtype=jitgrad.float32 to convert)"
        )
    return self, d


def _softmax_out(
    node_type: type[SavingNode], self: Tensor, d: int, values: np.ndarray, fresh: bool = False
) -> Tensor:
    """The result (``values`` itself when ``fresh``: a C-contiguous array of ``self``'s
    shape and dtype that NumPy or a kernel has just made), its node and what it saves."""
    if fresh:
        sizes = self._sizes
        out = fresh_result(values.ravel(), sizes, layout(sizes)[0])
    else:
        out = from_result(values.reshape(self._sizes), self.dtype)
    if needs_grad(self):
        node = node_type()
        if d:
            node.dim = d  # type: ignore[attr-defined]
        record(node, (self,), (out,))
        node.save_result(out)  # (a fresh result; the fused path's form)
    return out


def _softmax_operand(op: str, self: Tensor, dim: Any, dtype: Any) -> tuple[Tensor, np.ndarray, int, bool]:
    """``(input, its N-d NumPy view, the wrapped dim, lean)`` for ``softmax``/``log_softmax``.
    A contiguous floating tensor with no ``dtype``, an int ``dim`` in range and at least one
    dim takes the lean path (Note [Lean paths] in ``operands.py``): its flat
    buffer, reshaped, and a result without a copy. Anything else is converted, checked and
    refused (``_softmax_input``) as PyTorch does."""
    if dtype is None and dim.__class__ is int:
        sizes = self._sizes
        ndim = len(sizes)
        if ndim and -ndim <= dim < ndim:
            x = lean_data(self)
            if x is not None and len(x):
                return self, (x if ndim == 1 else x.reshape(sizes)), dim % ndim, True
    self, d = _softmax_input(op, self, dim, dtype)
    return self, self.numpy().reshape(self._sizes or (1,)), d, False


def _softmax_values(x: np.ndarray, d: int, log: bool) -> tuple[np.ndarray, bool]:
    """The softmax (``log``: log-softmax) of ``x`` along ``d``, and whether it is a new
    C-contiguous array of ``x``'s shape and dtype: the kernels' for the rows they take,
    else NumPy's formula (quietly: nan and inf silently, as PyTorch)."""
    if kernels.takes(x, d):
        out = np.empty(x.shape, x.dtype)
        (kernels.log_softmax_rows if log else kernels.softmax_rows)(x.reshape(-1), out.reshape(-1), x.shape[-1])
        return out, True
    try:
        return QUIET_RUN(_numpy_formula, x, d, log), False
    except RuntimeError:  # (another thread is in QUIET_RUN's context: see ``_quiet``)
        return quiet_call(_numpy_formula, x, d, log), False


def _numpy_formula(x: np.ndarray, d: int, log: bool) -> np.ndarray:
    """``softmax``'s (``log``: ``log_softmax``'s) NumPy calls: the max along ``d`` (nan for a
    row with a nan) subtracted, then ``e * (1 / sum(e))`` or ``shifted - log(sum(e))`` of
    ``e = exp(shifted)`` (PyTorch multiplies by the reciprocal too)."""
    shifted = x - np.maximum.reduce(x, d, None, None, True, -np.inf)
    e = _exp(shifted)
    total = np.add.reduce(e, d, None, None, True)
    if log:
        return _subtract(shifted, np.log(total))  # type: ignore[no-any-return]
    return _multiply(e, 1 / total)  # type: ignore[no-any-return]


# the fused per-op path (fused.py): a 1-D input (its dim 0: no ``dim`` field on the node)
# of up to ``MAX_NUMEL`` elements, on the kernels
_fused_softmax = fused_unary(kernels.softmax_rows, SoftmaxBackward0, RESULT, None, max_numel=kernels.MAX_NUMEL)
_fused_log_softmax = fused_unary(kernels.log_softmax_rows, LogSoftmaxBackward0, RESULT, None,
                                 max_numel=kernels.MAX_NUMEL)


def softmax(self: Tensor, dim: int, dtype: Any = None) -> Tensor:
    """``exp(x) / sum(exp(x), dim)``, computed after subtracting the max along ``dim``."""
    if dtype is None and (dim == 0 or dim == -1) and dim.__class__ is int and self.__class__ is Tensor \
            and len(self._sizes) == 1:
        out = _fused_softmax(self)
        if out is not None:
            return out
    self, x, d, lean = _softmax_operand("softmax", self, dim, dtype)
    values, fresh = _softmax_values(x, d, False)
    return _softmax_out(SoftmaxBackward0, self, d, values, lean or fresh)


def log_softmax(self: Tensor, dim: int, dtype: Any = None) -> Tensor:
    """``x - max - log(sum(exp(x - max), dim))`` along ``dim``."""
    if dtype is None and (dim == 0 or dim == -1) and dim.__class__ is int and self.__class__ is Tensor \
            and len(self._sizes) == 1:
        out = _fused_log_softmax(self)
        if out is not None:
            return out
    self, x, d, lean = _softmax_operand("log_softmax", self, dim, dtype)
    values, fresh = _softmax_values(x, d, True)
    return _softmax_out(LogSoftmaxBackward0, self, d, values, lean or fresh)
