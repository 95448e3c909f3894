"""Memory: after backward (without retain_graph) and once the user drops the output, every
intermediate buffer, saved tensor and node is freed; repeated forward/backward does not grow.
"""
from __future__ import annotations

import gc
import sys
import tracemalloc
import weakref

import numpy as np
import pytest

import jitgrad

N = 200_000  # 1.6 MB per float64 buffer: a leaked intermediate stands far above the noise


def _copy_slices_graph(w):
    """Views and in-place writes on a non-leaf: CopySlices, AsStrided, saved tensors."""
    base = w * 2.0                    # MulBackward0
    v = base[::2]                     # a view
    v.mul_(3.0)                       # CopySlices on base
    u = base.as_strided((N // 4,), (3,), 1)
    u.add_(w[: N // 4])               # CopySlices through as_strided, saves nothing big
    h = base.exp()                    # ExpBackward0 saves its result
    loss = (h * base).sum() + (v * v).sum()   # MulBackward0 saves h, base, v
    return loss, [base, v, u, h]


def _weakrefs(tensors, loss):
    refs = [weakref.ref(t) for t in tensors] + [weakref.ref(t._storage) for t in tensors]
    nodes, stack, seen = [], [loss.grad_fn], set()
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        nodes.append(weakref.ref(node))
        stack.extend(fn for fn, _ in node.next_functions)
    return refs, nodes


def _traced() -> int:
    return tracemalloc.get_traced_memory()[0]


@pytest.mark.parametrize("collect", [False, True], ids=["refcount_only", "after_gc"])
def test_backward_frees_every_intermediate(collect):
    w = jitgrad.tensor(np.linspace(-1, 1, N), dtype=jitgrad.float64, requires_grad=True)
    (_copy_slices_graph(w)[0]).backward()  # warm up: kernels compiled, w.grad allocated
    gc.collect()
    tracemalloc.start()
    try:
        start = _traced()
        loss, tensors = _copy_slices_graph(w)
        refs, nodes = _weakrefs(tensors, loss)
        peak_graph = _traced() - start
        loss.backward()
        del tensors
        after_backward = _traced() - start
        del loss
        if collect:
            gc.collect()
        end = _traced() - start
    finally:
        tracemalloc.stop()
    alive = [r() for r in refs if r() is not None]
    alive_nodes = [type(r()).__name__ for r in nodes if r() is not None]
    assert peak_graph >= 2 * N * 8  # the graph really held its buffers (base, h)
    assert not alive, f"{len(alive)} intermediate tensors/storages still alive: {alive[:4]}"
    # AccumulateGrad nodes live as long as the leaf (PyTorch keeps them via a weak ref too).
    assert not [n for n in alive_nodes if n != "AccumulateGrad"], alive_nodes
    assert end < 64 * 1024, (f"{end} bytes still traced after dropping the output "
                             f"(graph held {peak_graph}, after backward {after_backward})")


def test_backward_alone_releases_saved_tensors():
    """Without retain_graph, backward frees saved tensors even while the user keeps `loss`."""
    w = jitgrad.tensor(np.linspace(-1, 1, N), dtype=jitgrad.float64, requires_grad=True)
    loss, tensors = _copy_slices_graph(w)
    h_storage = weakref.ref(tensors[3]._storage)  # h is saved by MulBackward0 only
    del tensors
    assert h_storage() is not None
    loss.backward()
    assert h_storage() is None, "a saved tensor outlived backward(retain_graph=False)"
    with pytest.raises(RuntimeError, match="second time"):
        loss.backward()


def _step(w):
    base = w * 2.0
    v = base[1::2]
    v.mul_(w[:8])
    loss = (base.exp() * base).sum() + v.sum()
    loss.backward()


def _measure(iterations: int, use_tracemalloc: bool) -> tuple[int, int]:
    w = jitgrad.tensor(np.linspace(0, 1, 16), dtype=jitgrad.float64, requires_grad=True)
    for _ in range(300):
        _step(w)
    if use_tracemalloc:
        tracemalloc.start()
    try:
        gc.collect()
        before = _traced() if use_tracemalloc else sys.getallocatedblocks()
        objects_before = len(gc.get_objects())
        for _ in range(iterations):
            _step(w)
        gc.collect()
        after = _traced() if use_tracemalloc else sys.getallocatedblocks()
        objects_after = len(gc.get_objects())
    finally:
        if use_tracemalloc:
            tracemalloc.stop()
    assert objects_after - objects_before < 50, (objects_before, objects_after)
    return before, after


def test_ten_thousand_iterations_do_not_grow():
    """10,000 forward/backward steps through CopySlices: Python's allocated blocks and the
    number of gc-tracked objects stay flat (tracemalloc version: the slow test below)."""
    before, after = _measure(10_000, use_tracemalloc=False)
    assert after - before < 200, f"allocated blocks grew from {before} to {after}"


@pytest.mark.slow
def test_ten_thousand_iterations_do_not_grow_tracemalloc():
    before, after = _measure(10_000, use_tracemalloc=True)
    assert after - before < 16 * 1024, f"tracemalloc current grew from {before} to {after} bytes"


def test_tracemalloc_growth_small_budget():
    before, after = _measure(500, use_tracemalloc=True)
    assert after - before < 16 * 1024, f"tracemalloc current grew from {before} to {after} bytes"
