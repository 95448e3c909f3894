"""Nodes made and run with less Python: ``CatBackward0``/``SumBackward0`` keep their
defaults on the class, ``MulBackward0`` by a number computes the broadcast-constant
gradient without ``dtype=``; the engine calls ``apply`` directly when
there is no capture, post-hook or nan check; ``clone`` of a contiguous tensor copies its
flat buffer. Results are the general path's, bit for bit, and PyTorch's."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import jitgrad
from conftest import budget
from test_lean_paths import FLOATS

NUMBERS = [1.5, -0.0, 0.0, math.inf, -math.inf, math.nan, 1e300, 1e-320, -3.25, 2, 0, -1]


@settings(max_examples=budget(200), deadline=None)
@given(st.sampled_from(FLOATS), st.lists(st.sampled_from(NUMBERS), min_size=1, max_size=4),
       st.sampled_from([(3,), (2, 2), (1,)]))
def test_gradient_of_products_by_numbers_is_the_general_formula(dtype: str, numbers: list, shape) -> None:
    """``(x * b1 * b2 ...).sum()``: the gradient is the broadcast constant ``1 * b_k * ...``
    computed in the dtype ``mul`` gives (``np.multiply(..., dtype=, casting="unsafe")``)."""
    x = jitgrad.ones(shape, dtype=getattr(jitgrad, dtype), requires_grad=True)
    y = x
    for b in numbers:
        y = y * b
    (g,) = jitgrad.autograd.grad(y.sum(), x)
    expected = np.ones(1, dtype=dtype)
    with np.errstate(all="ignore"):
        for b in reversed(numbers):
            expected = np.multiply(expected, b, dtype=np.dtype(dtype), casting="unsafe")
    assert g.dtype == x.dtype and tuple(g.shape) == shape
    values = g.detach().numpy().reshape(-1)
    np.testing.assert_array_equal(values, np.broadcast_to(expected, values.shape))
    assert np.array_equal(np.signbit(values), np.signbit(np.broadcast_to(expected, values.shape)))
    if dtype != "float16":
        t = torch.ones(shape, dtype=getattr(torch, dtype), requires_grad=True)
        ty = t
        for b in numbers:
            ty = ty * b
        (tg,) = torch.autograd.grad(ty.sum(), t)
        np.testing.assert_array_equal(values, tg.detach().numpy().reshape(-1))


def test_product_by_a_number_keeps_hooks_and_double_backward() -> None:
    x = jitgrad.tensor([1.0, 2.0], dtype=jitgrad.float64, requires_grad=True)
    y = x * 3.0
    seen = []
    y.grad_fn.register_hook(lambda gi, go: seen.append(gi[0].detach().numpy().copy()))
    (g,) = jitgrad.autograd.grad((y * y).sum(), x, create_graph=True)
    np.testing.assert_array_equal(g.detach().numpy(), [18.0, 36.0])
    np.testing.assert_array_equal(seen[0], [18.0, 36.0])
    (gg,) = jitgrad.autograd.grad(g.sum(), x)
    np.testing.assert_array_equal(gg.detach().numpy(), [18.0, 18.0])
    # the number is saved as PyTorch's wrapped 0-dim tensor: a second backward raises
    for lib in (jitgrad, torch):
        x = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        z = x * 2.0
        z.sum().backward()
        with pytest.raises(RuntimeError, match="backward through the graph a second time"):
            z.sum().backward()
        np.testing.assert_array_equal(x.grad.detach().numpy(), [2.0, 2.0])


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_cat_node_defaults_match_pytorch(dim: int) -> None:
    rng = np.random.default_rng(2)
    arrays = [rng.standard_normal((2, 3)), rng.standard_normal((2, 3))]
    ours = [jitgrad.tensor(a, requires_grad=True) for a in arrays]
    theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
    r, t = jitgrad.cat(ours, dim), torch.cat(theirs, dim)
    assert r.grad_fn.name() == t.grad_fn.name() == "CatBackward0"
    assert r.grad_fn.dim == (dim % 2) and r.grad_fn.skipped is None
    up = np.arange(r.numel(), dtype=np.float64).reshape(tuple(r.shape))
    for g, tg in zip(jitgrad.autograd.grad(r, ours, jitgrad.tensor(up)), torch.autograd.grad(t, theirs, torch.tensor(up))):
        np.testing.assert_array_equal(g.detach().numpy(), tg.detach().numpy())


@pytest.mark.parametrize("lean", [True, False])
def test_cat_skips_legacy_empty_inputs_in_backward(lean: bool) -> None:
    """A (0,) input among 1-D ones (the lean path) or 2-D ones (the general path)."""
    shape = (3,) if lean else (2, 3)
    a = jitgrad.ones(shape, dtype=jitgrad.float64, requires_grad=True)
    e = jitgrad.zeros(0, dtype=jitgrad.float64, requires_grad=True)
    r = jitgrad.cat([a, e, a * 2.0])
    assert r.grad_fn.skipped == (False, True, False)
    ga, ge = jitgrad.autograd.grad(r.sum(), [a, e])
    ta = torch.ones(shape, dtype=torch.float64, requires_grad=True)
    te = torch.zeros(0, dtype=torch.float64, requires_grad=True)
    tga, tge = torch.autograd.grad(torch.cat([ta, te, ta * 2.0]).sum(), [ta, te])
    np.testing.assert_array_equal(ga.detach().numpy(), tga.detach().numpy())
    assert tuple(ge.shape) == tuple(tge.shape) == (0,)


@pytest.mark.parametrize("op", ["sum", "mean"])
def test_sum_node_dims_default_to_every_dim(op: str) -> None:
    x = jitgrad.ones(2, 3, dtype=jitgrad.float64, requires_grad=True)
    full = getattr(x, op)()
    assert full.grad_fn.dims == (0, 1) and full.grad_fn.keepdim is False
    kept = getattr(x, op)(1, keepdim=True)
    assert kept.grad_fn.dims == (1,) and kept.grad_fn.keepdim is True
    t = torch.ones(2, 3, dtype=torch.float64, requires_grad=True)
    for r, tr in ((full, getattr(t, op)()), (kept, getattr(t, op)(1, keepdim=True))):
        assert r.grad_fn.name() == tr.grad_fn.name()
        np.testing.assert_array_equal(jitgrad.autograd.grad(r.sum(), x)[0].detach().numpy(),
                                      torch.autograd.grad(tr.sum(), t)[0].detach().numpy())


@settings(max_examples=budget(200), deadline=None)
@given(st.data())
def test_clone_lean_path_is_the_general_path(data: st.DataObject) -> None:
    """A contiguous tensor (a DP table's cell ``cp[i - 1].clone()``) is copied from its flat
    buffer: values, strides, fresh storage, graph and gradient as the general path's."""
    from test_lean_paths import _both, _check_pair, _operand, _same

    dtype = data.draw(st.sampled_from(FLOATS))
    shape = data.draw(st.sampled_from([(), (1,), (3,), (2, 3), (0,), (2, 0)]))
    x = _operand(data, dtype, shape, data.draw(st.booleans()))
    fmt = data.draw(st.sampled_from([None, "preserve_format", "contiguous_format", "channels_last"]))
    lean, slow = _both(lambda: x.clone(memory_format=fmt) if fmt else x.clone())
    _check_pair(lean, slow)
    if isinstance(lean, jitgrad.Tensor):
        assert lean._storage is not x._storage and lean._base is None and lean._version == 0
        if lean.requires_grad:
            up = jitgrad.arange(lean.numel(), dtype=lean.dtype).reshape(tuple(lean.shape))
            _same(jitgrad.autograd.grad(lean, x, up)[0], jitgrad.autograd.grad(slow, x, up)[0])
        if x.numel():  # the clone does not see later writes
            x.detach().add_(1)
            np.testing.assert_array_equal(lean.detach().numpy(), slow.detach().numpy())


def test_clone_of_a_cell_matches_pytorch() -> None:
    ours = jitgrad.tensor([1.0, 2.0, 3.0], dtype=jitgrad.float64, requires_grad=True)
    theirs = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64, requires_grad=True)
    r, t = (ours * 2.0)[1].clone(), (theirs * 2.0)[1].clone()
    assert r.grad_fn.name() == t.grad_fn.name() == "CloneBackward0"
    assert r.stride() == t.stride() and r.item() == t.item()
    np.testing.assert_array_equal(jitgrad.autograd.grad(r, ours)[0].detach().numpy(), torch.autograd.grad(t, theirs)[0].detach().numpy())


