"""What every operation shares: operands, PyTorch's type promotion, output allocation.

Type promotion (PyTorch's ``result_type``): ``dtypes.promote_types`` is PyTorch's lattice
over the categories bool < integer < floating (``uint8 + int8`` is int16, ``int32 + float16``
is float16). Tensors with dimensions decide the result; 0-d tensors, then Python scalars,
only change it when their *category* is higher (``float16_tensor * 2.5`` stays float16,
``int8_tensor * 2.5`` becomes the default float dtype, ``float32_tensor + float64_0d_tensor``
stays float32, ``int32_tensor + float64_0d_tensor`` is float64).
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from .. import _tracing, dtypes
from ..geometry import broadcast_shapes, contiguous_strides
from ..storage import Storage, allocate
from ..geometry.layout import output_strides
from .._quiet import IGNORE_ALL, QUIET, QUIET_RUN, quiet_call
from ..tensor import Tensor

category = dtypes.category  # 0 bool, 1 integer, 2 floating point
promote_types = dtypes.promote_types


def scalar_dtype(value: Any, op: str = "") -> np.dtype:
    if isinstance(value, (bool, np.bool_)):
        return dtypes.bool_
    if isinstance(value, numbers.Integral):
        dtypes.check_python_int(op, int(value))
        return dtypes.int64
    if isinstance(value, numbers.Real):
        return dtypes.DEFAULT_FLOAT
    raise TypeError(f"{op + ': ' if op else ''}unsupported operand type {type(value).__name__}; expected a Tensor or a number")


def result_type(*operands: Any, op: str = "") -> np.dtype:
    """PyTorch's type promotion over tensors and Python scalars."""
    if len(operands) == 2:  # the common case, decided without the general loop below
        fast = _result_type2(*operands, op)
        if fast is not None:
            return fast
    dim: np.dtype | None = None
    zero: np.dtype | None = None
    wrapped: np.dtype | None = None
    for x in operands:
        if isinstance(x, Tensor):
            d = x.dtype
            if x._sizes:
                dim = d if dim is None else promote_types(dim, d)
            else:
                zero = d if zero is None else promote_types(zero, d)
        else:
            d = scalar_dtype(x, op)  # TypeError for anything but a number (None included)
            wrapped = d if wrapped is None else promote_types(wrapped, d)
    result = _combine(dim, _combine(zero, wrapped))  # c10's combine_categories, in its order
    assert result is not None
    if (dim is None or dim == dtypes.bool_) and (zero is None or zero == dtypes.bool_) and any(
            type(x) is int and x >= 2**63 for x in operands):  # a uint64 Scalar decides the dtype
        raise RuntimeError(f"{op}: Promotion for uint16, uint32, uint64 types is not supported, "
                           f"attempted to promote Bool and UInt64 (got a Python int >= 2**63 with "
                           "bool tensors; expected an int below 2**63)")
    return result


def _combine(higher: np.dtype | None, lower: np.dtype | None) -> np.dtype | None:
    """The higher-priority dtype, promoted with the lower one only when that one's category
    is higher."""
    if higher is None:
        return lower
    if lower is None or category(lower) <= category(higher):
        return higher
    return promote_types(higher, lower)


def _result_type2(a: Any, b: Any, op: str = "") -> np.dtype | None:
    """``result_type(a, b)`` for two tensors of one dtype, or a tensor and a Python scalar
    (where only the categories matter, not the tensor's dimensions); None otherwise."""
    if isinstance(a, Tensor):
        if isinstance(b, Tensor):
            d = a._storage.buffer.dtype
            return d if d == b._storage.buffer.dtype else None
        t, s = a, b
    elif isinstance(b, Tensor):
        t, s = b, a
    else:
        return None
    d = t._storage.buffer.dtype
    kind = type(s)
    if kind is float:
        return d if d in dtypes.FLOATING else dtypes.DEFAULT_FLOAT
    if kind is int:
        if not -(2**63) <= s < 2**63:
            return None  # (the general loop checks its range)
        return dtypes.int64 if d == dtypes.bool_ else d
    if kind is bool:
        return d
    return None


def can_cast(src: np.dtype, dst: np.dtype) -> bool:
    """PyTorch's ``canCast``: no float -> integer, no non-bool -> bool."""
    return category(src) <= category(dst)


