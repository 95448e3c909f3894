"""Issue 10's factories against PyTorch: eye, logspace, float arange, linspace in every
float dtype, full with a 0-d fill, new_*, the legacy Tensor() constructor, meshgrid
(values, expand-view strides, gradients), randint and the random *_like."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import jitgrad
from conftest import budget
from grad_oracle import check
from jitgrad.autograd import gradcheck, gradgradcheck
from oracle import assert_same_errors, compare, run

pytestmark = pytest.mark.filterwarnings("ignore:torch.meshgrid")


CASES = {
    "eye": lambda L: L.eye(3),
    "eye_rect": lambda L: L.eye(3, 2),
    "eye_wide_int": lambda L: L.eye(2, 4, dtype=L.int64),
    "eye_bool": lambda L: L.eye(2, 3, dtype=L.bool),
    "eye_half": lambda L: L.eye(2, dtype=L.float16),
    "eye_zero": lambda L: L.eye(0),
    "eye_negative_n": lambda L: L.eye(-1),
    "eye_negative_m": lambda L: L.eye(2, -1),
    "eye_requires_grad": lambda L: L.eye(2, requires_grad=True).requires_grad,
    "logspace": lambda L: L.logspace(0, 2, 3),
    "logspace_base2": lambda L: L.logspace(0, 2, 3, base=2),
    "logspace_int": lambda L: L.logspace(0, 2, 3, dtype=L.int64),
    "logspace_one_step": lambda L: L.logspace(2, 1, 1, dtype=L.int64),
    "logspace_float64_base_half": lambda L: L.logspace(0, 3, 4, base=0.5, dtype=L.float64),
    "logspace_negative_steps": lambda L: L.logspace(0, 1, -1),
    "arange_float_step": lambda L: L.arange(0, 1, 0.3),
    "arange_float_start": lambda L: L.arange(0.5, 3),
    "arange_half": lambda L: L.arange(1, 2.5, dtype=L.float16),
    "arange_int8": lambda L: L.arange(5, dtype=L.int8),
    "arange_int32_float_args": lambda L: L.arange(0.5, 4.5, 1.5, dtype=L.int32),
    "arange_0d_tensor": lambda L: L.arange(L.tensor(3)),
    "arange_0d_float_tensor": lambda L: L.arange(L.tensor(0.5), L.tensor(2.0), L.tensor(0.5)),
    "arange_float64": lambda L: L.arange(-1, 1, 0.25, dtype=L.float64),
    "linspace_half": lambda L: L.linspace(0, 1, 5, dtype=L.float16),
    "linspace_int32": lambda L: L.linspace(0, 10, 4, dtype=L.int32),
    "linspace_0d_tensors": lambda L: L.linspace(L.tensor(0.0), L.tensor(1.0), 3),
    "full_0d_float": lambda L: L.full((2,), L.tensor(1.5)),
    "full_0d_int": lambda L: L.full((2,), L.tensor(2)),
    "full_0d_bool": lambda L: L.full((2,), L.tensor(True)),
    "full_1d_fill": lambda L: L.full((2,), L.tensor([2])),
    "full_int8_overflow": lambda L: L.full((2,), 300, dtype=L.int8),
    "full_int8_float_overflow": lambda L: L.full((2,), 1e10, dtype=L.int8),
    "full_half_overflow": lambda L: L.full((2,), 1e10, dtype=L.float16),
    "full_uint8_negative_int_wraps": lambda L: L.full((2,), -1, dtype=L.uint8),
    "full_uint8_negative_float": lambda L: L.full((2,), -1.5, dtype=L.uint8),
    "full_int8_truncates": lambda L: L.full((2,), 2.7, dtype=L.int8),
    "full_np_float64": lambda L: L.full((2,), np.float64(1.5)),
    "full_np_int32": lambda L: L.full((2,), np.int32(1)),
    "full_like_0d": lambda L: L.full_like(L.zeros(2, 2).t(), L.tensor(2.5)),
    "zeros_size_kw": lambda L: L.zeros(size=(2, 3)),
    "rand_size_kw": lambda L: L.rand(size=(2, 3)).shape,
    "new_tensor_keeps_dtype": lambda L: L.tensor([1, 2]).new_tensor([1.5]),
    "new_tensor_dtype": lambda L: L.tensor([1, 2]).new_tensor([1.5], dtype=L.float64),
    "new_full": lambda L: L.tensor([1.0, 2]).new_full((2,), 3),
    "new_zeros_varargs": lambda L: L.tensor([1.0], dtype=L.float64).new_zeros(2, 3),
    "new_zeros_dtype": lambda L: L.tensor([1.0]).new_zeros(2, dtype=L.int32),
    "new_ones_tuple": lambda L: L.tensor([1.0, 2]).new_ones((2,)),
    "new_empty": lambda L: (L.tensor([1]).new_empty(2).dtype == L.int64, L.tensor([1]).new_empty((2, 3)).shape),
    "new_ones_requires_grad": lambda L: L.zeros(1).new_ones(2, requires_grad=True).requires_grad,
    "legacy_data": lambda L: L.Tensor([1, 2]),
    "legacy_nested": lambda L: L.Tensor([[1, 2], [3, 4]]),
    "legacy_tuple_is_data": lambda L: L.Tensor((2, 3)),
    "legacy_sizes": lambda L: L.Tensor(2, 3).shape,
    "legacy_one_size": lambda L: L.Tensor(3).shape,
    "legacy_Size": lambda L: L.Tensor(L.Size([2, 3])).shape,
    "legacy_empty": lambda L: L.Tensor(),
    "legacy_float_scalar": lambda L: L.Tensor(2.5),
    "legacy_tensor_aliases": lambda L: L.Tensor(L.tensor([1, 2])),
    "legacy_numpy": lambda L: L.Tensor(np.array([1, 2])),
    "legacy_dtype_default": lambda L: L.Tensor(2).dtype == L.float32,
    "randint_dtype": lambda L: L.randint(5, (3,)).dtype == L.int64,
    "randint_float_dtype": lambda L: L.randint(2, 5, (3,), dtype=L.float32).dtype == L.float32,
    "randint_size_kw": lambda L: L.randint(3, size=(2,)).shape,
    "randint_bad_range": lambda L: L.randint(5, 2, (3,)),
    "randint_like_shape": lambda L: L.randint_like(L.zeros(2, 3), 4).shape,
    "tensor_int8_overflow": lambda L: L.tensor([300], dtype=L.int8),
    "tensor_uint8_negative_wraps": lambda L: L.tensor([-255, -1, 3], dtype=L.uint8),
    "tensor_uint8_too_negative": lambda L: L.tensor([-256], dtype=L.uint8),
    "tensor_int32_float_overflow": lambda L: L.tensor([2.5e9], dtype=L.int32),
    "tensor_int32_nan": lambda L: L.tensor(float("nan"), dtype=L.int32),
    "tensor_nested_overflow": lambda L: L.tensor([[1, 300]], dtype=L.uint8),
    "tensor_numpy_wraps": lambda L: L.tensor(np.array([300]), dtype=L.uint8),
    "tensor_half_overflow_is_inf": lambda L: L.tensor([1e10, 2.0**40], dtype=L.float16),
    "tensor_int8_truncates": lambda L: L.tensor([2.7, -2.7], dtype=L.int8),
    "randperm_dtype": lambda L: L.randperm(5, dtype=L.float32).dtype == L.float32,
    "randperm_empty": lambda L: L.randperm(0),
    "randperm_negative": lambda L: L.randperm(-1),
    "empty_strided": lambda L: (L.empty_strided((2, 3), (1, 2)).stride(), L.empty_strided((2, 3), (1, 2)).shape),
    "empty_strided_negative": lambda L: L.empty_strided((2, 3), (1, -2)),
    "empty_strided_empty": lambda L: L.empty_strided((0, 3), (5, 1)).shape,
    "new_sizes": lambda L: L.tensor([1.0]).new(2, 3).shape,
    "new_data_keeps_dtype": lambda L: L.tensor([1]).new([1.5]),
    "new_empty_call": lambda L: L.tensor([1]).new().shape,
    "new_other_dtype_tensor": lambda L: L.tensor([1.0]).new(L.tensor([2, 3])),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_factory_matches_pytorch(name: str) -> None:
    compare(CASES[name])


def test_legacy_constructor_of_a_tensor_shares_its_memory() -> None:
    x = jitgrad.tensor([1.0, 2.0])
    alias = jitgrad.Tensor(x)
    alias.add_(1)  # in place on the alias writes into x, as torch.Tensor(t) does
    assert x.tolist() == [2.0, 3.0] and alias._version == x._version


def test_legacy_constructor_follows_the_default_dtype() -> None:
    jitgrad.set_default_dtype(jitgrad.float64)
    try:
        assert jitgrad.Tensor([1, 2]).dtype == jitgrad.float64 and jitgrad.Tensor(2).dtype == jitgrad.float64
    finally:
        jitgrad.set_default_dtype(jitgrad.float32)
    assert isinstance(jitgrad.Tensor([1]), jitgrad.Tensor)


@settings(max_examples=budget(60))
@given(
    st.floats(-5, 5), st.floats(-5, 5), st.integers(0, 30),
    st.sampled_from([None, "float16", "float32", "float64", "int32", "int64"]),
    st.sampled_from([10.0, 2.0, 0.5, 3.7]),
)
def test_random_logspace_matches_pytorch(start, end, steps, dtype, base) -> None:
    ours = run(jitgrad, lambda L: L.logspace(start, end, steps, base=base, dtype=dtype and getattr(L, dtype)), ())
    theirs = run(torch, lambda L: L.logspace(start, end, steps, base=base, dtype=dtype and getattr(L, dtype)), ())
    if assert_same_errors(ours, theirs):
        return
    a, b = ours.value, theirs.value
    assert tuple(a.shape) == tuple(b.shape) and a.dtype.name == str(b.dtype)[6:]
    if a.dtype.kind == "f":
        rtol = 2e-3 if dtype == "float16" else 1e-5
        np.testing.assert_allclose(a.detach().numpy().astype(float), b.detach().numpy().astype(float), rtol=rtol)
    else:  # float pow, then truncation: allow one unit where a value lands on an integer
        assert np.abs(a.detach().numpy() - b.detach().numpy()).max(initial=0) <= 1 + 1e-6 * np.abs(b.detach().numpy()).max(initial=0)


@settings(max_examples=budget(60))
@given(
    st.integers(-30, 30), st.integers(-30, 30), st.integers(1, 7).flatmap(lambda m: st.sampled_from([m, -m])),
    st.sampled_from([0.1, 0.37, 1.0, 0.25]), st.sampled_from([None, "float16", "float32", "float64"]),
)
def test_random_float_arange_matches_pytorch(start, end, step, scale, dtype) -> None:
    args = (start * scale, end * scale, step * scale)
    ours = run(jitgrad, lambda L: L.arange(*args, dtype=dtype and getattr(L, dtype)), ())
    theirs = run(torch, lambda L: L.arange(*args, dtype=dtype and getattr(L, dtype)), ())
    if assert_same_errors(ours, theirs):
        return
    a, b = ours.value, theirs.value
    assert tuple(a.shape) == tuple(b.shape) and a.dtype.name == str(b.dtype)[6:]
    rtol = 1e-3 if dtype == "float16" else 1e-6
    # (float16: PyTorch's vectorised kernel rounds intermediate values to half, so a value near
    # 0 may be off by a half-ulp of the range's magnitude: arange(4.44, -7.4, -0.37)[12] is 0.0014)
    atol = rtol * max(1.0, *(abs(v) for v in args)) if dtype == "float16" else rtol
    np.testing.assert_allclose(a.detach().numpy().astype(float), b.detach().numpy().astype(float), rtol=rtol, atol=atol)


# -- meshgrid ------------------------------------------------------------------------------------
MESH = {
    "ij": lambda L, a, b: L.meshgrid(a, b, indexing="ij"),
    "xy": lambda L, a, b: L.meshgrid(a, b, indexing="xy"),
    "default": lambda L, a, b: L.meshgrid(a, b),
    "list": lambda L, a, b: L.meshgrid([a, b], indexing="xy"),
    "three_xy": lambda L, a, b: L.meshgrid(a, b, a[:2], indexing="xy"),
    "one": lambda L, a, b: L.meshgrid(a, indexing="xy"),
    "scalar": lambda L, a, b: L.meshgrid(a[0], b, indexing="ij"),
    "mixed_dtypes": lambda L, a, b: L.meshgrid(a, b.long()),
    "two_d": lambda L, a, b: L.meshgrid(a.reshape(1, 3), b),
    "bad_indexing": lambda L, a, b: L.meshgrid(a, b, indexing="yx"),
    "empty": lambda L, a, b: L.meshgrid(),
}


@pytest.mark.parametrize("name", sorted(MESH))
def test_meshgrid_values_and_expand_strides_match_pytorch(name: str) -> None:
    compare(MESH[name], np.array([1.0, 2.0, 3.0]), np.array([-1.0, 4.0]))


@pytest.mark.parametrize("indexing", ["ij", "xy"])
def test_meshgrid_gradients_match_pytorch(indexing: str) -> None:
    def program(L, a, b):
        x, y = L.meshgrid(a, b, indexing=indexing)
        return x * y.sin() + x * x

    check(program, np.array([1.0, 2.0, 3.0]), np.array([-1.0, 4.0]))
    a = jitgrad.tensor([0.5, 1.5, -2.0], dtype=jitgrad.float64, requires_grad=True)
    b = jitgrad.tensor([0.25, 3.0], dtype=jitgrad.float64, requires_grad=True)
    f = lambda a, b: program(jitgrad, a, b)  # noqa: E731
    assert gradcheck(f, (a, b)) and gradgradcheck(f, (a, b))


# -- random *_like and generators ----------------------------------------------------------------
def test_random_like_keep_shape_dtype_and_layout() -> None:
    x = jitgrad.zeros(3, 4, dtype=jitgrad.float64).t()
    for f in (jitgrad.rand_like, jitgrad.randn_like):
        out = f(x)
        assert out.shape == x.shape and out.dtype == jitgrad.float64 and out.stride() == (1, 4)
    r = jitgrad.randint_like(x, 2, 5)
    assert r.dtype == jitgrad.float64 and set(np.unique(r.detach().numpy())) <= {2.0, 3.0, 4.0}
    with pytest.raises(RuntimeError, match="floating"):
        jitgrad.rand_like(jitgrad.zeros(2, dtype=jitgrad.int64))
    h = jitgrad.rand(1000, dtype=jitgrad.float16)
    assert h.dtype == jitgrad.float16 and 0 <= h.min().item() and h.max().item() <= 1


def test_generators_make_random_factories_reproducible() -> None:
    g1, g2 = jitgrad.Generator().manual_seed(7), jitgrad.Generator().manual_seed(7)
    assert jitgrad.randn(5, generator=g1).tolist() == jitgrad.randn(5, generator=g2).tolist()
    assert jitgrad.randint(0, 100, (5,), generator=g1).tolist() == jitgrad.randint(0, 100, (5,), generator=g2).tolist()
    jitgrad.manual_seed(3)
    first = jitgrad.rand(4).tolist()
    jitgrad.manual_seed(3)
    assert jitgrad.rand(4).tolist() == first
    with pytest.raises(TypeError, match="generator"):
        jitgrad.rand(2, generator=np.random.default_rng())
    values = jitgrad.randint(-3, 3, (2000,))
    assert values.min().item() == -3 and values.max().item() == 2


def test_randperm_is_a_permutation_and_seeded() -> None:
    g = jitgrad.Generator().manual_seed(1)
    p = jitgrad.randperm(50, generator=g)
    assert sorted(p.tolist()) == list(range(50)) and p.dtype == jitgrad.int64
    assert p.tolist() == jitgrad.randperm(50, generator=jitgrad.Generator().manual_seed(1)).tolist()
