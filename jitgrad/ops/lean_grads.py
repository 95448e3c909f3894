"""Backward formulas of products and quotients on data: the backward side of the lean paths
(Note [Lean paths] in ``operands.py``).

Without ``create_graph`` a node's gradients are plain data: nothing records them. For
``MulBackward0`` and ``DivBackward0`` of operands on the lean path (Note [Lean paths] in
``operands.py``: exactly ``Tensor``, floating, contiguous, one dtype) whose
shapes are the gradient's own or 0-d, the formula runs as NumPy calls on the flat buffers,
the same calls ``mul``/``div``/``neg`` would make one by one (so the same values, bit for
bit), without a Tensor per intermediate. A 0-d operand's gradient is then summed to 0-d
here, by the call ``sum_to`` would make in the engine (``np.add.reduce`` of the flat
product), rather than as a separate step; a 0-d operand enters the products as a 0-d
array (NumPy's scalar loop; a 1-element array takes its slower broadcasting iterator),
and a Python int up to 2**24 as a float (exact in float32 and float64: the same values). ``SubBackward0``'s negation is one such call
too (``negated``), and so is a product with a Python number (``scaled``). The gradients
are new buffers, but they are not declared owned (``OwnedGrads``): in the small-op graphs
this path is for, that bookkeeping costs more (~1 us per node) than the copies it could
save. When the engine hands ``g`` itself over, ``mul_grads`` writes one gradient into it
and returns ``g``: an owned input passed through, it stays owned (Note [Gradient buffer
ownership]). Anything else (``create_graph``, other dtypes or layouts, broadcasting other than
0-d) returns None and the node runs its general formula. tests/test_lean_grads.py compares
both with each other and with PyTorch.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _tracing
from ..kernels import sigmoid as _sigmoid_kernels
from .._quiet import IGNORE_ALL, QUIET
from ..autograd.grad_mode import _state as _grad_state
from ..autograd.node import Node
from ..storage import Storage
from ..tensor import Tensor
from .operands import lean_data
from .view_meta import make_view
from .view_ops import expand

_new = object.__new__


def _operand(t: Any, g: np.ndarray, sizes: tuple[int, ...]) -> np.ndarray | None:
    """``t``'s flat data when it is a lean tensor of ``g``'s dtype shaped ``sizes``, or its
    one element as a 0-d array when it is 0-d (and ``sizes`` is not): NumPy broadcasts a
    0-d operand by its scalar loop, a 1-element one by its general iterator (~0.5 us more
    for a stepper's row; the products are the same)."""
    if t.__class__ is not Tensor:
        return None
    x = lean_data(t)
    if x is None or x.dtype is not g.dtype:
        return None
    if t._sizes != sizes:
        return None if t._sizes else x.reshape(())
    return x


def _summed(node: Node, i: int, g: Tensor) -> bool:
    """Whether the gradient of ``node``'s input ``i`` is ``g``'s shape summed to 0-d."""
    if not g._sizes:
        return False
    nrs = node._nrs
    nxt = node._nx[i] if len(nrs) > 2 else node._n0 if i == 0 else node._n1  # (``node._next[i]``)
    nr = nrs[i]
    return not nxt.input_metadata[nr][0]  # type: ignore[union-attr]


def _result(values: np.ndarray, node: Node, i: int, g: Tensor) -> Tensor:
    """``values`` (flat, shaped like the gradient ``g``) as the gradient of ``node``'s
    input ``i``: summed to a 0-d one when that input is 0-d (and ``g`` is not), as the
    engine's ``sum_to`` would."""
    if _summed(node, i, g):
        return Tensor._make(Storage._fresh(np.add.reduce(values, keepdims=True)), (), ())
    return Tensor._make(Storage._fresh(values), g._sizes, g._strides)


Pair = tuple[Tensor | None, Tensor | None]


def negated(g: Tensor) -> Tensor | None:
    """``neg(g)`` of a lean ``g`` (one exact NumPy call), None otherwise."""
    gd = lean_data(g)
    if gd is None:
        return None
    return Tensor._make(Storage._fresh(np.negative(gd)), g._sizes, g._strides)


def scaled(g: Tensor, b: Any) -> Tensor | None:
    """``mul(g, b)`` of a lean ``g`` and a Python number (``lean_binary``'s call), None
    otherwise (other numbers, a Python int NumPy refuses)."""
    gd = lean_data(g)
    if gd is None or not (b.__class__ is float or b.__class__ is int and -(2**63) <= b < 2**63):
        return None
    if b.__class__ is int and -(2**24) <= b <= 2**24:
        # as a float: the same value in float32 and float64 (so the same products), and
        # NumPy's conversion of a Python float is the cheaper one (~0.25 us)
        b = float(b)
    token = QUIET.set(IGNORE_ALL)
    try:
        values = np.multiply(gd, b)
    except OverflowError:
        return None
    finally:
        QUIET.reset(token)
    return Tensor._make(Storage._fresh(values), g._sizes, g._strides)


def mul_grads(node: Node, g: Tensor, a: Any, b: Any, first: bool, second: bool,
              owned: bool = False) -> Pair | None:
    """``(g * b, g * a)`` (each summed to 0-d for a 0-d input) for the needed inputs of
    ``a * b``, both tensors; None when not the lean case. With ``owned`` (the engine hands
    ``g`` over) one gradient of ``g``'s shape is written into ``g`` and returned as ``g``:
    passed through, it goes on owned (Note [Gradient buffer ownership])."""
    gd = lean_data(g)
    if gd is None:
        return None
    sizes = g._sizes
    y = _operand(b, gd, sizes) if first else None
    x = _operand(a, gd, sizes) if second else None
    if (first and y is None) or (second and x is None):
        return None
    token = QUIET.set(IGNORE_ALL)
    try:
        into = 0  # the input whose gradient is written into ``g`` (1 or 2), if any
        if owned:
            if second and not _summed(node, 1, g):
                into = 2
            elif first and not _summed(node, 0, g):
                into = 1
        da = _result(np.multiply(gd, y), node, 0, g) if first and into != 1 else None
        db = _result(np.multiply(gd, x), node, 1, g) if second and into != 2 else None
        if into == 1:  # (the other gradient was computed from ``g`` first)
            np.multiply(gd, y, out=gd)
            da = g
        elif into == 2:
            np.multiply(gd, x, out=gd)
            db = g
    finally:
        QUIET.reset(token)
    return da, db


def div_grads(node: Node, g: Tensor, a: Any, b: Any, first: bool, second: bool) -> Pair | None:
    """``(g / b, -g * ((a / b) / b))`` (each summed to 0-d for a 0-d input) for the needed
    inputs of ``a / b``: ``b`` a tensor, ``a`` one too when its gradient is needed; None
    when not the lean case."""
    gd = lean_data(g)
    if gd is None:
        return None
    sizes = g._sizes
    y = _operand(b, gd, sizes)
    x = _operand(a, gd, sizes) if second else None
    if y is None or (second and x is None):
        return None
    token = QUIET.set(IGNORE_ALL)
    try:
        da = _result(np.true_divide(gd, y), node, 0, g) if first else None
        if second:
            q = np.true_divide(np.true_divide(x, y), y)
            db = _result(np.multiply(np.negative(gd), q), node, 1, g)
        else:
            db = None
    finally:
        QUIET.reset(token)
    return da, db


# ``(0,) * ndim`` by ndim: an expanded 0-d gradient's strides
_ZERO_STRIDES = [(0,) * n for n in range(65)]


def expanded_total(g: Any, sizes: tuple[int, ...]) -> Tensor | None:
    """``g.expand(sizes)`` of a 0-d gradient outside grad mode (``SumBackward0`` of every
    element, as the engine runs it), with ``views.expand``'s alias (every stride 0) and
    ``Tensor._make`` written out, and ``make_view``'s tracking (the same view, base and
    creation mode as the general path's); None in grad mode (``create_graph``: the view's
    node is recorded), for a tensor that is not exactly ``Tensor`` or not 0-d, or while
    tracing."""
    if _grad_state.enabled or g.__class__ is not Tensor or g._sizes or _tracing.ACTIVE is not None \
            or len(sizes) > 64:
        return None
    out = _new(Tensor)
    out._storage = g._storage
    out._sizes = sizes
    out._strides = _ZERO_STRIDES[len(sizes)]
    out._offset = g._offset
    out._base = g if g._base is None else g._base
    out._requires_grad = False
    out._grad = None
    out._grad_fn = None
    out._output_nr = 0
    out._grad_accumulator = None
    out._hooks = None
    out._retains_grad = False
    out._view_meta = None
    return make_view(g, out, (expand, (sizes,)))


def sigmoid_grad(g: Any, r: Any) -> Tensor | None:
    """``(g * (1 - r)) * r``, sigmoid's gradient from its result ``r``, by the backward
    kernel (``kernels/_sigmoid_jit.py``: the formula's operations in the buffers' dtype, so
    the same bits as ``mul(mul(g, sub(1, r)), r)``) when no graph is recorded and ``g`` and
    ``r`` are lean tensors of one dtype and sizes; None otherwise."""
    if _grad_state.enabled or r.__class__ is not Tensor or g.__class__ is not Tensor or g._sizes != r._sizes:
        return None
    gd = lean_data(g)
    if gd is None:
        return None
    rd = lean_data(r)
    if rd is None or rd.dtype is not gd.dtype:
        return None
    n = len(gd)
    out = np.empty(n, gd.dtype)
    kernel = _sigmoid_kernels.backward
    (kernel._entries.get(out.dtype) or kernel.entry(out.dtype))(gd, rd, out, n)
    return Tensor._make(Storage._fresh(out), g._sizes, g._strides)