def check_inplace_dtype(op: str, result: np.dtype, self: Tensor) -> None:
    if not can_cast(result, self.dtype):
        raise RuntimeError(
            f"{op}: result type {result.name} can't be cast to the desired output type "
            f"{self.dtype.name}"
        )


def as_array(x: Any, dtype: np.dtype | None = None) -> Any:
    """A NumPy view of a tensor, or a Python scalar left as it is (a weak scalar in NumPy)."""
    if isinstance(x, Tensor):
        return array_of(x)
    if dtype is not None and not isinstance(x, (bool, np.bool_)):
        return dtype.type(x)
    return x


# Per-op overhead on small tensors is dominated by Python, not arithmetic; the two caches and
# the fast path in ``array_of`` keep a forward to one allocation plus one ufunc call.
_LAYOUTS: dict[tuple[int, ...], tuple[tuple[int, ...], int]] = {}


def layout(shape: tuple[int, ...]) -> tuple[tuple[int, ...], int]:
    """``(contiguous strides, numel)`` of ``shape``, memoised (bounded)."""
    cached = _LAYOUTS.get(shape)
    if cached is None:
        n = 1
        for s in shape:
            n *= s
        cached = (contiguous_strides(shape), n)
        if len(_LAYOUTS) < 4096:
            _LAYOUTS[shape] = cached
    return cached


def array_of(t: Tensor) -> np.ndarray:
    """``t.numpy()``, cheaper for a tensor that is exactly its whole contiguous storage."""
    sizes = t._sizes
    strides, n = layout(sizes)
    buffer = t._storage.buffer
    if t._offset == 0 and t._strides == strides and buffer.shape[0] == n:
        return buffer if len(sizes) == 1 else buffer.reshape(sizes)
    if n and t._strides == strides:  # a contiguous part of its storage (a row, u[1:-1])
        part = buffer[t._offset:t._offset + n]
        return part if len(sizes) == 1 else part.reshape(sizes)
    return t._numpy()


