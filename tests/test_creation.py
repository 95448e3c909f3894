"""Every factory against PyTorch (shape, dtype, values), dtype inference and rejections of
``tensor()``, ``from_numpy``'s sharing/copying rules, and ``rand``/``randn`` determinism."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import jitgrad
from conftest import budget
from oracle import assert_same_errors, assert_same_tensor, compare, run

pytestmark = pytest.mark.filterwarnings("ignore:To copy construct from a tensor")


# linspace's values are PyTorch's on builds whose kernel contracts to an FMA (Note [Emulated
# FMA]): AVX2/AVX-512 on x86, NEON/SVE on ARM; a DEFAULT-capability build may round otherwise
needs_fma_build = pytest.mark.skipif(
    torch.backends.cpu.get_cpu_capability() == "DEFAULT",
    reason="PyTorch's scalar linspace kernel need not contract to an FMA",
)


def D(L, name):
    return None if name is None else getattr(L, name)


FACTORY_CASES = {
    "zeros_varargs": lambda L: L.zeros(2, 3),
    "zeros_tuple": lambda L: L.zeros((2, 3)),
    "zeros_list": lambda L: L.zeros([2, 3], dtype=L.int64),
    "zeros_size": lambda L: L.zeros(L.zeros(4, 1).shape),
    "zeros_0d": lambda L: L.zeros(()),
    "zeros_empty": lambda L: L.zeros(0, 3, dtype=L.bool),
    "zeros_negative": lambda L: L.zeros(2, -1),
    "zeros_float_size": lambda L: L.zeros(2.5),
    "zeros_mixed_size": lambda L: L.zeros(2, (3,)),
    "ones": lambda L: L.ones(3, dtype=L.float64),
    "ones_bool": lambda L: L.ones((2, 2), dtype=L.bool),
    "full_float": lambda L: L.full((2, 3), 1.5),
    "full_int": lambda L: L.full((2,), 7),
    "full_bool": lambda L: L.full((2,), True),
    "full_dtype": lambda L: L.full([3], 2.9, dtype=L.int64),
    "full_0d": lambda L: L.full((), -1.0, dtype=L.float64),
    "full_string": lambda L: L.full((2,), "a"),
    "empty_shape": lambda L: L.empty(2, 3, dtype=L.int64).shape,
    "empty_dtype": lambda L: L.empty((4,)).dtype == L.float32,
    "arange_int": lambda L: L.arange(5),
    "arange_start_end": lambda L: L.arange(-3, 4),
    "arange_step": lambda L: L.arange(10, 0, -3),
    "arange_float": lambda L: L.arange(0, 1, 0.1),
    "arange_float_end": lambda L: L.arange(2.5),
    "arange_dtype": lambda L: L.arange(5, dtype=L.float64),
    "arange_float_to_int": lambda L: L.arange(1, 4, 0.5, dtype=L.int64),
    "arange_empty": lambda L: L.arange(0),
    "arange_zero_step": lambda L: L.arange(0, 5, 0),
    "arange_wrong_sign": lambda L: L.arange(0, 5, -1),
    "arange_inf": lambda L: L.arange(0, float("inf")),
    "arange_float_step_truncates_to_zero": lambda L: L.arange(0, 5, 0.5, dtype=L.int64),
    "arange_float_ends_truncate": lambda L: L.arange(-2.5, 3.9, dtype=L.int64),
    "arange_big_ints": lambda L: L.arange(2**60, 2**60 + 7, 3),
    "linspace": lambda L: L.linspace(0, 1, 5),
    "linspace_one": lambda L: L.linspace(3, 10, 1),
    "linspace_zero": lambda L: L.linspace(3, 10, 0),
    "linspace_two": lambda L: L.linspace(-1, 1, 2),
    "linspace_int": lambda L: L.linspace(0, 10, 4, dtype=L.int64),
    "linspace_int_truncates_ends": lambda L: L.linspace(0, 1.5, 4, dtype=L.int64),
    "linspace_negative_steps": lambda L: L.linspace(0, 1, -1),
    "linspace_float_steps": lambda L: L.linspace(0, 1, 2.5),
}


@pytest.mark.parametrize("name", sorted(FACTORY_CASES))
def test_factory_matches_pytorch(name: str) -> None:
    compare(FACTORY_CASES[name])


@pytest.mark.parametrize("args", [
    (-2.5, 7.25, 11, "float64"), (5, -5, 7, None), (0.1, 0.7, 13, None), (-1e3, 1e3, 101, "float32"),
])
def test_float_linspace_is_close_to_pytorch(args) -> None:
    # PyTorch's vectorised kernel can round the middle element differently by one ulp
    start, end, steps, dtype = args
    ours = jitgrad.linspace(start, end, steps, dtype=D(jitgrad, dtype))
    theirs = torch.linspace(start, end, steps, dtype=D(torch, dtype))
    assert ours.dtype.name == str(theirs.dtype)[6:] and ours[0].item() == theirs[0].item()
    assert ours[-1].item() == theirs[-1].item()
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-6, atol=1e-6)


def test_jitgrad_dtypes_are_numpy_dtypes() -> None:
    assert (jitgrad.float32, jitgrad.float64, jitgrad.int64, jitgrad.bool) == (
        np.dtype(np.float32), np.dtype(np.float64), np.dtype(np.int64), np.dtype(np.bool_)
    )
    for spelling, expected in [
        (np.float64, jitgrad.float64), ("float32", jitgrad.float32), (np.dtype("int64"), jitgrad.int64),
        (np.bool_, jitgrad.bool), (float, jitgrad.float64), (int, jitgrad.int64), (bool, jitgrad.bool),
    ]:
        assert jitgrad.zeros(2, dtype=spelling).dtype == expected
        assert jitgrad.tensor([1], dtype=spelling).dtype == expected
        assert jitgrad.full((1,), 1, dtype=spelling).dtype == expected
    for bad in (np.uint16, np.complex64, "complex64", torch.float32, "nonsense"):
        with pytest.raises(TypeError, match="zeros: unsupported dtype"):
            jitgrad.zeros(2, dtype=bad)


@settings(max_examples=budget(60))
@given(
    st.integers(-20, 20), st.integers(-20, 20), st.integers(1, 5).flatmap(
        lambda m: st.sampled_from([m, -m])), st.sampled_from([None, "float32", "float64", "int64"]),
    st.booleans(),
)
def test_random_arange_matches_pytorch(start, end, step, dtype, as_float) -> None:
    scale = 0.37 if as_float else 1
    args = (start * scale, end * scale, step * scale)
    ours = run(jitgrad, lambda L: L.arange(*args, dtype=D(L, dtype)), ())
    theirs = run(torch, lambda L: L.arange(*args, dtype=D(L, dtype)), ())
    if assert_same_errors(ours, theirs):
        return
    assert tuple(ours.value.shape) == tuple(theirs.value.shape)
    assert ours.value.dtype.name == str(theirs.value.dtype)[6:]
    if ours.value.dtype.kind == "f":  # PyTorch's kernel may round differently in the last bit
        np.testing.assert_allclose(ours.value.detach().numpy(), theirs.value.detach().numpy(), rtol=1e-6, atol=1e-6)
    else:
        np.testing.assert_array_equal(ours.value.detach().numpy(), theirs.value.detach().numpy())


_ENDS = st.one_of(
    st.integers(-100, 100), st.floats(-100, 100), st.floats(-1e300, 1e300), st.floats(-1e-300, 1e-300),
)


@needs_fma_build
@settings(max_examples=budget(200), deadline=None)
@given(
    _ENDS, _ENDS, st.one_of(st.integers(0, 40), st.integers(40, 3000)),
    st.sampled_from([None, "float16", "float32", "float64", "int64", "int32"]),
)
def test_random_linspace_matches_pytorch_bit_for_bit(start, end, steps, dtype) -> None:
    """PyTorch's CPU kernel contracts ``start + step * i`` into a fused multiply-add
    (``jitgrad/kernels/fma.py``): the values agree to the last bit, for integer dtypes after truncation."""
    if dtype in ("int64", "int32") and steps > 1:  # C++ converts a double beyond the range undefined
        start, end = (min(max(v, -1e6), 1e6) for v in (start, end))
    ours = run(jitgrad, lambda L: L.linspace(start, end, steps, dtype=D(L, dtype)), ())
    theirs = run(torch, lambda L: L.linspace(start, end, steps, dtype=D(L, dtype)), ())
    if assert_same_errors(ours, theirs):  # an end beyond the dtype's range: RuntimeError
        return
    assert ours.value.dtype.name == str(theirs.value.dtype)[6:]
    np.testing.assert_array_equal(ours.value.detach().numpy(), theirs.value.detach().numpy(), strict=True)


@needs_fma_build
@pytest.mark.parametrize("dtype", ["float32", "float16", "int8", "uint8"])
@pytest.mark.parametrize("ends", [(0, 1e39), (1e39, 0), (0, 3.402823466385289e38), (0, 7e4), (0, 300), (0, -1),
                                  (-1.0, 2), (0, float("inf")), (float("nan"), 1)])
@pytest.mark.parametrize("steps", [0, 1, 2, 5])
def test_linspace_checks_its_ends_like_pytorch(dtype, ends, steps) -> None:
    ours = run(jitgrad, lambda L: L.linspace(*ends, steps, dtype=D(L, dtype)), ())
    theirs = run(torch, lambda L: L.linspace(*ends, steps, dtype=D(L, dtype)), ())
    if not assert_same_errors(ours, theirs):
        np.testing.assert_array_equal(ours.value.detach().numpy(), theirs.value.detach().numpy(), strict=True)


@pytest.mark.parametrize("value", [70000, 65505, 65504.5, 1e39, -1e39, float("inf"), float("nan"), 3, -1, 300])
@pytest.mark.parametrize("dtype", ["float16", "float32", "uint8"])
@pytest.mark.parametrize("shape", [(), (1,), (2,), (1, 1), (2, 3)])
@pytest.mark.parametrize("how", ["full", "new_full", "full_like", "fill_"])
def test_fill_of_a_number_beyond_the_dtype_matches_pytorch(how: str, shape: tuple[int, ...], dtype: str, value: Any) -> None:
    """PyTorch checks the conversion (RuntimeError) except for one float16 element (inf)."""
    def program(L: Any) -> Any:
        x = L.zeros(shape, dtype=getattr(L, dtype))
        if how == "full":
            return L.full(shape, value, dtype=x.dtype)
        if how == "new_full":
            return x.new_full(shape, value)
        return L.full_like(x, value) if how == "full_like" else x.fill_(value)

    ours, theirs = run(jitgrad, program, ()), run(torch, program, ())
    if not assert_same_errors(ours, theirs):
        np.testing.assert_array_equal(ours.value.detach().numpy(), theirs.value.detach().numpy(), strict=True)


@needs_fma_build
def test_linspace_36_steps_matches_pytorch_where_fma_rounds_differently() -> None:
    for dtype in ("float64", "float32"):
        ours = jitgrad.linspace(0, 1, 36, dtype=D(jitgrad, dtype)).detach().numpy()
        np.testing.assert_array_equal(ours, torch.linspace(0, 1, 36, dtype=D(torch, dtype)).detach().numpy(), strict=True)


@settings(max_examples=budget(200), deadline=None)
@given(
    st.one_of(st.integers(-8, 8), st.floats(-8, 8)), st.one_of(st.integers(-8, 8), st.floats(-8, 8)),
    st.integers(0, 60), st.sampled_from([10.0, 2.0, 3.7, 0.5, -2.0, 0.0, 1.0]),
    st.sampled_from([None, "float16", "float32", "float64", "int64"]),
)
def test_random_logspace_matches_pytorch_bit_for_bit(start, end, steps, base, dtype) -> None:
    if dtype == "int64" and (base < 0 or base == 0 or abs(base) < 1 or float(max(start, end)) > 8):
        base = 2.0  # keeps the powers finite and in range: C++ converts inf or NaN undefined
    if dtype == "float16":
        start, end = (min(v, 4) for v in (start, end))
    ours = run(jitgrad, lambda L: L.logspace(start, end, steps, base=base, dtype=D(L, dtype)), ())
    theirs = run(torch, lambda L: L.logspace(start, end, steps, base=base, dtype=D(L, dtype)), ())
    if assert_same_errors(ours, theirs):
        return
    assert ours.value.dtype.name == str(theirs.value.dtype)[6:]
    np.testing.assert_array_equal(ours.value.detach().numpy(), theirs.value.detach().numpy(), strict=True)


LIKE_CASES = {
    "zeros_like": lambda L, x: L.zeros_like(x),
    "zeros_like_dtype": lambda L, x: L.zeros_like(x, dtype=L.int64),
    "ones_like": lambda L, x: L.ones_like(x[1:]),
    "ones_like_bool": lambda L, x: L.ones_like(x, dtype=L.bool),
    "full_like": lambda L, x: L.full_like(x, 3.5),
    "full_like_int": lambda L, x: L.full_like(x, 3.5, dtype=L.int64),
    "empty_like": lambda L, x: (L.empty_like(x).shape, L.empty_like(x).dtype == x.dtype),
    "empty_like_dtype": lambda L, x: L.empty_like(x, dtype=L.float32).dtype == L.float32,
    "zeros_like_not_tensor": lambda L, x: L.zeros_like([1.0]),
}


@pytest.mark.parametrize("name", sorted(LIKE_CASES))
def test_like_factories_match_pytorch(name: str) -> None:
    compare(LIKE_CASES[name], np.arange(6.0).reshape(2, 3))


def test_like_factories_keep_a_dense_input_layout_like_pytorch() -> None:
    # preserve_format: a dense input's strides are kept; a non-dense one's dimension order
    for make in (lambda L: L.zeros(3, 4).t(), lambda L: L.zeros(3, 4)[:, ::2],
                 lambda L: L.zeros(2, 3, 4).permute(2, 0, 1)):
        x, tx = make(jitgrad), make(torch)
        for name in ("zeros_like", "ones_like", "empty_like", "rand_like", "randn_like"):
            assert getattr(jitgrad, name)(x).stride() == getattr(torch, name)(tx).stride(), name
        assert jitgrad.full_like(x, 2).stride() == torch.full_like(tx, 2).stride()
        contiguous = jitgrad.zeros_like(x, memory_format=jitgrad.contiguous_format)
        assert contiguous.is_contiguous() and contiguous.shape == x.shape


# -- tensor(): copies, infers dtypes like PyTorch, rejects what PyTorch rejects ---------------
TENSOR_CASES = {
    "float": lambda L: L.tensor(1.5),
    "int": lambda L: L.tensor(3),
    "bool": lambda L: L.tensor(True),
    "float_list": lambda L: L.tensor([1.0, 2.5]),
    "int_list": lambda L: L.tensor([[1, 2], [3, 4]]),
    "bool_list": lambda L: L.tensor([True, False]),
    "mixed_int_float": lambda L: L.tensor([1, 2.5]),
    "mixed_bool_int": lambda L: L.tensor([True, 2]),
    "empty_list": lambda L: L.tensor([]),
    "empty_nested": lambda L: L.tensor([[], []]),
    "numpy_float64": lambda L: L.tensor(np.array([1.0, 2.0])),
    "numpy_float32": lambda L: L.tensor(np.array([1.0, 2.0], dtype=np.float32)),
    "numpy_int64": lambda L: L.tensor(np.arange(3)),
    "numpy_bool": lambda L: L.tensor(np.array([True])),
    "numpy_0d_float64": lambda L: L.tensor(np.array(1.5)),
    "numpy_float64_scalar": lambda L: L.tensor(np.float64(1.5)),
    "numpy_strided": lambda L: L.tensor(np.arange(12.0).reshape(3, 4)[::2, 1::2]),
    "dtype_float_to_int": lambda L: L.tensor([1.7, -1.7], dtype=L.int64),
    "dtype_int_to_bool": lambda L: L.tensor([0, 2], dtype=L.bool),
    "dtype_to_float64": lambda L: L.tensor([1, 2], dtype=L.float64),
    "list_of_0d_tensors": lambda L: L.tensor([L.tensor(1.0), L.tensor(2.0)]),
    "from_tensor": lambda L: L.tensor(L.arange(4).view(2, 2)[1:]),
    "string": lambda L: L.tensor("a"),
    "bytes": lambda L: L.tensor(b"a"),
    "ragged": lambda L: L.tensor([[1, 2], [3]]),
    "int_overflow": lambda L: L.tensor([1, 2**70]),
    "object_array": lambda L: L.tensor(np.array([1, 2], dtype=object)),
}


@pytest.mark.parametrize("name", sorted(TENSOR_CASES))
def test_tensor_matches_pytorch(name: str) -> None:
    compare(TENSOR_CASES[name])


@pytest.mark.parametrize("data", [
    None, "a", ["a", "b"], [1, None], [[1, 2], [3]], np.array([1], dtype=object), {"a": 1},
], ids=str)
def test_tensor_rejections_raise_pytorchs_error_type(data) -> None:
    # the type PyTorch raises: RuntimeError for None and dicts (no dtype to infer), ValueError
    # for a list of strings and ragged lists, TypeError for a str (messages: see
    # test_compat_small_fixes.py); jitgrad's own messages name tensor()
    with pytest.raises(Exception) as theirs:
        torch.tensor(data)
    with pytest.raises(theirs.type):
        jitgrad.tensor(data)


@pytest.mark.parametrize("data", [[[1, 2], 3], [1 + 2j]], ids=str)
def test_tensor_rejections_name_tensor(data) -> None:
    # deliberate differences: PyTorch says TypeError for [[1, 2], 3] and makes a complex tensor
    # of [1 + 2j]; jitgrad says ragged (ValueError) / not numbers (TypeError), naming tensor()
    with pytest.raises((TypeError, ValueError), match=r"tensor\(\)"):
        jitgrad.tensor(data)


def test_tensor_of_non_contiguous_data_is_contiguous() -> None:
    # Deliberate differences: PyTorch's tensor() refuses negative NumPy strides (ValueError) and
    # keeps a transposed tensor's layout; jitgrad copies both into a contiguous tensor.
    a = np.arange(12.0).reshape(3, 4)[::2, ::-1]
    with pytest.raises(ValueError):
        torch.tensor(a)
    t = jitgrad.tensor(a)
    np.testing.assert_array_equal(t.detach().numpy(), a)
    assert t.is_contiguous() and t.dtype == jitgrad.float64
    u = jitgrad.tensor(jitgrad.arange(4).view(2, 2).t())
    assert u.is_contiguous() and u.tolist() == [[0, 2], [1, 3]]


def test_tensor_copies() -> None:
    a = np.arange(4.0)
    t = jitgrad.tensor(a)
    u = jitgrad.tensor(t)
    a[0] = 9.0
    t.fill_(1.0)
    assert t.tolist() == [1.0] * 4 and u.tolist() == [0.0, 1.0, 2.0, 3.0]
    assert t._storage is not u._storage and t._base is None and u.is_contiguous()


def test_as_tensor_shares_when_it_can() -> None:
    a = np.arange(4.0)
    t = jitgrad.as_tensor(a)
    assert jitgrad.as_tensor(t) is t
    a[0] = 7.0
    assert t[0].item() == 7.0
    c = jitgrad.as_tensor(a, dtype=jitgrad.float32)  # a conversion copies
    a[1] = 7.0
    assert c.dtype == jitgrad.float32 and c[1].item() == 1.0
    assert jitgrad.as_tensor([1, 2]).dtype == jitgrad.int64


# -- from_numpy -----------------------------------------------------------------------------
def test_from_numpy_shares_memory_and_geometry() -> None:
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4).transpose(2, 0, 1)[1:, :, ::2]
    t = jitgrad.from_numpy(a)
    assert_same_tensor(t, torch.from_numpy(a))
    a[0, 0, 0] = -1.0
    assert t[0, 0, 0].item() == -1.0
    t[1, 1, 1] = -2.0
    assert a[1, 1, 1] == -2.0
    assert np.shares_memory(t.detach().numpy(), a)


@pytest.mark.parametrize("make", [
    lambda: np.arange(6.0)[::-1],
    lambda: np.arange(12.0).reshape(3, 4)[:, ::-2],
    lambda: np.zeros(4, dtype=[("a", "i1"), ("f", "f8")])["f"],
    lambda: np.frombuffer(bytearray(8 * 4 + 1), dtype=np.uint8)[1:].view(np.float64),
    lambda: np.arange(4, dtype=">i8"),
], ids=["negative_stride", "negative_stride_2d", "structured_field", "misaligned", "byteswapped"])
def test_from_numpy_copies_what_a_tensor_cannot_describe(make) -> None:
    # Deliberate difference: PyTorch refuses negative strides (ValueError); jitgrad copies.
    a = make()
    t = jitgrad.from_numpy(a)
    np.testing.assert_array_equal(t.detach().numpy(), a)
    assert t.dtype == a.dtype.newbyteorder("=") and t.is_contiguous()
    assert not np.shares_memory(t.detach().numpy(), a)
    t.fill_(-100)
    assert not np.any(a == -100)


def test_from_numpy_readonly_refuses_writes() -> None:
    a = np.arange(6.0)
    a.flags.writeable = False
    for t in (jitgrad.from_numpy(a), jitgrad.from_numpy(a[::-1])):  # shared and copied
        assert not t.detach().numpy().flags.writeable
        with pytest.raises(RuntimeError, match="read-only"):
            t.fill_(0.0)
    broadcast = jitgrad.from_numpy(np.broadcast_to(np.arange(3.0), (2, 3)))
    assert broadcast.stride() == (0, 1)
    with pytest.raises(RuntimeError, match="read-only"):
        broadcast.zero_()


@pytest.mark.parametrize("bad", [[1.0], np.arange(3, dtype=np.uint16), np.zeros(2, np.complex64), np.array(["a"])])
def test_from_numpy_rejections(bad) -> None:
    with pytest.raises(TypeError, match="from_numpy"):
        jitgrad.from_numpy(bad)


def test_from_numpy_empty_and_0d() -> None:
    assert_same_tensor(jitgrad.from_numpy(np.zeros((0, 3))), torch.from_numpy(np.zeros((0, 3))))
    z = jitgrad.from_numpy(np.array(2.5))
    assert z.shape == () and z.item() == 2.5


# -- rand / randn -----------------------------------------------------------------------------
@pytest.mark.parametrize("factory", [jitgrad.rand, jitgrad.randn])
def test_random_factories_are_reproducible_under_manual_seed(factory) -> None:
    jitgrad.manual_seed(123)
    a, b = factory(3, 4), factory(3, 4)
    jitgrad.manual_seed(123)
    c, d = factory((3, 4)), factory([3, 4])
    np.testing.assert_array_equal(a.detach().numpy(), c.detach().numpy())
    np.testing.assert_array_equal(b.detach().numpy(), d.detach().numpy())
    assert not np.array_equal(a.detach().numpy(), b.detach().numpy())
    jitgrad.manual_seed(124)
    assert not np.array_equal(factory(3, 4).detach().numpy(), a.detach().numpy())


@pytest.mark.parametrize("dtype", [None, jitgrad.float32, jitgrad.float64])
def test_rand_and_randn_dtypes_and_ranges(dtype) -> None:
    jitgrad.manual_seed(0)
    u = jitgrad.rand(10000, dtype=dtype)
    n = jitgrad.randn(100, 100, dtype=dtype)
    expected = jitgrad.float32 if dtype is None else dtype
    assert u.dtype == n.dtype == expected and u.shape == (10000,) and n.shape == (100, 100)
    assert 0.0 <= u.detach().numpy().min() and u.detach().numpy().max() < 1.0
    assert abs(u.detach().numpy().mean() - 0.5) < 0.02
    assert abs(n.detach().numpy().mean()) < 0.05 and abs(n.detach().numpy().std() - 1.0) < 0.05
    assert jitgrad.rand(0, 3).shape == (0, 3) and jitgrad.randn(()).shape == ()


@pytest.mark.parametrize("name", ["rand", "randn"])
def test_random_factories_refuse_non_float_dtypes_like_pytorch(name) -> None:
    compare(lambda L: getattr(L, name)(2, dtype=L.int64))
    compare(lambda L: getattr(L, name)(2, -1))
