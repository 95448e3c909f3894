"""The order in which the engine runs nodes: PyTorch's ready queue (the latest sequence
number first), node for node, with and without hooks. ``GraphTask.send`` returns the next
node to run instead of queueing it when the queue would give it back at once; these tests
compare the order with PyTorch's and with a plain priority queue simulated over the graph."""

from __future__ import annotations

import heapq
import itertools
from typing import Any

import numpy as np
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import jitgrad
from conftest import budget
from jitgrad.autograd import engine
from jitgrad.autograd.graph import AccumulateGrad

N = 6


def _program(lib: Any, steps: list[tuple[int, int, int]], leaves: list[np.ndarray]) -> tuple[Any, list[Any]]:
    """A DAG with fan-outs: each step combines two earlier values (or a view of one); the
    result is the sum of every value made."""
    xs = [lib.tensor(a, dtype=lib.float64, requires_grad=True) for a in leaves]
    pool = list(xs)
    for op, i, j in steps:
        a, b = pool[i % len(pool)], pool[j % len(pool)]
        if op == 0:
            pool.append(a + b)
        elif op == 1:
            pool.append(a * b)
        elif op == 2:
            pool.append(a - 2 * b)
        elif op == 3:
            pool.append(lib.cat([a[1:], b[:1]]))
        else:
            c = a * 1.5
            c[1:-1] += b[2:] - b[:-2]  # a write through a view: CopySlices
            pool.append(c)
    total = pool[len(xs)]
    for t in pool[len(xs) + 1:]:
        total = total + t
    return total.sum(), xs


def _nodes(root: Any) -> list[Any]:
    seen: dict[Any, None] = {}
    stack = [root]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen[node] = None
        stack.extend(nxt for nxt, _ in node.next_functions)
    return list(seen)


def _ran(lib: Any, steps: list[tuple[int, int, int]], leaves: list[np.ndarray]) -> list[str]:
    """The names of the nodes (not AccumulateGrad) in the order backward ran them, seen by
    pre-hooks."""
    loss, _ = _program(lib, steps, leaves)
    order: list[str] = []
    for node in _nodes(loss.grad_fn):
        if "AccumulateGrad" not in node.name():
            node.register_prehook(lambda g, name=node.name(): order.append(name))
    loss.backward()
    return order


def _evaluated(loss: Any) -> list[Any]:
    """Every node (AccumulateGrads too) in the order ``loss.backward()`` ran them."""
    order: list[Any] = []
    ran = engine.GraphTask.evaluate

    def recorded(self: Any, node: Any) -> Any:
        order.append(node)
        return ran(self, node)

    engine.GraphTask.evaluate = recorded  # type: ignore[method-assign]
    try:
        loss.backward()
    finally:
        engine.GraphTask.evaluate = ran  # type: ignore[method-assign]
    return order


def _queue_order(root: Any) -> list[Any]:
    """A plain priority queue over the graph: (-sequence_nr, readiness order)."""
    deps: dict[Any, int] = {}
    for node in _nodes(root):
        for nxt, _ in node.next_functions:
            if nxt is not None:
                deps[nxt] = deps.get(nxt, 0) + 1
    count = itertools.count()
    ready = [(-root.sequence_nr, next(count), root)]
    order = []
    while ready:
        node = heapq.heappop(ready)[2]
        order.append(node)
        for nxt, _ in node.next_functions:
            if nxt is not None:
                deps[nxt] -= 1
                if deps[nxt] == 0:
                    heapq.heappush(ready, (-nxt.sequence_nr, next(count), nxt))
    return order


STEPS = st.lists(st.tuples(st.integers(0, 4), st.integers(0, 50), st.integers(0, 50)), min_size=1, max_size=12)


@settings(max_examples=budget(150), deadline=None)
@given(steps=STEPS, seed=st.integers(0, 2**16))
def test_order_is_pytorchs_and_the_queues(steps: list[tuple[int, int, int]], seed: int) -> None:
    rng = np.random.default_rng(seed)
    leaves = [rng.standard_normal(N) for _ in range(3)]
    loss, _ = _program(jitgrad, steps, leaves)
    queued = _queue_order(loss.grad_fn)  # (ties: the AccumulateGrads, in readiness order)
    ran = _evaluated(loss)
    assert ran == queued
    names = [n.name() for n in ran if n.__class__ is not AccumulateGrad]
    assert names == _ran(jitgrad, steps, leaves)  # (hooks take the engine's other branch)
    assert names == _ran(torch, steps, leaves)


def test_stepper_order() -> None:
    """The heat stepper's graph (fan-outs every step, writes through views)."""
    def run(lib: Any, hooks: bool) -> list[str]:
        u0 = lib.tensor(np.linspace(0.0, 1.0, 8), dtype=lib.float64, requires_grad=True)
        alpha = lib.tensor(0.2, dtype=lib.float64, requires_grad=True)
        u = lib.zeros(10, dtype=lib.float64)
        u[1:-1] = u0
        for _ in range(4):
            u[1:-1] += alpha * (u[2:] - 2 * u[1:-1] + u[:-2])
        loss = (u * u).sum()
        order: list[str] = []
        nodes = _nodes(loss.grad_fn)
        for node in nodes:
            if "AccumulateGrad" not in node.name():
                node.register_prehook(lambda g, name=node.name(): order.append(name))
        loss.backward()
        return order

    ours = run(jitgrad, True)
    assert ours == run(torch, True)
    assert len(ours) == 1 + 1 + 4 * 10 + 1  # the sum, the square, 10 per step, u[1:-1] = u0