# -- the lean path of elementwise ops -----------------------------------------------------------
# Note [Lean paths]
# ~~~~~~~~~~~~~~~~~
# A small-op loop (a DP table filled cell by cell, a time stepper writing rows through
# views) is thousands of ops on a few elements each. NumPy's arithmetic is ~0.3 us of such
# an op; the rest was Python: helpers each costing a frame, and objects that Python's
# collector tracks. The lean paths do the commonest cases of these ops with that
# bookkeeping written out in one frame, and hand everything else to the general path.
# Every lean path keeps four rules:
# 1. Same results as the general path: the values bit for bit, dtype, sizes and strides,
#    the nodes (class, edges, sequence numbers in the same order, saved values),
#    AccumulateGrads, view metadata and version bumps. What a path does not recognise
#    (float16, whose NumPy loops differ with and without ``dtype=``; an operand that is not
#    exactly a ``Tensor``; a layout it has no rule for; a stale view; no_grad or inference
#    mode where it matters; anomaly mode, hooks, view replay; a traced function,
#    ``_tracing.ACTIVE``) goes to the general path.
# 2. Written out on purpose: a helper call is a frame (~5% of an op), so the paths repeat
#    the bodies of ``Tensor._make``, ``Storage._fresh``, ``Node.__init__``, ``record``,
#    ``grad_accumulator``, ``make_view``, ``SavingNode.save`` and the like. If you add a slot
#    to Tensor, Storage, ViewMeta or a node, or a step to one of those functions, change the
#    copies too: each path has a test comparing every slot with the general path's, which
#    fails until you do (named below).
# 3. Few objects: each object an op leaves alive counts towards the collector's
#    thresholds, so shared tuples (one-output nodes' metadata, ``graph.single_metadata``;
#    input numbers, ``node.ZERO_NRS``), nodes' edges held inline (``Node``'s slots), cached
#    0-d numbers and remembered views (``view_ops._SEEN``) stand in for new ones.
# 4. Tested against PyTorch as well (values, gradients, Hypothesis programs); the tests'
#    ``general()`` switch (tests/lean_switch.py) turns every path off at once.
# The paths:
# - Elementwise (this file: ``lean_data``, ``lean_binary``, ``lean_strided``): described
#   below. tests/test_lean_paths.py, test_lean_broadcast.py.
# - Fused per-op (``fused.py``, one module per template: ``fused_binary.py``,
#   ``fused_unary.py``, ``fused_total.py``): add/sub/rsub/mul/div and the declared binary
#   ops of two tensors, the declared unary ops (with number arguments: ``x ** 2``,
#   ``clamp``), sums, means and max/min of every element or over one dim, softmax: each one
#   function made from a template that writes the elementwise path and the graph
#   bookkeeping out. tests/test_fused_ops.py. Comparisons
#   (``compare.operator``) and ``where`` (``compare._fused_where``) are written out the same
#   way by hand. tests/test_fused_small_ops.py.
# - Joins (``stacking.py``): ``cat`` and ``stack`` of small same-dtype tensors, with a plan
#   per inputs' sizes. tests/test_fused_join.py.
# - Plain views (``view_ops._plain_view``, ``getitem``): ``x[i, j]``, ``x[1:, 2:]``,
#   ``x[:, None]``. tests/test_lean_views.py.
# - Writes: arithmetic in place into a view (``inplace.lean_inplace``, with ``CopySlices``
#   and the regenerated ``AsStridedBackward0`` written out; tests/test_lean_inplace.py) and
#   a row or cell assigned into a tensor (``assignment._lean_recorded_write``;
#   tests/test_row_writes.py).
# - Backward formulas on data (``lean_grads.py``): Mul/Div/Sub gradients without
#   ``create_graph`` as the forward's NumPy calls on buffers, and ``SumBackward0``'s
#   expanded 0-d gradient written out (``expanded_total``). tests/test_lean_grads.py,
#   tests/test_softmax_kernels.py.
# - Softmax (``softmax.py``) and sigmoid (``pointwise._np_sigmoid``): one kernel call
#   (``kernels/_softmax_jit.py``: small contiguous rows; ``kernels/_sigmoid_jit.py``: any
#   float32/float64 input, strided ones copied) on every path alike, so the values never
#   depend on the path (the first call imports Numba: ~0.3 s, ~70 MB); without
#   ``create_graph`` their backward formulas run on data (the formulas' operations in
#   their order: the same bits). tests/test_softmax_kernels.py, test_fused_small_ops.py.
# - Recurrent layers (``nn/_recurrent_fused.py``): a layer and direction of ``RNN``/``LSTM``/
#   ``GRU``, or one step of their cells, in NumPy as ONE node (``MkldnnRnnLayerBackward0``,
#   the node of PyTorch's own fused CPU LSTM) with backpropagation through time written out.
#   Rule 1 holds for the forward values (bit for bit) and for what falls back (anomaly mode,
#   saved-tensor hooks, tracing); by design not for the nodes, and the gradients agree with
#   the composite path's to rounding (another summation order). tests/test_nn_rnn_fused.py.
#
# The elementwise path. Most elementwise ops in such a loop combine a floating tensor with a
# Python number, or two floating tensors of one dtype and one shape (or one of them 0-d, or
# both 1-D and one of size 1), all contiguous. Then PyTorch's promotion keeps the tensor's
# dtype (a Python number never changes a floating dtype; one dtype promotes to itself), the
# output is contiguous (``output_strides`` of contiguous operands) and the ufunc may run on
# the flat buffers, allocating the result's buffer itself: no promotion, no layout, no
# ``out=`` view. Two widenings keep that output layout: operands whose shapes broadcast
# otherwise (``v[:, None] + m``) are broadcast by NumPy from N-d reshapes of their flat
# buffers into a new C-contiguous array (``_lean_broadcast``), and a 1-D operand with a
# positive stride (a column ``m[:, j]``) or an N-d one in row-major order (a block
# ``u[2:, 1:-1]``) is a strided NumPy view (``lean_strided``): PyTorch orders an output's
# dims by its operands' strides, a 1-D operand, broadcast, never tells two dims apart, and
# a row-major one keeps them. Other dtypes, transposed or expanded operands and numbers
# NumPy refuses take the general path. The same holds for declared unary ops
# (``declare.call_pointwise``), ``sum``/``mean`` of every element,
# ``max``/``min`` of every element (``extremes.py``), ``logsumexp`` over one dim
# (``reduction.py``), ``softmax``/``log_softmax`` (``softmax.py``), comparisons and ``where`` with a tensor of that shape or a number
# (``compare.py``: a bool result, or ``np.where``'s copy of either operand's elements). What is left
# per op is Python's: the result's Tensor and Storage, the node, its edges (``record``),
# and the NumPy call; the fused per-op path writes those out for the commonest cases.
# float16 stays on the general path: NumPy may pick another loop for it with and without
# ``dtype=`` (``asin`` of 1.5 gives a nan of the other sign), so the results could differ
LEAN_DTYPES = frozenset((dtypes.float32, dtypes.float64))


