"""Nodes store their edges as ``_next`` (the nodes) and ``_nrs`` (the input numbers, one
shared tuple when all are 0); ``next_functions`` is built from them on each access, as
PyTorch builds it, and is read-only there too. Every path that makes nodes (the general
``record``, the fused arithmetic, views, writes through views, ``stack``/``cat``, ``where``,
custom Functions) keeps the two tuples in step, checked against PyTorch's graphs."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import jitgrad
from conftest import budget
from jitgrad.autograd.node import ZERO_NRS, Node


def _walk(t: Any) -> list[Any]:
    """Every node reachable from ``t``'s (through ``next_functions``), in a fixed order."""
    out, seen, stack = [], set(), [t.grad_fn]
    while stack:
        fn = stack.pop()
        if fn is None or fn in seen:
            continue
        seen.add(fn)
        out.append(fn)
        stack.extend(nxt for nxt, _ in reversed(fn.next_functions))
    return out


def _graph(t: Any) -> list[Any]:
    """Every node reachable from ``t``'s with its edges by name and number."""
    return [(fn.name(), [(None if nxt is None else nxt.name(), nr) for nxt, nr in fn.next_functions])
            for fn in _walk(t)]


def _nodes(t: Any) -> list[Node]:
    seen: dict[Node, None] = {}
    stack = [t.grad_fn]
    while stack:
        fn = stack.pop()
        if fn is None or fn in seen:
            continue
        seen[fn] = None
        stack.extend(fn._next)
        if getattr(fn, "fn", None) is not None:  # (CopySlices: the write's node)
            stack.append(fn.fn)
    return list(seen)


def _check_storage(t: Any) -> None:
    for fn in _nodes(t):
        assert type(fn._next) is tuple and type(fn._nrs) is tuple
        assert len(fn._next) == len(fn._nrs), fn.name()
        if len(fn._nrs) < len(ZERO_NRS) and not any(fn._nrs):
            assert fn._nrs is ZERO_NRS[len(fn._nrs)], fn.name()  # (shared: no object per node)
        assert all(n is None or isinstance(n, Node) for n in fn._next)
        # inline: one or two edges in the node's slots (no tuple per node), more in ``_nx``
        n = len(fn._nrs)
        if n > 2:
            assert type(fn._nx) is tuple and fn._nx == fn._next, fn.name()
        elif n:
            assert fn._n0 is fn._next[0] and (n == 1 or fn._n1 is fn._next[1]), fn.name()
            assert getattr(fn, "_nx", None) is None, fn.name()


def _unbound(lib: Any) -> Any:
    x = lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64, requires_grad=True)
    a, b, c = (x * 1.0).unbind()
    return a * c - b  # (edges to outputs 0, 2 and 1 of one node)


def _written_rows(lib: Any) -> Any:
    x = lib.arange(6, dtype=lib.float64, requires_grad=True)
    buf = lib.zeros(4, 6, dtype=lib.float64)
    for i in range(4):
        buf[i] = x * (i + 1)
        buf[i, 1:] += x[:-1]
    return buf.sum(0)


def _stepper(lib: Any) -> Any:
    u = lib.zeros(10, dtype=lib.float64, requires_grad=True) * 1.0
    al = lib.tensor(0.3, dtype=lib.float64, requires_grad=True)
    u[4] = al
    for _ in range(3):
        u[1:-1] += al * (u[2:] - 2 * u[1:-1] + u[:-2])
    return u


def _joins_and_where(lib: Any) -> Any:
    x = lib.tensor([1.0, -2.0, 3.0], dtype=lib.float64, requires_grad=True)
    parts = x.split([1, 2])
    s = lib.stack([parts[0].sum(), parts[1].sum(), x[2]])
    c = lib.cat([parts[1], s])
    return lib.where(c > 0, c, x.sum() * 2)


def _where_of_a_second_output(lib: Any) -> Any:
    x = lib.tensor([[3.0, -1.0], [2.0, 5.0]], dtype=lib.float64, requires_grad=True)
    low, high = lib.aminmax(x * 1.0, dim=0)  # (``high`` is output 1 of one node, not a view)
    return lib.where(high > 2.5, high, low) + lib.where(low < 0, low * 2, high)


def _max_and_sort(lib: Any) -> Any:
    x = lib.tensor([[3.0, 1.0], [2.0, 5.0]], dtype=lib.float64, requires_grad=True)
    values, _ = lib.max(x * 1.0, 1)
    ordered, _ = lib.sort(x.flatten())
    return values * ordered[1:3] + ordered[0]