@pytest.mark.parametrize("fn, shape", [("cat", (2,)), ("stack", ())])
def test_join_along_the_last_dim_that_is_the_first_matches_pytorch(fn: str, shape: tuple) -> None:
    """``cat(1-D tensors, -1)`` and ``stack(0-d tensors, -1)`` take the lean path (their
    dim -1 is dim 0): nodes, values and gradients as PyTorch's."""
    arrays = [np.random.default_rng(i).standard_normal(shape) for i in range(3)]
    ours = [jitgrad.tensor(a, requires_grad=True) for a in arrays]
    theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
    r = getattr(jitgrad, fn)([o * 2.0 for o in ours], -1)
    t = getattr(torch, fn)([o * 2.0 for o in theirs], -1)
    assert r.grad_fn.name() == t.grad_fn.name() and r.grad_fn.dim == 0
    assert tuple(r.shape) == tuple(t.shape) and r.stride() == t.stride()
    np.testing.assert_array_equal(r.detach().numpy(), t.detach().numpy())
    up = np.arange(r.numel(), dtype=np.float64)
    for g, tg in zip(jitgrad.autograd.grad(r, ours, jitgrad.tensor(up)), torch.autograd.grad(t, theirs, torch.tensor(up))):
        np.testing.assert_array_equal(g.detach().numpy(), tg.detach().numpy())