def lean_data(t: Any) -> np.ndarray | None:
    """A floating tensor's elements as a flat array, without copying, when it is on the lean
    path: exactly a ``Tensor``, contiguous (in ``contiguous_strides`` form) from its offset,
    nothing traced, at least one element. None otherwise."""
    if t.__class__ is not Tensor or _tracing.ACTIVE is not None:
        return None
    buffer = t._storage.buffer
    if buffer.dtype not in LEAN_DTYPES:
        return None
    sizes = t._sizes
    strides, n = _LAYOUTS.get(sizes) or layout(sizes)
    if t._strides != strides or n == 0:  # (an empty result's strides are PyTorch's puzzle)
        return None
    start = t._offset
    if start == 0 and buffer.shape[0] == n:
        return buffer
    return buffer[start:start + n]


def strided_data(t: Any) -> np.ndarray | None:
    """A lean-path tensor's elements as an N-d NumPy view (``lean_data``'s conditions but any
    strides: a slice of a 2-D table, ``u[1:-1, 1:-1]``), without ``Tensor.numpy``'s general
    checks. None when ``t`` is not on the lean path or has no element."""
    if t.__class__ is not Tensor or _tracing.ACTIVE is not None:
        return None
    buffer = t._storage.buffer
    if buffer.dtype not in LEAN_DTYPES:
        return None
    sizes = t._sizes
    if len(sizes) == 2:
        block = _table_block(buffer, sizes, t._strides, t._offset)
        if block is not None:
            return block
    if 0 in sizes:
        return None
    item = buffer.itemsize
    # (a size-1 dim's stride is never used; it may be huge: NumPy's limit is int64 bytes)
    return np.ndarray(sizes, buffer.dtype, buffer, t._offset * item,
                      [0 if n == 1 else s * item for n, s in zip(sizes, t._strides)])


def _table_block(buffer: np.ndarray, sizes: tuple[int, ...], strides: tuple[int, ...],
                 offset: int) -> np.ndarray | None:
    """A 2-D geometry that is a block of a row-major table (rows of ``strides[0]`` elements,
    unit steps along them: ``u[1:-1, 1:-1]``) as a slice of the table's rows, the cheapest
    NumPy view of it; None for any other geometry."""
    (n0, n1), (s0, s1) = sizes, strides
    if s1 == 1 and n0 > 1 and 0 < n1 <= s0 and buffer.shape[0] % s0 == 0:
        row, col = divmod(offset, s0)
        if col + n1 <= s0:
            return buffer.reshape(-1, s0)[row:row + n0, col:col + n1]  # type: ignore[no-any-return]
    return None


def fresh_result(values: np.ndarray, sizes: tuple[int, ...], strides: tuple[int, ...]) -> Tensor:
    """A tensor owning ``values``, a 1-D buffer a NumPy call has just allocated (or the
    flat view of an N-d array it has just allocated, which nothing else holds)."""
    return Tensor._make(Storage._fresh(values), sizes, strides)


