"""NaN and infinity propagate through every op as in PyTorch; empty and 0-d tensors pass
through every op, view and kernel. PyTorch is the oracle for values, shapes and gradients."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import jitgrad
from oracle import error_family

SPECIAL = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -2.5, 1e308, -1e-310, 3.0, np.nan, 0.5])

UNARY = {  # f(lib, x) with x float64
    "neg": lambda L, x: -x, "abs": lambda L, x: x.abs(), "exp": lambda L, x: x.exp(),
    "log": lambda L, x: x.log(), "sqrt": lambda L, x: x.sqrt(), "sin": lambda L, x: x.sin(),
    "cos": lambda L, x: x.cos(), "tanh": lambda L, x: x.tanh(), "sigmoid": lambda L, x: x.sigmoid(),
    "relu": lambda L, x: x.relu(), "reciprocal": lambda L, x: x.reciprocal(),
    "clamp": lambda L, x: x.clamp(-1.0, 1.0), "pow2": lambda L, x: x.pow(2),
    "pow_half": lambda L, x: x.pow(0.5), "add": lambda L, x: x + 1.5,
    "mul": lambda L, x: x * x, "div": lambda L, x: x / (x - 1.0), "sub": lambda L, x: x - x,
    "maximum": lambda L, x: L.maximum(x, x * 0.5), "minimum": lambda L, x: L.minimum(x, x * 0.5),
    "where": lambda L, x: L.where(x > 0, x, x * 2), "eq": lambda L, x: x == x,
    "lt": lambda L, x: x < 1.0, "sum": lambda L, x: x.sum(), "mean": lambda L, x: x.mean(),
    "sum_dim": lambda L, x: x.sum(-1), "amax": lambda L, x: x.amax(-1),
    "amin": lambda L, x: x.amin(-1), "max": lambda L, x: x.max(), "min": lambda L, x: x.min(),
    "softmax": lambda L, x: x.softmax(-1), "log_softmax": lambda L, x: x.log_softmax(-1),
    "logsumexp": lambda L, x: x.logsumexp(-1), "matmul": lambda L, x: x @ x.t(),
    "clone": lambda L, x: x.clone(), "contiguous_t": lambda L, x: x.t().contiguous(),
    "reshape_copy": lambda L, x: x.t().reshape(-1), "cat": lambda L, x: L.cat([x, x], 0),
    "stack": lambda L, x: L.stack([x, x]), "getitem_adv": lambda L, x: x[[1, 0, 1]],
    "bool": lambda L, x: x.bool(), "to_float32": lambda L, x: x.float(),
}
INPLACE = {
    "copy_": lambda L, x: x[1:].copy_(x[:-1].clone()),
    "fill_nan": lambda L, x: x[:, ::2].fill_(float("nan")),
    "fill_inf": lambda L, x: x.t()[1].fill_(float("-inf")),
    "setitem_inf": lambda L, x: x.__setitem__((slice(None), 1), float("inf")),
    "setitem_tensor": lambda L, x: x.__setitem__(0, x[2].clone()),
    "mul_": lambda L, x: x.mul_(float("inf")), "add_": lambda L, x: x[0].add_(x[1]),
    "div_": lambda L, x: x.div_(0.0), "exp_": lambda L, x: x.exp_(), "sqrt_": lambda L, x: x.sqrt_(),
    "index_put_": lambda L, x: x.index_put_((L.tensor([0, 2]),), L.tensor(float("nan"), dtype=L.float64)),
}


def _grid(lib, requires_grad=False):
    return lib.tensor(SPECIAL.reshape(3, 4), dtype=lib.float64, requires_grad=requires_grad)


def _both(fn, make):
    out = []
    for lib in (jitgrad, torch):
        try:
            out.append((fn(lib, make(lib)), None))
        except (IndexError, ValueError, TypeError, RuntimeError) as exc:
            out.append((None, exc))
    return out


def _np(t):
    return np.asarray(t.detach().numpy())


def _assert_same(ours, theirs):
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(_np(ours).astype(np.float64), _np(theirs).astype(np.float64),
                               rtol=1e-12, atol=0, equal_nan=True)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_nan_inf_forward_and_backward(name):
    grads = name not in ("eq", "lt", "bool")
    results = []
    for lib in (jitgrad, torch):
        x = _grid(lib, requires_grad=grads)
        y = UNARY[name](lib, x)
        g = None
        if grads and y.requires_grad:
            (y * 1.0).sum().backward()
            g = _np(x.grad)
        results.append((y, g))
    (y, g), (ty, tg) = results
    _assert_same(y, ty)
    if tg is not None:
        np.testing.assert_allclose(g, tg, rtol=1e-12, equal_nan=True, err_msg="gradient")


@pytest.mark.parametrize("name", sorted(INPLACE))
def test_nan_inf_in_place(name):
    (ours, e1), (theirs, e2) = _both(lambda L, x: (INPLACE[name](L, x), x)[1],
                                     lambda L: _grid(L) * 1.0)
    assert (e1 is None) == (e2 is None), (e1, e2)
    if e1 is None:
        _assert_same(ours, theirs)


SHAPES = [(), (0,), (2, 0, 3), (0, 0), (1,)]


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("name", sorted(set(UNARY) | set(INPLACE) | {"views", "setitem_all"}))
def test_empty_and_zero_dim(name, shape):
    """Every op on 0-d and empty tensors: same result (or same error family) as PyTorch."""
    data = np.arange(float(np.prod(shape))).reshape(shape) + 0.5
    if name == "views":
        def fn(L, x):
            return [x.view(-1), x.reshape(shape), x.unsqueeze(0), x.flatten(), x.expand(2, *shape),
                    x.as_strided(x.shape, x.stride()), x.squeeze(), x[...], x.detach()]
    elif name == "setitem_all":
        def fn(L, x):
            x[...] = 2.0
            x.copy_(x * 3)
            x.fill_(1.0)
            x.zero_()
            return x
    else:
        op = UNARY.get(name) or INPLACE[name]

        def fn(L, x):
            r = op(L, x)
            return x if r is None else r
    results = []
    for lib in (jitgrad, torch):
        leaf = lib.tensor(data, dtype=lib.float64, requires_grad=True)
        x = leaf * 1.0
        try:
            out = fn(lib, x)
        except (IndexError, ValueError, TypeError, RuntimeError) as exc:
            results.append((exc, None, None))
            continue
        outs = out if isinstance(out, list) else [out]
        grad = None
        diff = [o for o in outs if o.requires_grad and o.dtype == lib.float64]
        if diff:
            sum(((o * 1.0).sum() for o in diff), lib.tensor(0.0, dtype=lib.float64)).backward()
            grad = None if leaf.grad is None else _np(leaf.grad)
        results.append((None, outs, grad))
    (e1, o1, g1), (e2, o2, g2) = results
    if e1 is not None or e2 is not None:
        if name == "index_put_" and 0 in shape and e2 is None:
            # PyTorch skips the bounds check when the indexed result is empty; jitgrad checks
            # (index 2 into a dimension of size 2) and raises IndexError, writing nothing.
            assert isinstance(e1, IndexError) and "2" in str(e1), repr(e1)
            return
        assert e1 is not None and e2 is not None, f"jitgrad {e1!r}, torch {e2!r}"
        assert error_family(e1) is error_family(e2), f"jitgrad {e1!r}, torch {e2!r}"
        return
    for a, b in zip(o1, o2):
        _assert_same(a, b)
    assert (g1 is None) == (g2 is None)
    if g1 is not None:
        np.testing.assert_allclose(g1, g2, equal_nan=True)