def _custom_function(lib: Any) -> Any:
    class Twice(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            return a * 2, b * 3

        @staticmethod
        def backward(ctx, ga, gb):
            return ga * 2, gb * 3

    x = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
    p, q = Twice.apply(x * 1.0, x[0])
    return q * p


PROGRAMS: list[Callable[[Any], Any]] = [_unbound, _written_rows, _stepper, _joins_and_where,
                                        _where_of_a_second_output, _max_and_sort, _custom_function]


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.__name__.strip("_"))
def test_next_functions_are_pytorchs(program: Callable[[Any], Any]) -> None:
    ours, theirs = program(jitgrad), program(torch)
    assert _graph(ours) == _graph(theirs)
    _check_storage(ours)
    (g,) = jitgrad.autograd.grad(ours.sum(), [p for p in _leaves(ours)][:1])
    (h,) = torch.autograd.grad(theirs.sum(), [p for p in _leaves(theirs)][:1])
    np.testing.assert_allclose(g.detach().numpy(), h.detach().numpy(), rtol=1e-12, atol=1e-12)


def _leaves(t: Any) -> list[Any]:
    return [fn.variable for fn in _walk(t) if hasattr(fn, "variable")]


def test_next_functions_is_built_per_access_and_read_only_as_in_pytorch() -> None:
    for lib in (jitgrad, torch):
        y = lib.ones(2, requires_grad=True) * 2
        fn = y.grad_fn
        assert fn.next_functions == fn.next_functions and fn.next_functions is not fn.next_functions
        with pytest.raises(AttributeError, match="attribute 'next_functions' of 'MulBackward0' objects is not writable"):
            fn.next_functions = ()
        assert fn.next_functions[0][0] is not None  # (unchanged)


@settings(max_examples=budget(60), deadline=None)
@given(steps=st.lists(st.tuples(st.sampled_from(["mul", "sub_view", "iadd_view", "set_row", "unbind", "stack",
                                                 "where", "sin", "sum"]),
                                st.integers(0, 3)), min_size=1, max_size=10))
def test_random_programs_keep_edges_in_step_and_as_pytorch(steps: list[tuple[str, int]]) -> None:
    """Programs of fused arithmetic, views, writes through views, multi-output nodes, joins:
    each node's ``_next``/``_nrs`` in step (and shared when all zero) and the graph PyTorch's."""
    graphs = []
    for lib in (jitgrad, torch):
        x = lib.tensor([0.5, -1.0, 2.0, 1.5], dtype=lib.float64, requires_grad=True)
        buf = lib.zeros(4, 4, dtype=lib.float64) + x
        acc = x * 1.0
        for op, i in steps:
            if op == "mul":
                acc = acc * x[i]
            elif op == "sub_view":
                acc = acc - buf[i]
            elif op == "iadd_view":
                buf[i, 1:] += acc[:3]
            elif op == "set_row":
                buf[i] = acc * 2.0
            elif op == "unbind":
                parts = acc.unbind()
                acc = acc * parts[i] + parts[3 - i]
            elif op == "stack":
                acc = lib.stack([acc[i], acc[0], buf[i][i]]).repeat(2)[:4]
            elif op == "where":
                acc = lib.where(acc > 0, acc, buf[:, i])
            elif op == "sin":
                acc = acc.sin()
            else:
                acc = acc + buf.sum(0)
        out = acc + buf.sum(1)
        graphs.append(_graph(out))
        if lib is jitgrad:
            _check_storage(out)
    assert graphs[0] == graphs[1]


def test_a_multi_dimensional_basic_index_is_one_node() -> None:
    """Deliberate (README): ``x[i, j]`` (and any basic index over several dims) is one view
    node named as PyTorch's last one, where PyTorch chains one node per dim; a DP table's
    cell costs one node. Gradients are PyTorch's."""
    names, grads = [], []
    for lib in (jitgrad, torch):
        x = lib.arange(12, dtype=lib.float64, requires_grad=True)
        r = (x * 1.0).reshape(3, 4)
        cell, block = r[1, 2], r[1:, :2]
        names.append([(t.grad_fn.name(), t.grad_fn.next_functions[0][0].name()) for t in (cell, block)])
        (cell * 3 + (block * block).sum()).backward()
        grads.append(x.grad.tolist())
    assert names == [[("SelectBackward0", "ViewBackward0"), ("SliceBackward0", "ViewBackward0")],
                     [("SelectBackward0", "SelectBackward0"), ("SliceBackward0", "SliceBackward0")]]
    assert grads[0] == grads[1]