def lean_binary(ufunc: np.ufunc, a: Any, b: Any) -> Tensor | None:
    """``binary(ufunc, a, b)`` on the lean path (Note [Lean paths]), or None when
    the operands are not its case."""
    if a.__class__ is Tensor:
        x = lean_data(a)
        if x is None:
            return _lean_strided_binary(ufunc, a, b, None)
        if b.__class__ is Tensor:
            y = lean_data(b)
            if y is None:
                return _lean_strided_binary(ufunc, a, b, x)
            if y.dtype is not x.dtype:
                return None
            sa, sb = a._sizes, b._sizes
            if sa == sb or not sb or (sb == (1,) and len(sa) == 1):
                t = a  # (flat buffers broadcast as these shapes do)
            elif not sa or (sa == (1,) and len(sb) == 1):
                t = b
            else:
                return _lean_broadcast(ufunc, x, y, sa, sb)
        elif b.__class__ is float or b.__class__ is int and -(2**63) <= b < 2**63:
            y, t = b, a
        else:
            return None
    elif b.__class__ is Tensor and (a.__class__ is float or a.__class__ is int and -(2**63) <= a < 2**63):
        x, y, t = a, lean_data(b), b
        if y is None:
            return _lean_strided_binary(ufunc, a, b, a)
    else:
        return None
    try:
        try:
            values = QUIET_RUN(ufunc, x, y)
        except RuntimeError:  # (another thread is in QUIET_RUN's context: see ``_quiet``)
            values = quiet_call(ufunc, x, y)
    except OverflowError:  # a Python int NumPy refuses: the general path's error or wrap
        return None
    return fresh_result(values, t._sizes, t._strides)


def _lean_strided_binary(ufunc: np.ufunc, a: Any, b: Any, x: Any) -> Tensor | None:
    """``lean_binary`` where a tensor operand is not contiguous: each tensor contiguous or
    strided in row-major order (``lean_strided``: a column, a block ``u[2:, 1:-1]``), the
    other operand such a tensor of the same dtype or a Python number. ``x`` is ``a``'s
    operand when ``lean_binary`` has it (a number, or a contiguous tensor's flat data: then
    ``b`` is the strided one), None when ``a`` is the strided one. None otherwise."""
    if x is None:
        x = lean_strided(a)
        if x is None:
            return None
        if b.__class__ is Tensor:
            y = lean_data(b)
            if y is None:
                y = lean_strided(b)
                if y is None:
                    return None
        elif b.__class__ is float or b.__class__ is int and -(2**63) <= b < 2**63:  # (a larger int: general path)
            return _lean_call(ufunc, x, b, a._sizes)
        else:
            return None
    else:
        y = lean_strided(b)
        if y is None:
            return None
        if a.__class__ is not Tensor:  # a number and a tensor
            return _lean_call(ufunc, x, y, b._sizes)
    if y.dtype is not x.dtype:
        return None
    sa, sb = a._sizes, b._sizes
    if sa != sb:
        return _lean_broadcast(ufunc, x, y, sa, sb)
    if x.ndim != y.ndim:  # one flat, the other an N-d view
        x, y = x.reshape(sa), y.reshape(sb)
    return _lean_call(ufunc, x, y, sa)


def _lean_call(ufunc: np.ufunc, x: Any, y: Any, sizes: tuple[int, ...]) -> Tensor | None:
    """``ufunc(x, y)`` of ``_lean_strided_binary``'s or ``_lean_broadcast``'s operands,
    quietly, as a new contiguous tensor of ``sizes`` (NumPy's output of row-major views is
    C-ordered: see ``lean_strided``). ``lean_binary`` makes its own call inline: it is
    every op's."""
    try:
        try:
            values = QUIET_RUN(ufunc, x, y)
        except RuntimeError:  # (another thread is in QUIET_RUN's context: see ``_quiet``)
            values = quiet_call(ufunc, x, y)
    except OverflowError:  # a Python int NumPy refuses: the general path's error or wrap
        return None
    return fresh_result(values if values.ndim == 1 else values.ravel(), sizes, layout(sizes)[0])


