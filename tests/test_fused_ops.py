"""The fused per-op path (``jitgrad/ops/fused.py``'s docstring; its templates in ``fused_binary.py``, ``fused_unary.py``, ``fused_total.py``) builds exactly
what the general code builds: every slot of the result's Tensor and Storage, of the node
(``Node.__init__``'s fields, the ones ``record`` sets, the saved values), the edges, the
AccumulateGrad of a leaf, and the same values, errors and gradients; and what PyTorch gives.
Programs run with the fused (and lean) paths on, and switched off (``general()``)."""

from __future__ import annotations

import contextlib
import gc
import inspect
import math
import sys
from typing import Any, Callable, Iterator
from unittest import mock

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import jitgrad
from conftest import budget
from jitgrad.autograd import graph
from jitgrad.autograd.graph import AccumulateGrad
from jitgrad.autograd.node import Node, SavedTensor
from jitgrad.ops import fused, fused_binary, fused_total, fused_unary, operands
from jitgrad.storage import Storage
from jitgrad.tensor import Tensor

_MISSING = object()


@contextlib.contextmanager
def general() -> Iterator[None]:
    """Every fused and lean path off (no dtype is lean)."""
    with mock.patch.object(operands, "LEAN_DTYPES", frozenset()):
        yield


@contextlib.contextmanager
def fused_only() -> Iterator[None]:
    """The lean paths behind the fused ones refuse every call: an op that is not fused
    runs the general path, so a test can tell the fused path was taken. Each module that
    imported ``lean_data`` or ``lean_binary`` (``from .operands import ...``) has its own
    name for it: every jitgrad module's name bound to them is patched."""
    with contextlib.ExitStack() as stack:
        for name in ("lean_data", "lean_binary"):
            for module in _binding(getattr(operands, name), name):
                stack.enter_context(mock.patch.object(module, name, lambda *args: None))
        yield


_TEMPLATES = (fused_binary, fused_total, fused_unary)  # (the modules that make fused functions)


@contextlib.contextmanager
def everywhere(name: str, stand_in: Any) -> Iterator[None]:
    """``stand_in`` for ``name`` in every template module that uses it (each imported its
    own binding: ``_new``, ``record``, ``needs_grad``, ``lean_binary``)."""
    with contextlib.ExitStack() as stack:
        for module in _TEMPLATES:
            if name in vars(module):
                stack.enter_context(mock.patch.object(module, name, stand_in))
        yield


def _binding(f: Any, name: str) -> list[Any]:
    """The jitgrad modules whose global ``name`` is ``f``."""
    modules = [m for key, m in list(sys.modules.items())
               if (key == "jitgrad" or key.startswith("jitgrad.")) and getattr(m, name, None) is f]
    assert operands in modules
    return modules


# A node's edge slots beyond its edges, and a saving node's inline values beyond its
# values, may be unset or None (``Node._next``, ``SavingNode``: the fused paths leave them
# unset, ``set_next`` and ``save`` write None): compared as None.
_EDGE_SLOTS = ("_n0", "_n1", "_nx", "_s0", "_s1")


def _slots(obj: Any) -> dict[str, Any]:
    """Every slot of ``obj``'s classes (unset ones as ``_MISSING``) and its ``__dict__``."""
    out: dict[str, Any] = {}
    for cls in type(obj).__mro__:
        for name in cls.__dict__.get("__slots__", ()):
            if name not in ("__weakref__", "__dict__"):
                value = _raw_slot(obj, cls, name)
                out[name] = None if value is _MISSING and name in _EDGE_SLOTS else value
    out["__dict__"] = dict(getattr(obj, "__dict__", {}))
    return out


def _raw_slot(obj: Any, cls: type, name: str) -> Any:
    """A slot's value without ``__getattr__`` (``SavingNode`` answers None for unset ones)."""
    try:
        return cls.__dict__[name].__get__(obj, type(obj))
    except AttributeError:
        return _MISSING


def _same_value(a: Any, b: Any) -> bool:
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and a.dtype == b.dtype and a.shape == b.shape and \
            a.tobytes() == b.tobytes()
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(_same_value(x, y) for x, y in zip(a, b))
    if isinstance(a, Node) and isinstance(b, Node):
        return type(a) is type(b)
    if isinstance(a, (Tensor, Storage)):
        return type(a) is type(b)
    return a is b or a == b


def _same_object(a: Any, b: Any, skip: tuple[str, ...] = ()) -> None:
    sa, sb = _slots(a), _slots(b)
    assert sa.keys() == sb.keys()
    for name in sa:
        if name in skip:
            continue
        assert _same_value(sa[name], sb[name]), (type(a).__name__, name, sa[name], sb[name])


def _same_tensor(a: Tensor, b: Tensor) -> None:
    """Tensor, Storage and node, slot by slot (nodes: class, edges, metadata, saved)."""
    _same_object(a, b, skip=("_grad_fn",))
    _same_object(a._storage, b._storage)
    assert np.array_equal(np.signbit(a.detach().numpy()), np.signbit(b.detach().numpy()))
    fa, fb = a._grad_fn, b._grad_fn
    assert type(fa) is type(fb)
    if fa is None:
        return
    # every slot (``Node.__init__``'s, ``record``'s, the class's own) and the ``__dict__``
    _same_object(fa, fb, skip=("sequence_nr", "_saved", "_compact", "_codes", "_dims"))
    assert fa.input_metadata == fb.input_metadata
    assert [(type(n), nr) for n, nr in fa.next_functions] == [(type(n), nr) for n, nr in fb.next_functions]
    for (na, _), (nb, _) in zip(fa.next_functions, fb.next_functions):
        if type(na) is AccumulateGrad:  # (made by the op: the leaf had none)
            _same_object(na, nb, skip=("__dict__",))  # (the hooks: other functions)
            assert na.__dict__.keys() == nb.__dict__.keys()
            assert (na._tensor_pre_hooks is None) == (nb._tensor_pre_hooks is None)
    assert fa.sequence_nr < fb.sequence_nr
    assert fa.__dict__ == fb.__dict__
    for name in ("input_sizes", "dims", "alpha", "keepdim", "exponent", "min", "max"):  # (``_dims``: None is every dim)
        assert _same_value(getattr(fa, name, _MISSING), getattr(fb, name, _MISSING)), name
        assert type(getattr(fa, name, _MISSING)) is type(getattr(fb, name, _MISSING)), name
    if hasattr(type(fa), "save"):
        ca, cb = _slots(fa), _slots(fb)
        assert (ca["_compact"] is _MISSING) == (cb["_compact"] is _MISSING)
        assert _same_value(ca["_codes"], cb["_codes"])
        saved_a, saved_b = fa.saved, fb.saved
        assert len(saved_a) == len(saved_b)
        for x, y in zip(saved_a, saved_b):
            if isinstance(x, SavedTensor):
                _same_object(x, y, skip=("_data", "_node"))
                assert (x._node is None) == (y._node is None)
                assert (x._data is None) == (y._data is None)
            else:
                assert x == y


def _three_ways(run: Callable[[Any], Any]) -> tuple[Any, Any, Any]:
    """``run(lib)`` on the fused paths, on the general path and with PyTorch, quietly."""
    with np.errstate(all="ignore"):
        ours = run(jitgrad)
        with general():
            slow = run(jitgrad)
        return ours, slow, run(torch)


# op name -> (fused function to call, how many operands)
OPS: dict[str, Callable[..., Any]] = {
    "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b, "rsub": lambda a, b: 2.5 - a, "radd": lambda a, b: 2.5 + a,
    "rmul": lambda a, b: 2.5 * a, "neg": lambda a, b: -a, "exp": lambda a, b: a.exp(),
    "sin": lambda a, b: a.sin(), "sum": lambda a, b: a.sum(), "mean": lambda a, b: a.mean(),
    "sqrt": lambda a, b: a.sqrt(), "log": lambda a, b: a.log(), "abs": lambda a, b: abs(a),
    # declared ops whose forward is not a ufunc; numbers as node fields; one-dim reductions
    "sigmoid": lambda a, b: a.sigmoid(), "relu": lambda a, b: jitgrad.relu(a), "tanh": lambda a, b: a.tanh(),
    "pow": lambda a, b: a ** 3.0, "pow_int": lambda a, b: a.pow(2), "square": lambda a, b: a.square(),
    "pow_half": lambda a, b: a ** 0.5, "clamp": lambda a, b: a.clamp(-1.0, 2), "clamp_min": lambda a, b: a.clamp(min=0),
    "clamp_max": lambda a, b: a.clamp_max(0.3), "sum_dim": lambda a, b: a.sum(-1), "mean_dim": lambda a, b: a.mean(0),
    "sum_keepdim": lambda a, b: a.sum(0, keepdim=True), "mean_keepdim": lambda a, b: a.mean(-1, True),
    "softmax": lambda a, b: jitgrad.softmax(a, -1), "log_softmax": lambda a, b: a.log_softmax(0),
    "max": lambda a, b: a.max(), "min": lambda a, b: jitgrad.min(a),
    # declared binary ops of two tensors saving both
    "maximum": lambda a, b: jitgrad.maximum(a, b), "minimum": lambda a, b: a.minimum(b),
    "atan2": lambda a, b: jitgrad.atan2(a, b), "logaddexp": lambda a, b: jitgrad.logaddexp(a, b),
}


