"""``bincount``, ``histc`` and ``Tensor.type`` against PyTorch: values, dtypes, errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import jitgrad
from conftest import budget
from grad_oracle import check_error


def _same(ours, theirs):
    assert ours.dtype.name == str(theirs.dtype)[6:]
    np.testing.assert_array_equal(ours.detach().numpy(), theirs.detach().numpy())


@pytest.mark.parametrize("values,kwargs", [
    ([0, 2, 2, 5], {}), ([], {"minlength": 3}), ([1, 1], {"minlength": 5}), ([3], {"minlength": 1}),
])
def test_bincount_matches_torch(values, kwargs):
    _same(jitgrad.bincount(jitgrad.tensor(values, dtype=jitgrad.int64), **kwargs),
          torch.bincount(torch.tensor(values, dtype=torch.int64), **kwargs))
    _same(jitgrad.tensor(values, dtype=jitgrad.int64).bincount(**kwargs),
          torch.tensor(values, dtype=torch.int64).bincount(**kwargs))


@pytest.mark.parametrize("wdtype", ["float32", "float64", "int64"])
def test_bincount_weights_dtype_as_torch(wdtype):
    x, w = [0, 2, 2, 1], [0.5, 1.0, 2.25, -3.0]
    _same(jitgrad.bincount(jitgrad.tensor(x), jitgrad.tensor(w).to(getattr(jitgrad, wdtype)), minlength=5),
          torch.bincount(torch.tensor(x), torch.tensor(w).to(getattr(torch, wdtype)), minlength=5))


@pytest.mark.parametrize("program", [
    lambda lib: lib.bincount(lib.tensor([-1, 2])),
    lambda lib: lib.bincount(lib.tensor([1.0])),
    lambda lib: lib.bincount(lib.tensor([[1]])),
    lambda lib: lib.bincount(lib.tensor([1]), minlength=-1),
    lambda lib: lib.bincount(lib.tensor([1, 2]), weights=lib.tensor([1.0])),
    lambda lib: lib.bincount([1, 2]),
])
def test_bincount_errors_as_torch(program):
    assert "bincount" in str(check_error(program))


@pytest.mark.parametrize("values,kwargs", [
    ([1.0, 2.0, 1.0, 4.0], {"bins": 4}),
    ([1.0, 2.0, 1.0, 4.0], {"bins": 4, "min": 0, "max": 3}),
    ([1.0, 1.0], {"bins": 2}),
    ([0.0, 1.0, float("nan")], {"bins": 2, "min": 0, "max": 1}),
    ([], {"bins": 3}),
    ([0.1, 0.2, 0.3, 0.7, 0.9, 1.0], {}),
])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_histc_matches_torch(values, kwargs, dtype):
    _same(jitgrad.histc(jitgrad.tensor(values, dtype=getattr(jitgrad, dtype)), **kwargs),
          torch.histc(torch.tensor(values, dtype=getattr(torch, dtype)), **kwargs))
    _same(jitgrad.tensor(values, dtype=getattr(jitgrad, dtype)).histc(**kwargs),
          torch.tensor(values, dtype=getattr(torch, dtype)).histc(**kwargs))


@settings(max_examples=budget(40), deadline=None)
@given(st.lists(st.floats(-5, 5, allow_nan=False), max_size=30), st.integers(1, 12),
       st.sampled_from([(0.0, 0.0), (-1.0, 1.0), (-2.5, 4.0)]))
def test_histc_hypothesis(values, bins, bounds):
    lo, hi = bounds
    _same(jitgrad.histc(jitgrad.tensor(values, dtype=jitgrad.float64), bins, lo, hi),
          torch.histc(torch.tensor(values, dtype=torch.float64), bins, lo, hi))


def test_histc_not_differentiable_as_torch():
    x = jitgrad.tensor([1.0, 2.0], requires_grad=True)
    assert not jitgrad.histc(x, bins=3).requires_grad


@pytest.mark.parametrize("program", [
    lambda lib: lib.histc(lib.tensor([1, 2]), bins=3),
    lambda lib: lib.histc(lib.tensor([1.0, 2.0]), bins=3, min=3, max=1),
    lambda lib: lib.histc(lib.tensor([1.0, 2.0]), bins=0),
])
def test_histc_errors_as_torch(program):
    assert "hist" in str(check_error(program))


def test_type_matches_torch():
    for lib in (jitgrad, torch):
        t = lib.tensor([1.5, -2.5])
        assert t.type() == "torch.FloatTensor"
        assert t.double().type() == "torch.DoubleTensor" and lib.tensor([1]).type() == "torch.LongTensor"
        assert t.type(lib.float64).dtype == lib.float64
        assert t.type("torch.LongTensor").tolist() == [1, -2]
        assert t.type(lib.float32) is t
        with pytest.raises(ValueError):
            t.type("torch.NoSuchTensor")
    x = jitgrad.tensor([1.5], dtype=jitgrad.float32, requires_grad=True)
    y = x.type(jitgrad.float64)
    y.sum().backward()
    assert x.grad.tolist() == [1.0]