def lean_strided(t: Tensor) -> np.ndarray | None:
    """The elements of a non-empty floating tensor that is not contiguous but is laid out in
    row-major order, as a strided NumPy view, for elementwise ops: a 1-D tensor with a
    positive stride (a column ``x[:, j]``, ``x[::2]``), or an N-d one whose sizes are all
    at least 2 and whose strides decrease strictly (a block ``u[2:, 1:-1]``). PyTorch's
    output of such operands (and contiguous ones) is contiguous: ``output_strides`` never
    orders dims by a 1-D operand (broadcast, it has one non-zero stride), and an N-d one
    puts its dims in their own order, as a contiguous one does. NumPy's output (order
    ``K``) follows the same order. None otherwise."""
    sizes = t._sizes
    if _tracing.ACTIVE is not None:
        return None
    buffer = t._storage.buffer
    if buffer.dtype not in LEAN_DTYPES:
        return None
    strides = t._strides
    item = buffer.itemsize
    rule = STRIDED_RULES[item].get((sizes, strides), False)
    if rule is False:
        rule = strided_rule(sizes, strides, item)
    if rule is None:
        return None
    start = t._offset
    if rule[0]:
        return buffer[start:start + rule[2]:rule[1]]
    if len(sizes) == 2:  # a block of a table (row-major: s0 >= n1 > 1 = s1)
        block = _table_block(buffer, sizes, strides, start)
        if block is not None:
            return block
    return np.ndarray(sizes, buffer.dtype, buffer, start * item, rule[1])


# ``lean_strided``'s rule by item size (float32's, float64's), then by geometry ``(sizes,
# strides)``: None when it declines such a tensor (an empty one included), else its NumPy
# view's form: ``(True, step, span)`` for a 1-D tensor (the slice ``buffer[offset:offset +
# span:step]``), ``(False, byte strides, None)`` for an N-d one (``np.ndarray(sizes, dtype,
# buffer, offset * itemsize, byte strides)``). Bounded.
STRIDED_RULES: dict[int, dict[tuple[tuple[int, ...], tuple[int, ...]], Any]] = {4: {}, 8: {}}


def strided_rule(sizes: tuple[int, ...], strides: tuple[int, ...], itemsize: int) -> Any:
    """``lean_strided``'s test of a geometry (not the dtype, nor tracing), memoised in
    ``STRIDED_RULES``: None when it declines it, else how to view it (see there)."""
    rule: Any = None
    if len(sizes) == 1:
        step, n = strides[0], sizes[0]
        if step > 0 and n:
            rule = (True, step, (n - 1) * step + 1)
    elif sizes:
        last = None
        for n, step in zip(sizes, strides):
            if n < 2 or step <= 0 or (last is not None and step >= last):
                break
            last = step
        else:
            rule = (False, tuple(step * itemsize for step in strides), None)
    table = STRIDED_RULES[itemsize]
    if len(table) < 4096:
        table[(sizes, strides)] = rule
    return rule


# ``broadcast_shapes(a, b)`` and its layout by pair of shapes (None: they do not broadcast)
_BROADCASTS: dict[tuple[tuple[int, ...], tuple[int, ...]], Any] = {}


def broadcast_plan(sa: tuple[int, ...], sb: tuple[int, ...]) -> Any:
    """``(broadcast_shapes(sa, sb), its contiguous strides, numel)``, or None when they do not
    broadcast, memoised in ``_BROADCASTS`` (bounded)."""
    try:
        shape = broadcast_shapes(sa, sb)
        cached = (shape, *layout(shape))
    except RuntimeError:  # the general path raises PyTorch's error
        cached = None
    if len(_BROADCASTS) < 4096:
        _BROADCASTS[(sa, sb)] = cached
    return cached


def _lean_broadcast(ufunc: np.ufunc, x: np.ndarray, y: np.ndarray, sa: tuple[int, ...],
                    sb: tuple[int, ...]) -> Tensor | None:
    """``ufunc`` of two operands of the lean path whose shapes broadcast otherwise (a column
    ``v[:, None]`` and a matrix), or one of which is an N-d strided view: NumPy broadcasts
    their N-d reshapes into a new C-contiguous array, the layout PyTorch gives an output of
    operands that are contiguous, 1-D or row-major views (``lean_strided``)."""
    cached = _BROADCASTS.get((sa, sb), False)
    if cached is False:
        cached = broadcast_plan(sa, sb)
    if cached is None or not cached[2]:
        return None
    return _lean_call(ufunc, x.reshape(sa), y.reshape(sb), cached[0])