def test_stack_of_scalars_refuses_what_the_general_path_refuses() -> None:
    a = jitgrad.tensor(1.0, dtype=jitgrad.float64)
    with pytest.raises(TypeError, match="expected Tensor as element 1"):
        jitgrad.stack([a, 1.0])
    with pytest.raises(RuntimeError, match="stack expects each tensor to be equal size"):
        jitgrad.stack([a, jitgrad.ones(2, dtype=jitgrad.float64)])
    mixed = jitgrad.stack([a, jitgrad.tensor(2.0, dtype=jitgrad.float32)])  # promoted, as PyTorch
    assert mixed.dtype == jitgrad.float64 and mixed.tolist() == [1.0, 2.0]


def _owned_products(lib: Any, dtype: str, numbers: list, shape: tuple[int, ...], form: str) -> list[np.ndarray]:
    """Products by numbers whose gradient reaches ``MulBackward0`` as a buffer the engine
    owns: the sum of two gradients (``z + z``, ``z * w + z``), or a region of the base's
    gradient (CopySlices's in-region write, ``mul_`` through a row or a column). Returns
    the leaves' gradients."""
    dt = getattr(lib, dtype)
    rng = np.random.default_rng(len(numbers))
    x = lib.tensor(rng.standard_normal(shape) * 1e3, dtype=dt, requires_grad=True)
    w = lib.tensor(rng.standard_normal(shape), dtype=dt)
    z = x
    for b in numbers:
        z = z * b
    if form == "twice":
        loss = (z + z).sum()
    elif form == "weighted":
        loss = (z * w + z).sum()
    else:  # a write into a view of a non-leaf, then a dense gradient
        y = x * 1.0
        view = y[0] if form == "row" else y.reshape(shape[0], -1)[:, -1]
        for b in numbers:
            view.mul_(b)
        loss = (y * w).sum()
    loss.backward()
    return [x.grad.detach().numpy().copy()]


@settings(max_examples=budget(200), deadline=None)
@given(st.sampled_from(FLOATS), st.lists(st.sampled_from(NUMBERS), min_size=1, max_size=3),
       st.sampled_from([(3,), (2, 3), (1,)]), st.sampled_from(["twice", "weighted", "row", "column"]))
def test_products_by_numbers_into_owned_gradients(dtype: str, numbers: list, shape, form: str) -> None:
    """``MulBackward0._by_number`` scales an owned gradient in place (``lean_data``'s flat
    buffer, or ``numpy()``'s view of a strided region) and hands it on with final flags:
    the gradients are those of the path that allocates (told nothing is owned), bit for bit,
    and PyTorch's."""
    from jitgrad.ops.elementwise import MulBackward0

    owned_path = _owned_products(jitgrad, dtype, numbers, shape, form)
    by_number = MulBackward0.__dict__["_by_number"]
    calls = []

    def allocating(g: Any, b: Any, owned: Any) -> Any:
        calls.append(bool(owned and owned[0]))
        return by_number.__func__(g, b, ())

    MulBackward0._by_number = staticmethod(allocating)
    try:
        general = _owned_products(jitgrad, dtype, numbers, shape, form)
    finally:
        MulBackward0._by_number = by_number
    assert any(calls)  # (the owned path was taken)
    for got, expected in zip(owned_path, general):
        assert got.dtype == expected.dtype
        assert got.reshape(-1).view(np.uint8).tobytes() == expected.reshape(-1).view(np.uint8).tobytes()
    if dtype != "float16":
        for got, expected in zip(owned_path, _owned_products(torch, dtype, numbers, shape, form)):
            np.testing.assert_array_equal(got, expected)
            assert np.array_equal(np.signbit(got), np.signbit(expected))