def _stale_row(base: Tensor) -> Tensor:
    """A row whose storage was written after the row was taken (its history is regenerated
    when an op uses it)."""
    table = base * 1.0
    row = table[1]
    table[0, 0] = base[1, 1] * 3.0
    return row


def _nograd_row(base: Tensor) -> Tensor:
    """A row of ``base`` taken under no_grad: no history, yet it requires grad (its base
    does)."""
    with jitgrad.no_grad():
        return base[1]


def _table(base: Tensor) -> Tensor:
    """A (4, 4) table of ``base``'s dtype, with history through ``base``."""
    return (base.sum() + jitgrad.arange(16, dtype=base.dtype).reshape(4, 4) / 8.0)


def _operands(kind: str, dtype: Any, other: str) -> tuple[Any, Any]:
    base = jitgrad.tensor([[0.5, -1.5, 2.0], [3.0, 0.25, -4.0]], dtype=dtype, requires_grad=True)
    a = {
        "leaf": lambda: base,
        "hooked_leaf": lambda: (base.register_hook(lambda g: g * 2), base)[1],
        "result": lambda: base * 2.0,
        "row": lambda: (base * 1.0)[1],  # a view, contiguous inside a bigger storage
        "leaf_row": lambda: base[0],
        "plain": lambda: base.detach().clone(),
        "scalar": lambda: (base * 1.0)[1, 2],
        "stale_row": lambda: _stale_row(base),
        "column": lambda: (base * 1.0)[:, 1],  # strided: computed by the written-out views
        "block": lambda: (base * 1.0)[:, ::2],
        "table_block": lambda: (_table(base) * 1.0)[1:3, 1:4],  # a block of a table (heat_2d's)
        "unsqueezed_row": lambda: (base * 1.0)[1][:, None],  # a contiguous (3, 1) (hmm's)
        "block_leaf": lambda: base[:, 1:],  # a view of a leaf (no history: ``record``'s)
        "plain_row": lambda: base.detach().clone()[1],  # a view without history, needing no gradient
        "nograd_row": lambda: _nograd_row(base),  # without history, but its base needs a gradient
    }[kind]()
    b = {
        "number": lambda: 1.75,
        "int": lambda: 3,
        "tensor": lambda: jitgrad.full(a.shape, 0.75, dtype=dtype),
        "tensor_grad": lambda: jitgrad.full(a.shape, 0.75, dtype=dtype, requires_grad=True) * 1.0,
        "self": lambda: a,
        "plain_view": lambda: jitgrad.full((2, *a.shape), 0.75, dtype=dtype)[1],  # (no history)
        "zero_d": lambda: jitgrad.tensor(0.75, dtype=dtype, requires_grad=True) * 1.0,
        "one": lambda: jitgrad.full((1,), 0.75, dtype=dtype),
        "big": lambda: jitgrad.full((2, 3), 0.75, dtype=dtype, requires_grad=True),
        "column_of": lambda: jitgrad.full((a.shape[0], 1) if a.dim() else (1,), 0.75, dtype=dtype,
                                          requires_grad=True),  # broadcast
        "table_block": lambda: (_table(base) * 2.0)[:2, 1:] if a.dim() == 2 and a.shape[1] == 3 else
                               (_table(base) * 2.0)[1:, :a.shape[0]] if a.dim() == 2 else
                               (_table(base) * 2.0)[:2, 1:],  # broadcast with ``a`` (or not: the error)
        "strided": lambda: (jitgrad.full((2, 2 * a.numel() + 1), 0.5, dtype=dtype, requires_grad=True)
                            * 1.0)[1, :2 * a.numel():2].reshape(a.shape) if a.dim() <= 1 else
                           (jitgrad.full((a.shape[0], 2 * a.shape[1]), 0.5, dtype=dtype) * 1.0)[:, ::2],
    }[other]()
    return a, b


@pytest.mark.parametrize("op,other", [(op, other) for op in sorted(OPS) for other in (
    ["number", "int", "tensor", "tensor_grad", "self", "zero_d", "one", "big", "column_of", "strided", "table_block",
     "plain_view"]
    if op in ("add", "sub", "mul", "div", "maximum", "minimum", "atan2", "logaddexp")
    else ["number"])])