def new_output(shape: tuple[int, ...], dtype: np.dtype, operands: tuple[Any, ...]) -> tuple[Tensor, np.ndarray]:
    """A fresh elementwise output laid out as PyTorch would (see ``output_strides``)."""
    if len(shape) < 2:  # contiguous, whatever the operands (output_strides' first test)
        return new_tensor(shape, dtype)
    strides = output_strides(  # (a number is a 0-d operand, as PyTorch wraps it)
        shape, [(x._sizes, x._strides) if isinstance(x, Tensor) else ((), ()) for x in operands]
    )
    if strides is None:
        return new_tensor(shape, dtype)
    n = layout(shape)[1]
    buffer = allocate(n, dtype)
    t = Tensor._make(Storage._fresh(buffer), shape, strides)
    item = buffer.itemsize
    view = np.ndarray(shape, dtype, buffer=buffer, strides=tuple(st * item for st in strides)) if n else np.empty(shape, dtype)
    return t, view


def new_tensor(shape: tuple[int, ...], dtype: np.dtype) -> tuple[Tensor, np.ndarray]:
    """A fresh contiguous tensor and a writable N-d NumPy view of it (for ``out=``)."""
    strides, n = layout(shape)
    buffer = allocate(n, dtype)
    t = Tensor._make(Storage._fresh(buffer), shape, strides)
    return t, (buffer if len(shape) == 1 else buffer.reshape(shape))


def from_result(array: np.ndarray, dtype: np.dtype | None = None) -> Tensor:
    """Wrap a freshly computed NumPy array (copied only if it is not contiguous or not of
    ``dtype``)."""
    target = array.dtype if dtype is None else dtype
    out, view = new_tensor(tuple(array.shape), target)
    np.copyto(view, array, casting="unsafe")
    return out


def shape_of(x: Any) -> tuple[int, ...]:
    return x._sizes if isinstance(x, Tensor) else ()


def broadcast_shape(a: Any, b: Any) -> tuple[int, ...]:
    """The shape ``a`` and ``b`` (tensors or scalars) broadcast to."""
    sa = a._sizes if isinstance(a, Tensor) else ()
    sb = b._sizes if isinstance(b, Tensor) else ()
    if sa == sb or not sb:
        return sa
    if not sa:
        return sb
    return broadcast_shapes(sa, sb)


def binary(ufunc: np.ufunc, a: Any, b: Any, dtype: np.dtype | None = None) -> Tensor:
    """``ufunc(a, b)`` broadcast, computed in (and returned as) the promoted dtype."""
    if dtype is None:
        dtype = result_type(a, b, op=ufunc.__name__)
    out, view = new_output(broadcast_shape(a, b), dtype, (a, b))
    token = QUIET.set(IGNORE_ALL)
    try:
        ufunc(as_array(a), as_array(b), out=view, dtype=dtype, casting="unsafe")
    except OverflowError:  # a Python int outside an integer dtype's range: PyTorch wraps it
        ufunc(wrapped_operand(a, dtype, ufunc.__name__), wrapped_operand(b, dtype, ufunc.__name__), out=view,
              dtype=dtype, casting="unsafe")
    finally:
        QUIET.reset(token)
    return out


def wrapped_operand(x: Any, dtype: np.dtype, op: str) -> Any:
    """``x`` as an operand of ``dtype``: a Python int wrapped modulo the dtype's range, as
    PyTorch casts it (NumPy refuses one out of range)."""
    if isinstance(x, Tensor):
        return array_of(x)
    if isinstance(x, int) and not isinstance(x, bool):
        dtypes.check_python_int(op, x)  # from 2**63 on a uint64 Scalar, wrapped as well
        return np.array(x, dtype=np.int64 if x < 2**63 else np.uint64).astype(dtype)
    return x


def unary(ufunc: np.ufunc, a: Tensor, dtype: np.dtype | None = None) -> Tensor:
    dtype = a.dtype if dtype is None else dtype
    out, view = new_output(a._sizes, dtype, (a,))
    token = QUIET.set(IGNORE_ALL)
    try:
        ufunc(array_of(a), out=view, dtype=dtype, casting="unsafe")
    finally:
        QUIET.reset(token)
    return out


def wrap_scalar(x: Any, dtype: np.dtype) -> Tensor:
    """A Python scalar as a 0-d tensor of ``dtype`` (used by backward formulas)."""
    out, view = new_tensor((), dtype)
    view[()] = x
    return out