@pytest.mark.parametrize("kind", ["leaf", "hooked_leaf", "result", "row", "leaf_row", "plain", "scalar", "stale_row",
                                  "column", "block", "table_block", "unsqueezed_row", "block_leaf", "plain_row",
                                  "nograd_row"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_fused_op_builds_what_the_general_path_builds(op: str, kind: str, other: str, dtype: str) -> None:
    results = []
    for path in (fused_only, general):
        a, b = _operands(kind, getattr(jitgrad, dtype), other)
        with path():
            try:
                out = OPS[op](a, b)
            except (RuntimeError, TypeError) as e:  # (shapes that do not broadcast, a number: the same error)
                out = e
        results.append((out, a, b))
    (out, a, b), (slow, sa, sb) = results
    if isinstance(out, Exception) or isinstance(slow, Exception):
        assert type(out) is type(slow) and str(out) == str(slow)
        return
    _same_tensor(out, slow)
    if out.requires_grad:
        for (r, x, y) in results:
            r.sum().backward()
        leaves = [t for t in (a._base if a._base is not None else a,) if t.is_leaf]
        slow_leaves = [t for t in (sa._base if sa._base is not None else sa,) if t.is_leaf]
        for t, u in zip(leaves, slow_leaves):
            assert (t.grad is None) == (u.grad is None)
            if t.grad is not None:
                assert t.grad.detach().numpy().tobytes() == u.grad.detach().numpy().tobytes()


def test_fused_path_is_taken_for_the_common_operands() -> None:
    """(Else the slot-by-slot test above compares the general path with itself.)"""
    x = jitgrad.ones(4, dtype=jitgrad.float64, requires_grad=True)
    y = jitgrad.ones(4, dtype=jitgrad.float64)
    zero_d = jitgrad.tensor(2.0, dtype=jitgrad.float64, requires_grad=True)
    calls = []
    real = fused._new  # (object.__new__: every template's)

    def spy(cls: type) -> Any:
        if cls is not AccumulateGrad:  # (made again when the leaf's last graph is gone)
            calls.append(cls.__name__)
        return real(cls)

    with everywhere("_new", spy):
        for make in (lambda: x * 1.5, lambda: x + y, lambda: 2.0 - x, lambda: x / y, lambda: -x,
                     lambda: x.exp(), lambda: x.sum(), lambda: x.mean(), lambda: x.sin(), lambda: y - x,
                     lambda: x * zero_d, lambda: zero_d * x, lambda: x + jitgrad.ones(1, dtype=jitgrad.float64),
                     lambda: x.sigmoid(), lambda: jitgrad.relu(x), lambda: x.tanh(), lambda: x ** 3.0,
                     lambda: x.pow(2), lambda: x.square(), lambda: x.clamp(0.1, 0.5), lambda: x.clamp(min=0),
                     lambda: x.sum(0), lambda: x.mean(-1), lambda: x.reshape(2, 2).sum(1),
                     lambda: x.reshape(2, 2).mean(0, keepdim=True), lambda: x.reshape(2, 1, 2).sum(-1),
                     lambda: jitgrad.softmax(x, 0), lambda: x.log_softmax(-1), lambda: jitgrad.maximum(x, y),
                     lambda: x.minimum(zero_d), lambda: jitgrad.atan2(y, x), lambda: x.max(), lambda: x.min()):
            make()  # (a declared op's first call per dtype memoises its dtype rule)
            calls.clear()
            out = make()
            assert calls[:2] == ["Storage", "Tensor"], calls
            assert len(calls) == 3 and calls[2].endswith(("Backward0", "Backward1")), calls
            assert out.grad_fn is not None
    rows, stale = (x * 1.0)[1:], x * 1.0
    row = stale[1:]
    stale[0] = 2.0  # (written after ``row`` was taken: its history is regenerated)
    with everywhere("record", mock.Mock(side_effect=AssertionError("record"))):
        for make in (lambda: rows * 2.0, lambda: -rows, lambda: rows.sum(), lambda: rows + rows):
            assert make().grad_fn is not None  # (views with up-to-date history: written out)
    record = mock.Mock(wraps=graph.record)
    with everywhere("record", record):
        assert (row * 2.0).grad_fn is not None
        assert record.call_count == 1
    table, pair = (x * 1.0).reshape(2, 2), jitgrad.ones(2, dtype=jitgrad.float64)
    grid = jitgrad.rand(6, 6, dtype=jitgrad.float64, requires_grad=True) * 1.0
    a, b = grid[2:, 1:-1], grid[:-2, 1:-1]  # blocks of a table (heat_2d's)
    column, matrix = (x * 1.0)[:, None], jitgrad.rand(4, 4, dtype=jitgrad.float64) * 1.0  # (hmm's)
    block, total = a * 1.0, pair.sum()
    with everywhere("_new", spy), \
            everywhere("lean_binary", mock.Mock(side_effect=AssertionError("lean_binary"))):
        # strided operands and broadcasting, written out: every piece made here
        for make in (lambda: x.reshape(2, 2) * jitgrad.ones(1, dtype=jitgrad.float64), lambda: x[::2] * 2.0,
                     lambda: table[:, 1] + pair, lambda: x[:2].reshape(2, 1) - jitgrad.ones(1, 4, dtype=jitgrad.float64),
                     lambda: a + b, lambda: a - b, lambda: 4 * a, lambda: a * 0.5, lambda: zero_d * a,
                     lambda: a / zero_d, lambda: column + matrix, lambda: matrix * column, lambda: b + block,
                     lambda: block - b, lambda: grid[1:, 0] * total, lambda: total + grid[1:, 0]):
            calls.clear()
            out = make()
            assert calls[:2] == ["Storage", "Tensor"], calls
            assert len(calls) == 3 and calls[2].endswith(("Backward0", "Backward1")), calls
    with everywhere("_new", spy), \
            everywhere("lean_binary", lean := mock.Mock(wraps=operands.lean_binary)):
        # computed by ``lean_binary`` (a reflected op of a strided tensor), the node made here
        for make in (lambda: 2.0 - x[::2], lambda: 2.0 - a):
            calls.clear()
            lean.reset_mock()
            out = make()
            assert lean.call_count == 1 and calls == [type(out.grad_fn).__name__], calls
    with everywhere("_new", spy):  # not fused: other dtypes, numbers, a trace
        for make in (lambda: x * True, lambda: x.to(jitgrad.float16) * 2.0, lambda: x * 2**63,
                     lambda: 2.0 - x.to(jitgrad.float16), lambda: x.t() * 2.0 if False else x * "a"):
            calls.clear()
            try:
                make()
            except TypeError:
                pass
            assert calls == []


def test_views_without_history_take_the_written_out_edges() -> None:
    """A view without history whose base needs no gradient has no edge: no ``needs_grad``
    nor ``record``; a stale view, or one whose base needs a gradient, goes through them."""
    x = jitgrad.ones(4, dtype=jitgrad.float64, requires_grad=True)
    plain, column = jitgrad.ones(2, 4, dtype=jitgrad.float64)[1], jitgrad.ones(4, dtype=jitgrad.float64)[:, None]
    matrix = jitgrad.ones(4, 4, dtype=jitgrad.float64, requires_grad=True) * 1.0
    with everywhere("needs_grad", mock.Mock(side_effect=AssertionError("needs_grad"))), \
            everywhere("record", mock.Mock(side_effect=AssertionError("record"))):
        for make, grad in ((lambda: plain * 2.0, False), (lambda: x + plain, True), (lambda: plain - x, True),
                           (lambda: column + matrix, True), (lambda: column * column, False),
                           (lambda: 2.0 - plain, False), (lambda: plain / x, True), (lambda: plain.exp(), False),
                           (lambda: -column, False), (lambda: plain.sum(), False), (lambda: column.mean(), False)):
            assert (make().grad_fn is not None) is grad
    with jitgrad.no_grad():
        row = x[1:]
    record = mock.Mock(wraps=graph.record)
    with everywhere("record", record):
        assert (row * 2.0).grad_fn is not None and (plain[1:] + row).grad_fn is not None
        assert record.call_count == 2


def test_the_general_path_does_not_ask_the_lean_path_again() -> None:
    """When the fused path has run ``lean_binary`` and it declined, the general path does
    not run it a second time (``lean=False``)."""
    from jitgrad.ops import elementwise

    m = jitgrad.rand(3, 3, dtype=jitgrad.float64, requires_grad=True) * 1.0
    x = jitgrad.ones(3, dtype=jitgrad.float64, requires_grad=True)
    for make, calls in ((lambda: m.t() * m, 1), (lambda: m.t() - 2.0, 0), (lambda: x * True, 0),
                        (lambda: x.to(jitgrad.float16) / 2.0, 1), (lambda: 2.0 - m.t(), 1),
                        (lambda: x * x.to(jitgrad.float32), 0), (lambda: x + 2**63, 0)):
        with everywhere("lean_binary", lean := mock.Mock(wraps=operands.lean_binary)), \
                mock.patch.object(elementwise, "lean_binary", wraps=elementwise.lean_binary) as again:
            try:
                out = make()
            except RuntimeError:
                out = None
        assert lean.call_count + again.call_count == calls
        if out is not None:
            with general():
                slow = make()
            _same_tensor(out, slow)


def test_fused_only_refuses_every_lean_path() -> None:
    """``fused_only`` patches each module's own name for the lean helpers: no jitgrad
    module holds them inside it, and the ops the fused path leaves (the functions with a
    number first) build what the general path builds."""
    real = {name: getattr(operands, name) for name in ("lean_data", "lean_binary")}
    with fused_only():
        held = [(key, name) for key, m in list(sys.modules.items()) if key.startswith("jitgrad")
                for name, f in real.items() if getattr(m, name, None) is f]
    assert held == []
    for make in (lambda x: jitgrad.add(2.0, x), lambda x: jitgrad.sub(2.0, x), lambda x: jitgrad.mul(2.0, x),
                 lambda x: jitgrad.div(2.0, x), lambda x: jitgrad.add(x, x, alpha=2)):
        results = []
        for path in (fused_only, general):
            x = jitgrad.tensor([0.5, -1.5, 0.0], dtype=jitgrad.float64, requires_grad=True)
            with path():
                results.append(make(x))
        _same_tensor(*results)


def test_each_fused_op_runs_a_code_object_of_its_own() -> None:
    """CPython specialises per code object: ops made by one template keep their own copy
    (``fused.own_code``), the template's bytecode, file and lines, and their names and
    signatures, so one op's node class does not make another's instructions generic."""
    ops = [Tensor.__mul__, Tensor.__add__, Tensor.__sub__, Tensor.__truediv__, Tensor.exp,
           Tensor.sigmoid, Tensor.__neg__, Tensor.sum, Tensor.mean]
    codes = [op.__code__ for op in ops]
    assert len({id(code) for code in codes}) == len(ops)
    by_template = {}
    for op, code in zip(ops, codes):
        first = by_template.setdefault((code.co_filename, code.co_firstlineno), code)
        assert code.co_code == first.co_code and code.co_linetable == first.co_linetable
        assert code.co_filename.endswith(("fused_binary.py", "fused_unary.py", "fused_total.py"))
    assert len(by_template) == 3
    assert Tensor.sum.__name__ == "sum" and "dim" in str(inspect.signature(Tensor.sum))
    assert Tensor.__mul__.__name__ == "fused_multiply" and Tensor.sum.__kwdefaults__ == {"dtype": None}
    assert Tensor.exp.__defaults__ is not None
    x = jitgrad.ones(3, dtype=jitgrad.float64, requires_grad=True)
    assert type((x * x).grad_fn).__name__ == "MulBackward0"
    assert type((x + x).grad_fn).__name__ == "AddBackward0"


def test_own_code_keeps_everything_but_the_code_object() -> None:
    def template(scale: float) -> Callable[..., float]:
        def op(x: float, *, shift: float = 1.0) -> float:
            """Scaled and shifted."""
            return x * scale + shift
        op.marker = scale  # type: ignore[attr-defined]
        return op
    op = template(2.0)
    copy = fused.own_code(op)
    assert copy.__code__ is not op.__code__ and copy.__code__.co_code == op.__code__.co_code
    for name in ("__name__", "__qualname__", "__doc__", "__module__", "__defaults__",
                 "__kwdefaults__", "__annotations__", "__dict__", "__globals__"):
        assert getattr(copy, name) == getattr(op, name), name
    assert copy(3.0) == op(3.0) == 7.0 and copy(3.0, shift=0.0) == 6.0
    assert inspect.signature(copy) == inspect.signature(op)


def test_written_out_tensor_and_storage_have_every_slot_of_make_and_fresh() -> None:
    values = np.arange(3.0)
    made = Tensor._make(Storage._fresh(values), (3,), (1,))
    out = jitgrad.tensor([0.0, 1.0, 2.0], dtype=jitgrad.float64) * 1.0
    _same_object(out, made, skip=("_storage",))
    _same_object(out._storage, made._storage)


def test_accumulate_grad_written_out_is_the_constructed_one() -> None:
    x = jitgrad.ones(3, requires_grad=True)
    x.register_hook(lambda g: g * 2)
    made = AccumulateGrad(x)
    made._tensor_pre_hooks = {0: x._hooks}
    written = graph.grad_accumulator(x)
    _same_object(written, made)
    assert written.variable is x and written.sequence_nr == sys.maxsize


def test_accumulate_grad_lives_with_the_graph_as_in_pytorch() -> None:
    """Held weakly by the leaf: a new graph after the last one died gets a new one (hooks
    registered on the old node are gone); a live graph's is shared."""
    for lib in (jitgrad, torch):
        x = lib.ones(3, requires_grad=True)
        y = x * 2.0
        acc = y.grad_fn.next_functions[0][0]
        assert (x - 1.0).grad_fn.next_functions[0][0] is acc
        acc.register_prehook(lambda g: (g[0] * 100,))
        del y, acc
        gc.collect()
        (x * 2.0).sum().backward()
        assert x.grad.tolist() == [2.0, 2.0, 2.0]


def test_saved_result_is_the_general_saved_tensor_field_for_field() -> None:
    x = jitgrad.tensor([0.5, 1.0], dtype=jitgrad.float64, requires_grad=True)
    out = x.exp()
    node = out.grad_fn
    general_saved = SavedTensor(out, node, 0)
    (r,) = node.unpack()
    assert r._grad_fn is node and r._storage is out._storage and r._sizes == out._sizes
    saved = node._raw_saved_result
    _same_object(saved, general_saved, skip=("_data", "_node"))
    assert saved._node() is node and saved._data._storage is out._storage
    assert node.unpack()[0]._grad_fn is node


@pytest.mark.parametrize("materialized", [False, True])
def test_saved_result_errors_as_pytorch(materialized: bool) -> None:
    """A write into the result, backward twice, as PyTorch (messages as the general path)."""
    messages = []
    for lib in (jitgrad, torch):
        x = lib.tensor([0.5, 1.0], dtype=lib.float64, requires_grad=True)
        out = x.exp()
        if materialized and lib is jitgrad:
            out.grad_fn.saved
        out.add_(1.0)
        with pytest.raises(RuntimeError, match="output 0 of Exp(Backward0)?, is at version 1; expected version 0") as e:
            out.sum().backward()
        messages.append(str(e.value))
        y = x.exp()
        y.sum().backward()
        with pytest.raises(RuntimeError, match="backward through the graph a second time"):
            y.sum().backward()
        if lib is jitgrad:
            with pytest.raises(RuntimeError, match="backward through the graph a second time"):
                y.grad_fn._saved_result
    assert "jitgrad.autograd.set_detect_anomaly" in messages[0]


def test_saved_result_with_retain_graph_hooks_and_double_backward() -> None:
    for lib in (jitgrad, torch):
        x = lib.tensor([0.5, 1.0], dtype=lib.float64, requires_grad=True)
        out = x.exp()
        out.sum().backward(retain_graph=True)
        out.sum().backward()
        assert np.allclose(x.grad.detach().numpy(), 2 * np.exp([0.5, 1.0]))
        (g,) = lib.autograd.grad(x.exp().sum(), x, create_graph=True)
        (gg,) = lib.autograd.grad(g.sum(), x)
        assert np.allclose(gg.detach().numpy(), np.exp([0.5, 1.0]))
    x = jitgrad.tensor([0.5, 1.0], dtype=jitgrad.float64, requires_grad=True)
    with jitgrad.autograd.graph.saved_tensors_hooks(lambda t: t * 2, lambda t: t):
        out = x.exp()  # the general SavedTensor, packed
    assert out.grad_fn._raw_saved_result.unpack_hook is not None
    out.sum().backward()
    np.testing.assert_allclose(x.grad.detach().numpy(), 2 * np.exp([0.5, 1.0]))


@pytest.mark.filterwarnings("ignore:Anomaly Detection")
def test_fused_nodes_record_their_creation_in_anomaly_mode() -> None:
    x = jitgrad.ones(3, dtype=jitgrad.float64, requires_grad=True)
    with jitgrad.autograd.detect_anomaly():
        for out in (x * 2.0, -x, x.sum(), x.exp()):
            assert "traceback_" in out.grad_fn.metadata
            assert out.grad_fn.next_functions[0][0].metadata  # the AccumulateGrad's too


def test_negation_and_abs_are_silent_without_quieting_numpy() -> None:
    """``negative`` and ``absolute`` never raise a floating-point flag: no warning, whatever
    NumPy's error state (the fused path does not quiet them); the others are quieted."""
    snan = np.frombuffer(np.array([0x7FF0000000000001] * 3, dtype=np.uint64).tobytes(), dtype=np.float64)
    values = np.concatenate([snan, [np.inf, -np.inf, np.nan, 0.0, 5e-324, 1.7e308]])
    for dtype in (np.float64, np.float32):
        x = jitgrad.from_numpy(values.astype(dtype) if dtype is np.float64 else
                               np.array([np.inf, np.nan, 1e-45, 3e38], dtype=np.float32))
        with np.errstate(all="raise"):
            y = -x
            assert np.array_equal(np.signbit(abs(x).detach().numpy()), np.zeros(len(x), bool))
            (x * 1e300).exp()
            (x * 1e300).sum()
            x - x
        assert np.array_equal(np.signbit(y.detach().numpy()), ~np.signbit(x.detach().numpy()))


@settings(max_examples=budget(200), deadline=None)
@given(st.data())
def test_fused_programs_match_the_general_path_and_pytorch(data: st.DataObject) -> None:
    """Chains of fused ops on leaves, results, rows and numbers: the same values and
    gradients as the general path (bit for bit) and as PyTorch (closely)."""
    dtype = data.draw(st.sampled_from(["float32", "float64"]))
    steps = data.draw(st.lists(st.tuples(
        st.sampled_from(["add", "sub", "mul", "div", "rsub", "neg", "exp", "sum", "mean", "row"]),
        st.sampled_from([0.5, -2.0, 3, 0, 1e30]), st.booleans()), min_size=1, max_size=8))

    def run(lib: Any) -> tuple[Any, Any]:
        x = lib.tensor([[0.5, -1.5, 2.0], [3.0, 0.25, -4.0]], dtype=getattr(lib, dtype), requires_grad=True)
        w = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=getattr(lib, dtype), requires_grad=True)
        t, u = x, w
        for op, c, with_tensor in steps:
            if op == "row":
                t, u = t[1] if t.dim() == 2 else t, u[0] if u.dim() == 2 else u
                continue
            other = u if with_tensor and u.shape == t.shape else c
            t = {"add": lambda: t + other, "sub": lambda: t - other, "mul": lambda: t * other,
                 "div": lambda: t / (other if not isinstance(other, (int, float)) or other else 2.0),
                 "rsub": lambda: c - t, "neg": lambda: -t, "exp": lambda: (t * 1e-3).exp(),
                 "sum": lambda: t.sum() + u.sum() if t.dim() else t, "mean": lambda: t.mean()}[op]()
            if t.dim() == 0:
                t = t * x
        t.sum().backward()
        return t.detach().numpy().copy(), (x.grad.detach().numpy().copy(), w.grad.detach().numpy().copy() if w.grad is not None else None)

    ours, slow, theirs = _three_ways(run)
    assert ours[0].tobytes() == slow[0].tobytes()
    assert ours[1][0].tobytes() == slow[1][0].tobytes()
    # An absolute tolerance at the scale of the intermediate values: where two of them
    # cancel (exp(x/1000) - 1, or a 1e30 added and taken away again), what is left is their
    # rounding, which differs by an ulp between libraries (PyTorch's exp is not NumPy's,
    # its sums go in another order)
    scale = 1e32 if any(c == 1e30 for _, c, _ in steps) else 10.0
    atol = (1e-6 if dtype == "float32" else 1e-14) * scale
    np.testing.assert_allclose(ours[0], theirs[0].astype(ours[0].dtype), rtol=1e-4, atol=atol)
    np.testing.assert_allclose(ours[1][0], theirs[1][0], rtol=1e-4, atol=atol)


def test_fused_ops_under_no_grad_inference_and_a_trace() -> None:
    x = jitgrad.ones(3, dtype=jitgrad.float64, requires_grad=True)
    with jitgrad.no_grad():
        assert (x * 2.0).grad_fn is None and (-x).grad_fn is None and x.sum().grad_fn is None
    with jitgrad.inference_mode():
        y = x * 2.0
    assert y.is_inference() and not (x * 2.0).is_inference()

    @jitgrad.compile
    def f(a: Any) -> Any:
        return (a * 2.0 - 1.0).exp().sum()

    np.testing.assert_allclose(f(x).item(), 3 * math.exp(1.0))


@pytest.mark.filterwarnings("ignore:Anomaly Detection")
@pytest.mark.parametrize("op", ["sin", "exp", "mul", "div", "mul_number", "pow", "clamp", "maximum", "softmax",
                                "sigmoid"])
def test_saves_under_hooks_and_anomaly_take_the_general_form(op: str) -> None:
    """Saved tensor hooks pack what the fused op saves (as the general path's ``save``),
    anomaly mode records where it was saved; gradients as without them, and as PyTorch's."""
    make = {"sin": lambda a, b: a.sin(), "exp": lambda a, b: a.exp(), "mul": lambda a, b: a * b,
            "div": lambda a, b: a / b, "mul_number": lambda a, b: a * 2.5, "pow": lambda a, b: a ** 3.0,
            "clamp": lambda a, b: a.clamp(-1.0, 1.0), "maximum": lambda a, b: a.maximum(b),
            "softmax": lambda a, b: a.softmax(0), "sigmoid": lambda a, b: a.sigmoid()}[op]
    grads = []
    for lib, mode in ((jitgrad, "hooks"), (jitgrad, "anomaly"), (jitgrad, None), (torch, None)):
        a = lib.tensor([0.5, 1.5, -2.0], dtype=lib.float64, requires_grad=True)
        b = lib.tensor([2.0, -1.0, 4.0], dtype=lib.float64, requires_grad=True)
        packed: list[Any] = []
        context: Any = contextlib.nullcontext()
        if mode == "hooks":
            context = lib.autograd.graph.saved_tensors_hooks(lambda t: packed.append(t) or t, lambda t: t)
        elif mode == "anomaly":
            context = lib.autograd.detect_anomaly()
        with context:
            out = make(a, b)
        if mode == "hooks":
            assert len(packed) == {"sin": 1, "exp": 1, "mul": 2, "div": 2, "mul_number": 0, "pow": 1, "clamp": 1,
                                   "maximum": 2, "softmax": 1, "sigmoid": 1}[op]
        if mode == "anomaly" and op != "mul_number":
            saved = [s for s in out.grad_fn.saved if isinstance(s, SavedTensor)]
            assert saved and all(s._saved_at is not None for s in saved)
        out.sum().backward()
        grads.append((a.grad.detach().numpy().copy(), None if b.grad is None else b.grad.detach().numpy().copy()))
    for g in grads[1:]:
        np.testing.assert_allclose(g[0], grads[0][0], rtol=1e-12)
        assert (g[1] is None) == (grads[0][1] is None)


def test_sum_and_mean_methods_take_every_argument_as_the_functions() -> None:
    """``Tensor.sum``/``mean`` are fused functions in front of ``reduction.sum``/``mean``:
    the same results, and the same errors for arguments those refuse."""
    from jitgrad.ops import reduction

    x = jitgrad.tensor([[1.0, 2.0], [3.0, 4.5]], dtype=jitgrad.float64, requires_grad=True)
    for method, function in ((jitgrad.Tensor.sum, reduction.sum), (jitgrad.Tensor.mean, reduction.mean)):
        assert method.__name__ == function.__name__
        for args, kwargs in [((), {}), ((0,), {}), ((1, True), {}), ((), {"dim": (0, 1)}),
                             ((), {"keepdim": True}), ((), {"dtype": jitgrad.float32}), ((None, False), {})]:
            a, b = method(x, *args, **kwargs), function(x, *args, **kwargs)
            _same_tensor(a, b)
        for args, kwargs in [((0, False, None, 1), {}), ((), {"foo": 1}), ((), {"input": x}), ((5,), {})]:
            errors = []
            for f in (method, function):
                try:
                    f(x, *args, **kwargs)
                    errors.append(None)
                except (TypeError, IndexError, RuntimeError) as e:
                    errors.append((type(e), str(e)))
            assert errors[0] == errors[1], errors


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_numbers_as_cached_arrays_give_the_python_numbers_results(dtype: str) -> None:
    """A float64 operand's number is passed to NumPy as a cached 0-d array: bit for bit the
    general path's result (a Python number), for every kind of number, twice (cached)."""
    numbers = [1.5, -7, 3, 2**53 - 1, 2**53, 2**53 + 1, -(2**53) + 1, 2**62, 1e308, -1e-320, 5e-324,
               math.inf, -math.inf, math.nan, 0.0, -0.0, 0, 1e-300, 0.1]
    x = jitgrad.tensor([1.0, -2.5, 0.0, -0.0, 3e307, 1e-310, math.inf, math.nan],
                       dtype=getattr(jitgrad, dtype), requires_grad=True)
    with np.errstate(all="ignore"):
        for c in numbers:
            for op in (lambda t: t * c, lambda t: t + c, lambda t: t - c, lambda t: t / c, lambda t: c - t,
                       lambda t: c * t, lambda t: c + t):
                for _ in range(2):
                    fast = op(x)
                    with general():
                        slow = op(x)
                    assert fast.dtype == slow.dtype
                    assert fast.detach().numpy().tobytes() == slow.detach().numpy().tobytes(), (c, dtype)
    assert all(not a.flags.writeable and a.ndim == 0 for a in fused_binary._NUMBERS.values())
    assert 0.0 not in fused_binary._NUMBERS


@pytest.mark.parametrize("make", [
    lambda x: x.reshape(4, 1) - x.reshape(1, 4),  # broadcast: lean_binary computes it
    lambda x: x[0] * x,  # a one-element input: the other's geometry
    lambda x: x * 2.0,
])
def test_the_first_op_of_a_dtype_makes_its_plans(make: Callable[[Any], Any]) -> None:
    """(``_PLANS`` has no entry for a dtype's sizes before their first fused op.)"""
    x = jitgrad.tensor([1.0, 2.0, 3.0, 4.0], dtype=jitgrad.float64, requires_grad=True)
    with mock.patch.dict(fused._PLANS, {dtype: {} for dtype in fused._PLANS}, clear=True):
        out = make(x)
    with general():
        slow = make(x)
    _same_tensor(out, slow)


# -- the dunders' keywords, as PyTorch's ---------------------------------------------------
@pytest.mark.parametrize("call", [
    "x.__add__(y, alpha=2)", "x.__radd__(y, alpha=2)", "x.__sub__(y, alpha=2)",
    "x.__truediv__(y, rounding_mode='floor')",
    "x.__mul__(other=y)", "x.__add__(other=y, alpha=0.5)",
    # a keyword the op does not take: NotImplemented, as PyTorch's dunders
    "x.__rsub__(y, alpha=2)", "x.__mul__(y, alpha=2)", "x.__truediv__(y, alpha=1)",
    "x.__add__(y, rounding_mode=None)", "x.__rmul__(y, alpha=1)",
])
def test_dunder_keywords_as_pytorch(call: str) -> None:
    results = []
    for lib in (jitgrad, torch):
        x = lib.tensor([1.0, -2.0, 3.5], dtype=lib.float64, requires_grad=True)
        y = lib.tensor([2.0, 0.5, -1.0], dtype=lib.float64)
        out = eval(call, {}, {"x": x, "y": y})
        if out is NotImplemented:
            results.append(None)
            continue
        out.sum().backward()
        results.append((out.detach().numpy().tolist(), x.grad.detach().numpy().tolist(),
                        type(out.grad_fn).__name__))
    assert results[0] == results[1]


# -- strided blocks and broadcasting, written out (``_pair_plan``, ``strided_rule``) --------
def _under_no_grad(lib: Any, make: Callable[[], Any]) -> Any:
    with lib.no_grad():
        return make()


_SLICE = st.tuples(st.integers(0, 3), st.integers(-2, 6), st.sampled_from([1, 1, 2, 3]))


@settings(max_examples=budget(150), deadline=None)
@given(st.data())
def test_fused_blocks_and_broadcasts_match_the_general_path_and_pytorch(data: st.DataObject) -> None:
    """Blocks of tables (any start, stop and step along each dim; empty ones too), columns,
    unsqueezed rows, 0-d tensors and numbers, combined by the four binary ops and
    ``maximum`` (a declared op of two tensors): every slot
    of result and node as the general path's, the same values and gradients (bit for bit),
    and PyTorch's values, strides and gradients."""
    dtype = data.draw(st.sampled_from(["float32", "float64"]))
    op = data.draw(st.sampled_from(["add", "sub", "mul", "div", "maximum"]))
    rows, cols = data.draw(st.integers(1, 6)), data.draw(st.integers(1, 6))
    first = data.draw(st.tuples(_SLICE, _SLICE))
    kind = data.draw(st.sampled_from(["block", "number", "zero_d", "column", "row", "same", "transposed",
                                      "plain_block", "nograd_block", "plain_zero_d"]))
    second = data.draw(st.tuples(_SLICE, _SLICE))
    swap = data.draw(st.booleans())
    values = np.random.default_rng(data.draw(st.integers(0, 2**16))).uniform(0.5, 2.0, (rows, cols))

    def run(lib: Any, path: Callable[[], Any]) -> tuple[Any, Any, Any]:
        table = lib.tensor(values, dtype=getattr(lib, dtype), requires_grad=True)
        grid = table * 1.0
        (a0, b0, s0), (a1, b1, s1) = first
        x = grid[a0:b0:s0, a1:b1:s1]
        (c0, d0, t0), (c1, d1, t1) = second
        y = {"block": lambda: (table * 2.0)[c0:d0:t0, c1:d1:t1], "number": lambda: 1.5,
             "zero_d": lambda: table[0, 0] * 1.0, "column": lambda: grid[:, 0][:, None] if x.dim() else grid[:, 0],
             "row": lambda: grid[0, c1:d1:t1], "same": lambda: grid[c0:c0 + x.shape[0], c1:c1 + x.shape[1]] * 1.0,
             "transposed": lambda: grid.t()[c0:d0:t0, c1:d1:t1],
             "plain_block": lambda: (table.detach() * 2.0)[c0:d0:t0, c1:d1:t1],  # (views without history)
             "nograd_block": lambda: _under_no_grad(lib, lambda: grid[c0:d0:t0, c1:d1:t1]),
             "plain_zero_d": lambda: (table.detach() * 2.0)[0, 0]}[kind]()
        a, b = (y, x) if swap and kind != "number" else (x, y)
        with path():
            try:
                out = {"add": lambda: a + b, "sub": lambda: a - b, "mul": lambda: a * b, "div": lambda: a / b,
                       "maximum": lambda: lib.maximum(a, b) if isinstance(b, lib.Tensor) else a * b}[op]()
            except RuntimeError as e:
                return e, None, None
        if out.numel():
            out.sum().backward()
        return out, table.grad, (tuple(out.shape), out.stride())

    out, grad, geometry = run(jitgrad, fused_only)
    slow, slow_grad, _ = run(jitgrad, general)
    expected, torch_grad, torch_geometry = run(torch, contextlib.nullcontext)
    if isinstance(out, Exception) or isinstance(slow, Exception):
        assert type(out) is type(slow) and str(out) == str(slow)
        assert isinstance(expected, Exception)
        return
    _same_tensor(out, slow)
    assert geometry == torch_geometry
    np.testing.assert_allclose(out.detach().numpy(), expected.detach().numpy(), rtol=1e-6)
    assert (grad is None) == (slow_grad is None) == (torch_grad is None)
    if grad is not None:
        assert grad.detach().numpy().tobytes() == slow_grad.detach().numpy().tobytes()
        np.testing.assert_allclose(grad.detach().numpy(), torch_grad.detach().numpy(), rtol=1e-6)


# -- quiet calls (``_quiet.QUIET_RUN``) ------------------------------------------------------
@contextlib.contextmanager
def _another_thread_in_the_quiet_context() -> Iterator[None]:
    """Another thread is inside ``QUIET_RUN``'s context for the block."""
    import threading

    from jitgrad import _quiet

    inside, release = threading.Event(), threading.Event()

    def hold() -> None:
        inside.set()
        release.wait(10)

    thread = threading.Thread(target=lambda: _quiet.QUIET_RUN(hold))
    thread.start()
    try:
        assert inside.wait(10)
        yield
    finally:
        release.set()
        thread.join()


def test_calls_are_quiet_when_another_thread_is_in_the_quiet_context() -> None:
    """``QUIET_RUN``'s context is entered by one thread at a time: while another thread is
    inside it, an op quiets its call with ``quiet_call`` instead, as silent and as exact."""
    from jitgrad import _quiet

    x = jitgrad.tensor([1e300, -1e300, 0.0, 2.0], dtype=jitgrad.float64, requires_grad=True)
    with _another_thread_in_the_quiet_context():
        with pytest.raises(RuntimeError):
            _quiet.QUIET_RUN(np.add, 1.0, 1.0)
        with np.errstate(all="raise"):
            outs = _overflowing_ops(x)
    with np.errstate(all="ignore"), general():
        slow = _overflowing_ops(x)
    for out, expected in zip(outs, slow):
        _same_tensor(out, expected)


def _overflowing_ops(x: Tensor) -> list[Tensor]:
    """Fused ops of each template and kind of forward that overflow, divide by zero or make
    nans on ``x`` (of four elements)."""
    big = x * 1e300
    return [x * x, x / 0.0, x - x * 2.0, 0.0 / x[2:], (x * 1e10).exp(), big.sum(), (x * 10.0).mean(),
            big ** 3.0, big ** 0.5, (-big).sigmoid(), big.reshape(2, 2).sum(1), big.reshape(2, 2).mean(0),
            (x * 1e10).softmax(0), big.log_softmax(0), big.maximum(-big), x.atan2(x * 0.0), big.clamp(-1e308, 0.5)]


def _quiet_sites() -> list[Callable[[], Any]]:
    """An op through each site that quiets its NumPy calls with ``QUIET_RUN`` outside
    ``fused.py``/``operands.py``, on operands that overflow, divide by zero or make nans."""
    from jitgrad.ops import declare, pointwise, reduction

    def lean_sum(make: Callable[[], Any]) -> Any:  # (the fused total declined: ``_lean_total``)
        with mock.patch.object(reduction, "_fused_sum", lambda t: None), \
                mock.patch.object(reduction, "_fused_mean", lambda t: None):
            return make()

    def grad_of(make: Callable[[Any], Any]) -> Any:
        leaf = jitgrad.tensor([3.0, -1e300, 0.5, 2.0], dtype=jitgrad.float64, requires_grad=True)
        make(leaf).backward()
        return leaf.grad

    big = jitgrad.tensor([1e300, -1e300, 0.5, 2.0], dtype=jitgrad.float64, requires_grad=True)
    x = big * 1.0
    inf = jitgrad.tensor([float("inf"), 1.0, 2.0, float("-inf")], dtype=jitgrad.float64, requires_grad=True) * 1.0
    none = jitgrad.full((4,), float("-inf"), dtype=jitgrad.float64, requires_grad=True) * 1.0
    table = jitgrad.tensor([[float("-inf"), 1.0], [float("-inf"), 2.0]], dtype=jitgrad.float64, requires_grad=True)
    return [
        lambda: lean_sum(lambda: (x * 1e10).sum()), lambda: lean_sum(lambda: (x * 1e10).mean()),
        lambda: (x * 1e10).reshape(2, 2).sum(1), lambda: jitgrad.logsumexp(none, 0),
        lambda: jitgrad.logsumexp(none, 0, keepdim=True), lambda: jitgrad.logsumexp(table * 1.0, 0),
        lambda: jitgrad.logsumexp(table * 1.0, 1), lambda: jitgrad.softmax(inf, 0),
        lambda: jitgrad.log_softmax(inf, 0), lambda: jitgrad.softmax(table * 1.0, 1),
        lambda: jitgrad.log_softmax(table * 1.0, 0), lambda: declare.call_pointwise(pointwise.EXPM1, (x,)),
        lambda: declare.call_pointwise(pointwise.LOG1P, (-x,)), lambda: jitgrad.sigmoid(-x),
        lambda: jitgrad.clamp(x * 1e10, -1.0, 1.0), lambda: x ** 2.0, lambda: x ** 0.5, lambda: x ** -1.0,
        lambda: grad_of(lambda leaf: (leaf * 1e300 * 1e300).sum()),  # (a broadcast gradient times a number)
        lambda: grad_of(lambda leaf: ((leaf * 1e300).exp() * 1e300).sum()),  # (into the owned buffer)
        # (slices' gradients added into the buffer, inf + -inf: ``regions.add_region``'s row)
        lambda: grad_of(lambda leaf: (leaf[1:] * big[1:] * 1e300).sum() + (leaf[:-1] * -big[:-1] * 1e300).sum()),
    ]


def test_quiet_sites_under_raise_and_while_another_thread_is_in_the_context() -> None:
    """Each op quieting its calls with ``QUIET_RUN`` (reductions, declared ops, clamp, pow,
    ``MulBackward0._by_number``, the engine's add of a slice's gradient) is silent under
    ``np.errstate(all="raise")``, directly and through ``quiet_call`` while another thread
    is inside the context, with the general path's bits; the caller's error state is left
    as it was, and the context holds NumPy's error state only."""
    from jitgrad import _quiet

    with np.errstate(all="ignore"), general():
        expected = [make() for make in _quiet_sites()]
    with np.errstate(all="raise"):
        direct = [make() for make in _quiet_sites()]
        assert np.geterr()["over"] == "raise"
    with _another_thread_in_the_quiet_context(), np.errstate(all="raise"):
        held = [make() for make in _quiet_sites()]
        assert np.geterr()["invalid"] == "raise"
    for outs in (direct, held):
        for out, slow in zip(outs, expected):
            assert out.dtype == slow.dtype and out.shape == slow.shape and out.stride() == slow.stride()
            assert out.detach().numpy().tobytes() == slow.detach().numpy().tobytes()
    assert list(_quiet._QUIET_CONTEXT.keys()) == [_quiet.QUIET]


def test_ops_in_threads_that_release_the_gil() -> None:
    """Long NumPy loops release the GIL: threads calling fused ops at once get the same
    values as one thread (one of them in ``QUIET_RUN``'s context, the others beside it)."""
    import threading

    a = jitgrad.rand(200_000, dtype=jitgrad.float64)
    b = jitgrad.rand(200_000, dtype=jitgrad.float64) + 1.0
    expected = ((a * b - a) / b).exp().sum().item()
    results: list[Any] = []

    def work() -> None:
        try:
            with np.errstate(all="raise"):
                for _ in range(20):
                    results.append(((a * b - a) / b).exp().sum().item())
        except Exception as e:  # (reported below)
            results.append(e)

    threads = [threading.Thread(target=work) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [expected] * 60


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("op", ["add", "sub", "mul", "div"])
def test_one_element_operands_as_0d_views_give_the_general_paths_bits(op: str, dtype: str) -> None:
    """A one-element operand (0-d, or (1,) with a 1-D tensor) goes to NumPy as a 0-d view:
    bit for bit the general path's result, nans of either payload and sign included (which
    nan a + b returns depends on the operands' order in the machine code), both ways round,
    and the gradients too."""
    np_dtype = np.dtype(dtype)
    bits = np.uint64 if np_dtype.itemsize == 8 else np.uint32
    quiet = 0x7FF8000000000000 if np_dtype.itemsize == 8 else 0x7FC00000
    sign = 0x8000000000000000 if np_dtype.itemsize == 8 else 0x80000000
    nans = np.array([quiet | 5, quiet | 7 | sign, quiet], dtype=bits).view(np_dtype)
    values = np.concatenate([nans, np.array([np.inf, -np.inf, 0.0, -0.0, 1.5, -2.5, 3e38], dtype=np_dtype)])
    make = OPS[op]
    with np.errstate(all="ignore"):
        for one in values:
            for shape in ((), (1,)):
                for swap in (False, True):
                    results = []
                    for path in (fused_only, general):
                        x = jitgrad.from_numpy(values.copy()).requires_grad_()
                        e = jitgrad.from_numpy(np.full(shape, one, dtype=np_dtype)).requires_grad_()
                        a, b = (e, x * 1.0) if swap else (x * 1.0, e)
                        with path():
                            out = make(a, b)
                        out.backward(jitgrad.ones_like(out))
                        results.append((out, x.grad.detach().numpy().tobytes(), e.grad.detach().numpy().tobytes()))
                    (out, gx, ge), (slow, sgx, sge) = results
                    _same_tensor(out, slow)
                    assert out.detach().numpy().tobytes() == slow.detach().numpy().tobytes()
                    assert (gx, ge) == (sgx, sge)


# -- ops of one tensor with numbers, non-ufunc declared forwards, one-dim reductions -------
@pytest.mark.parametrize("call", [
    "x ** 2", "x ** 3.0", "x ** 0.5", "x ** -1", "x ** -2", "x ** 0", "x ** 1", "x ** -0.5", "x ** 2.5",
    "x ** True", "x ** 2**40", "x ** nan", "x ** (-2**31 + 1)",
    "x.clamp(-1.0, 2)", "x.clamp(min=0)", "x.clamp(max=0.25)", "x.clamp(2.0, -1.0)", "x.clamp(None, None)",
    "x.clamp(nan)", "x.clamp(-2**24, 2**24)", "x.clamp(2**25)", "x.clamp(1e39)", "x.clamp(True)",
    "x.clamp(float('inf'))", "x.clamp(min=x)", "x.clip(0.5)", "x.clamp_min(0.5)",
    "x.sum(0)", "x.sum(-1)", "x.sum(1)", "x.sum(2)", "x.sum(-3)", "x.sum(0, True)", "x.sum(1, keepdim=1)",
    "x.sum([0])", "x.sum(0, dtype=jitgrad.float64)", "x.mean(0)", "x.mean(-1, True)", "x.mean(3)",
    "x.sigmoid()", "jitgrad.relu(x)", "x.tanh()", "jitgrad.nn.functional.silu(x)",
    "x.softmax(0)", "x.softmax(-1)", "jitgrad.log_softmax(x, 0)", "x.log_softmax(-1)", "x.softmax(1)",
    "x.softmax(True)", "x.softmax(0, dtype=jitgrad.float64)", "x.log_softmax(1)", "x.log_softmax(0.0)",
])
@pytest.mark.parametrize("shape", [(4,), (2, 3), (2, 1, 3), ()])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_number_ops_and_dim_reductions_build_what_the_general_path_builds(call: str, shape: Any, dtype: str) -> None:
    """Every argument the fused path takes or declines: the same result, node, saved values
    and gradient as the general path, or the same error."""
    results = []
    values = np.linspace(-1.5, 2.0, int(np.prod(shape))).reshape(shape)
    for path in (fused_only, general):
        x = jitgrad.tensor(values, dtype=getattr(jitgrad, dtype), requires_grad=True)
        with path(), np.errstate(all="ignore"):
            try:
                out = eval(call, {"jitgrad": jitgrad, "nan": math.nan}, {"x": x})
            except (RuntimeError, IndexError, TypeError, NotImplementedError) as e:
                out = e
        results.append((out, x))
    _same_results_and_gradients(results)


def _same_results_and_gradients(results: list[tuple[Any, Tensor]]) -> None:
    """Two ``(result or error, leaf)`` runs: the same error, or the same result slot by slot
    and the same gradient of its sum, bit for bit."""
    (out, x), (slow, sx) = results
    if isinstance(out, Exception) or isinstance(slow, Exception):
        assert type(out) is type(slow) and str(out) == str(slow)
        return
    _same_tensor(out, slow)
    if out.requires_grad:
        out.sum().backward()
        slow.sum().backward()
        assert (x.grad is None) == (sx.grad is None)
        if x.grad is not None:
            assert x.grad.detach().numpy().tobytes() == sx.grad.detach().numpy().tobytes()


@pytest.mark.parametrize("call,node", [
    ("x ** 3.0", "PowBackward0"), ("x.pow(2)", "PowBackward0"), ("x.square()", "PowBackward0"),
    ("x ** 0.5", "PowBackward0"), ("x.clamp(-0.5, 1)", "ClampBackward1"), ("x.clamp(min=0)", "ClampBackward1"),
    ("x.sigmoid()", "SigmoidBackward0"), ("x.relu()", "ReluBackward0"), ("x.tanh()", "TanhBackward0"),
    ("m.sum(1)", "SumBackward1"), ("m.mean(0, keepdim=True)", "MeanBackward1"), ("x.sum(0)", "SumBackward1"),
    ("x.mean(-1)", "MeanBackward1"), ("x.softmax(0)", "SoftmaxBackward0"), ("x.log_softmax(-1)", "LogSoftmaxBackward0"),
    ("x.maximum(x.flip(0))", "MaximumBackward0"), ("x.minimum(x)", "MinimumBackward0"),
    ("m.maximum(m[1])", "MaximumBackward0"), ("x.atan2(x * 0.5 + 1.0)", "Atan2Backward0"),
    ("x.logaddexp(x.flip(0))", "LogaddexpBackward0"),
])
def test_fused_number_ops_and_reductions_as_pytorch(call: str, node: str) -> None:
    """Values, gradients, node names and saved fields as PyTorch's."""
    results = []
    for lib in (jitgrad, torch):
        x = lib.tensor([0.5, -1.5, 2.0, 0.0, 3.0, 0.25], dtype=lib.float64, requires_grad=True)
        m = x.reshape(2, 3)
        with np.errstate(all="ignore"):
            out = eval(call, {}, {"x": x, "m": m})
        assert type(out.grad_fn).__name__ == node
        fields = {name: getattr(out.grad_fn, f"_saved_{name}" if lib is torch else name, None)
                  for name in ("exponent", "min", "max")}
        (out * lib.arange(out.numel(), dtype=lib.float64).reshape(out.shape)).sum().backward()
        results.append((out.detach().numpy(), x.grad.detach().numpy().copy(), tuple(out.shape), fields))
    (a, ga, sa, fa), (b, gb, sb, fb) = results
    assert sa == sb
    np.testing.assert_allclose(a, b, rtol=1e-12)
    np.testing.assert_allclose(ga, gb, rtol=1e-12)
    assert fa == fb


@settings(max_examples=budget(150), deadline=None)
@given(st.data())
def test_fused_number_ops_programs_match_the_general_path_and_pytorch(data: st.DataObject) -> None:
    """Chains of the ops of one tensor with numbers, non-ufunc forwards, one-dim reductions
    and softmaxes (on leaves, results, rows): bit for bit the general path's values and
    gradients, and PyTorch's closely."""
    dtype = data.draw(st.sampled_from(["float32", "float64"]))
    steps = data.draw(st.lists(st.tuples(
        st.sampled_from(["pow", "clamp", "clamp_min", "sigmoid", "relu", "tanh", "sum", "mean", "row", "mul",
                         "softmax", "log_softmax"]),
        st.sampled_from([0.5, -2.0, 3, 0, 2, 1.5]), st.integers(-2, 1), st.booleans()), min_size=1, max_size=8))

    def run(lib: Any) -> tuple[Any, Any]:
        x = lib.tensor([[0.5, -1.5, 2.0], [3.0, 0.25, -4.0]], dtype=getattr(lib, dtype), requires_grad=True)
        t = x
        for op, c, dim, keep in steps:
            if t.dim() == 0 and op in ("sum", "mean", "row"):
                continue
            d = dim % t.dim() if t.dim() else 0
            t = {"pow": lambda: (t * 0.5) ** c, "clamp": lambda: t.clamp(-abs(c), abs(c) + 0.5),
                 "clamp_min": lambda: t.clamp(min=c), "sigmoid": lambda: t.sigmoid(), "relu": lambda: t.relu(),
                 "tanh": lambda: t.tanh(), "sum": lambda: t.sum(d, keep), "mean": lambda: t.mean(d, keepdim=keep),
                 "row": lambda: t[-1], "mul": lambda: t * c, "softmax": lambda: t.softmax(d - t.dim() if dim < 0 else d),
                 "log_softmax": lambda: t.log_softmax(-1 if t.dim() else 0)}[op]()
        t.sum().backward()
        return t.detach().numpy().copy(), None if x.grad is None else x.grad.detach().numpy().copy()

    ours, slow, theirs = _three_ways(run)
    assert ours[0].tobytes() == slow[0].tobytes()
    assert (ours[1] is None) == (slow[1] is None)
    if ours[1] is not None:
        assert ours[1].tobytes() == slow[1].tobytes()
    tol = dict(rtol=1e-4, atol=1e-5) if dtype == "float32" else dict(rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(ours[0], theirs[0], **tol)
    if ours[1] is not None:
        np.testing.assert_allclose(ours[1], theirs[1], **tol)


@pytest.mark.parametrize("call", ["x.max()", "x.min()", "x[1:].max()", "x.t().min()", "x[:0].max()"])
@pytest.mark.parametrize("fill", ["values", "nan", "zeros"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("layer", ["fused", "lean"])
def test_lean_max_and_min_of_every_element_as_the_general_path(call: str, fill: str, dtype: str, layer: str) -> None:
    """``max()``/``min()`` of a contiguous float tensor reduce its flat buffer (on the fused
    path, or the lean one behind it): the same result (nan, signed zeros), node and saved
    values as the general path, or its error."""
    values = {"values": np.array([[0.5, -1.5, 2.0], [3.0, 0.25, -4.0]]),
              "nan": np.array([[0.5, np.nan, 2.0], [-np.nan, 0.25, -4.0]]),
              "zeros": np.array([[0.0, -0.0, -0.0], [0.0, -0.0, 0.0]])}[fill]
    from jitgrad.ops import extremes

    results = []
    for path in (contextlib.nullcontext, general):  # (the lean path on, then off)
        x = jitgrad.tensor(values, dtype=getattr(jitgrad, dtype), requires_grad=True)
        fused_max, fused_min = (lambda t: None, lambda t: None) if layer == "lean" else \
            (extremes._fused_max, extremes._fused_min)
        with path(), mock.patch.object(extremes, "fresh_result", wraps=extremes.fresh_result) as lean, \
                mock.patch.multiple(extremes, _fused_max=fused_max, _fused_min=fused_min):
            try:
                out = eval(call, {}, {"x": x})
            except RuntimeError as e:
                out = e
        assert lean.call_count == (layer == "lean" and path is contextlib.nullcontext
                                   and call in ("x.max()", "x.min()", "x[1:].max()"))
        results.append((out, x))
    _same_results_and_gradients(results)


@pytest.mark.parametrize("call", [
    "x > y", "x < 0.5", "x >= 1", "x == x", "x != 2**25", "x <= True", "x > y[0]", "x > 1e39", "x == nan",
    "x[1] > y[0]", "x.t() > y.t()", "x[:, 1:] < 0.25", "x > y.double()", "jitgrad.gt(x, 0.5)", "jitgrad.eq(x, None)",
    "jitgrad.where(x > y, x, y)", "jitgrad.where(x > 0, x, 0.0)", "jitgrad.where(x > 0, x, 2)",
    "jitgrad.where(x > 0, x, 1e39)", "jitgrad.where(x > 0, 1.5, y)", "jitgrad.where(x > 0, x, y[0])",
    "jitgrad.where((x > 0).t(), x.t(), y.t())", "jitgrad.where(x[1] > 0, x[1], y[0])",
    "jitgrad.where(x > 0, x, y.double())", "jitgrad.where(x > 0, x, True)", "x.where(x < y, y)",
    "jitgrad.where(x > 0, x, nan)", "jitgrad.where(x > 0, x, -2**24)",
])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_lean_compare_and_where_build_what_the_general_path_builds(call: str, dtype: str) -> None:
    """Comparisons and ``where`` of flat buffers: the same result, node, saved condition and
    gradients as the general path (or its error), and PyTorch's values."""
    values = np.array([[0.5, -1.5, 2.0], [3.0, 0.25, -4.0]])
    results, theirs = [], None
    for lib, path in ((jitgrad, contextlib.nullcontext), (jitgrad, general), (torch, contextlib.nullcontext)):
        x = lib.tensor(values, dtype=getattr(lib, dtype), requires_grad=True)
        y = lib.tensor(values[::-1].copy() * 0.5, dtype=getattr(lib, dtype), requires_grad=True)
        with path():
            try:
                out = eval(call, {"jitgrad": lib, "nan": math.nan}, {"x": x, "y": y})
            except (RuntimeError, TypeError) as e:
                out = e
        if lib is torch:
            theirs = out
        else:
            results.append((out, x))
    _same_results_and_gradients(results)
    out = results[0][0]
    if not isinstance(out, Exception):
        np.testing.assert_array_equal(out.detach().numpy(), theirs.detach().numpy())


def test_lean_compare_and_where_are_taken_for_flat_buffers() -> None:
    """(Else the test above compares the general path with itself.)"""
    from jitgrad.ops import compare

    x = jitgrad.tensor([0.5, -1.5, 2.0], dtype=jitgrad.float32, requires_grad=True)
    y = (x * 2.0)[1:]
    with mock.patch.object(compare, "new_output", side_effect=AssertionError("general path")):
        for make in (lambda: x > 0.5, lambda: x[1:] <= y, lambda: x == 2, lambda: jitgrad.where(x > 0, x, 0.0),
                     lambda: jitgrad.where(y > 0, y, x[:2]), lambda: x.where(x > 1, -1)):
            make()


@pytest.mark.parametrize("call", [
    "lib.maximum(x, x, alpha=1)", "lib.minimum(x, x, rounding_mode='floor')", "lib.maximum(x, x, 3)",
    "lib.atan2(x, 2.0)", "lib.maximum(x, other=x)", "lib.minimum(input=x, other=x)", "x.maximum(x, alpha=2)",
])
def test_fused_declared_binary_functions_take_arguments_as_pytorch(call: str) -> None:
    """Declared binary functions on ``fused_binary``: an unknown keyword is Python's error (not
    a dunder's NotImplemented), a number PyTorch's."""
    outcomes = []
    for lib in (jitgrad, torch):
        x = lib.tensor([0.5, -1.5, 2.0], dtype=lib.float64, requires_grad=True)
        try:
            outcomes.append(eval(call, {}, {"x": x, "lib": lib}).detach().numpy().tolist())
        except TypeError as e:
            outcomes.append(("TypeError", str(e).split("(")[0]))
    assert outcomes[0] == outcomes[1]


def test_a_one_element_operand_reads_its_current_values() -> None:
    """The fused path keeps the last one-element operand's NumPy view (a stepper's
    ``alpha * lap``): writes into that element, a new buffer for the tensor (``.data =``)
    and another element of the same buffer are all seen, in both operand orders, as in
    PyTorch."""
    for lib in (jitgrad, torch):
        a = lib.tensor(2.0, dtype=lib.float64, requires_grad=True)
        pair = lib.tensor([7.0, 11.0], dtype=lib.float64)
        x = lib.arange(4, dtype=lib.float64)
        got = [(a * x).tolist(), (x * a).tolist()]
        with lib.no_grad():
            a.fill_(3.0)
        got += [(a * x).tolist(), (x * a).tolist()]
        a.data = lib.tensor(5.0, dtype=lib.float64)
        got += [(a * x).tolist(), (x * a).tolist(), (pair[0] * x).tolist(), (pair[1] * x).tolist()]
        (a * x).sum().backward()
        got.append(a.grad.item())
        if lib is jitgrad:
            mine = got
    assert mine == got


def test_the_kept_one_element_view_keeps_no_large_buffer_alive() -> None:
    """An element of a large table used as a one-element operand is not kept (its table
    is freed when the user drops it); a parameter's own small buffer is."""
    import weakref

    from jitgrad.ops import fused_binary

    x = jitgrad.arange(4, dtype=jitgrad.float64)
    table = jitgrad.ones(100, 100, dtype=jitgrad.float64)
    gone = weakref.ref(table._storage.buffer)
    (table[3, 4] * x, x * table[5, 6])
    del table
    assert gone() is None
    alpha = jitgrad.tensor(0.5, dtype=jitgrad.float64)
    alpha * x
    assert fused_binary._LAST_SCALAR[0] is alpha._storage.buffer
