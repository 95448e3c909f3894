"""Issue 10's dtypes against PyTorch: the promotion lattice (whole pairwise table, 0-d
tensors, Python scalars), arithmetic in every dtype, the default dtype, finfo/iinfo, and
the kernels' refusal of dtypes they are not compiled for."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import numpy as np
import pytest
import torch

import jitgrad
from jitgrad import kernels

NAMES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64")
PAIRS = list(itertools.product(NAMES, NAMES))


@pytest.fixture(autouse=True)
def _restore_default_dtype() -> Iterator[None]:
    yield
    jitgrad.set_default_dtype(jitgrad.float32)
    torch.set_default_dtype(torch.float32)


def both_default(name: str) -> None:
    jitgrad.set_default_dtype(getattr(jitgrad, name))
    torch.set_default_dtype(getattr(torch, name))


def name_of(dtype: object) -> str:
    return str(dtype).replace("torch.", "")


def make(lib, name: str, values, ndim: int = 1):
    data = values if ndim else values[0]
    return lib.tensor(data, dtype=getattr(lib, name))


# -- promotion ---------------------------------------------------------------------------------
@pytest.mark.parametrize(("a", "b"), PAIRS)
def test_promote_types_is_pytorchs_table(a: str, b: str) -> None:
    ours = jitgrad.dtypes.promote_types(getattr(jitgrad, a), getattr(jitgrad, b))
    assert ours.name == name_of(torch.promote_types(getattr(torch, a), getattr(torch, b)))


@pytest.mark.parametrize("default", ["float32", "float64"])
@pytest.mark.parametrize(("a", "b"), PAIRS)
def test_result_type_with_0d_tensors_and_scalars_matches_pytorch(a: str, b: str, default: str) -> None:
    both_default(default)
    for lib_a_dim, lib_b_dim in [(1, 1), (1, 0), (0, 1), (0, 0)]:
        ours = make(jitgrad, a, [1, 0, 1], lib_a_dim) + make(jitgrad, b, [1, 1, 0], lib_b_dim)
        theirs = make(torch, a, [1, 0, 1], lib_a_dim) + make(torch, b, [1, 1, 0], lib_b_dim)
        assert ours.dtype.name == name_of(theirs.dtype), (a, b, lib_a_dim, lib_b_dim)
    for scalar in (True, 2, -3, 2.5):
        if a == "uint8" and scalar == -3:
            continue  # test_out_of_range_int_scalar_wraps_like_pytorch
        for ndim in (0, 1):
            ours = make(jitgrad, a, [1, 0, 1], ndim) * scalar
            theirs = make(torch, a, [1, 0, 1], ndim) * scalar
            assert ours.dtype.name == name_of(theirs.dtype), (a, scalar, ndim)
            np.testing.assert_array_equal(ours.detach().numpy(), theirs.detach().numpy())
    # three operands: c10 combines the 0-d and scalar states before the dimensioned one
    ours = jitgrad.add(make(jitgrad, a, [1, 0, 1]), make(jitgrad, b, [1], 0) * 1.5)
    theirs = torch.add(make(torch, a, [1, 0, 1]), make(torch, b, [1], 0) * 1.5)
    assert ours.dtype.name == name_of(theirs.dtype)


def test_out_of_range_int_scalar_wraps_like_pytorch() -> None:
    for dtype, value in (("uint8", -3), ("int8", 300), ("int16", -40000), ("uint8", 256 + 7)):
        for op in (lambda t, v: t + v, lambda t, v: t * v, lambda t, v: t - v,  # binary
                   lambda t, v: t.add_(v), lambda t, v: t.mul_(v),  # in place
                   lambda t, v: t.remainder(v), lambda t, v: t.remainder_(v)):  # declared
            theirs = op(torch.tensor([1, 5], dtype=getattr(torch, dtype)), value)
            ours = op(jitgrad.tensor([1, 5], dtype=getattr(jitgrad, dtype)), value)
            assert ours.dtype.name == str(theirs.dtype).removeprefix("torch.")
            np.testing.assert_array_equal(ours.detach().numpy(), theirs.detach().numpy())
    with pytest.raises(OverflowError, match="int too big to convert"):  # PyTorch: OverflowError too
        jitgrad.tensor([1], dtype=jitgrad.uint8) + 2**70


BINARY = {
    "add": lambda L, x, y: x + y, "sub": lambda L, x, y: x - y, "mul": lambda L, x, y: x * y,
    "div": lambda L, x, y: x / y, "eq": lambda L, x, y: x == y, "lt": lambda L, x, y: x < y,
    "maximum": lambda L, x, y: L.maximum(x, y), "cat": lambda L, x, y: L.cat([x, y]),
    "where": lambda L, x, y: L.where(x > 0, x, y),
}


@pytest.mark.parametrize("op", sorted(BINARY))
def test_binary_ops_in_every_dtype_pair_match_pytorch(op: str) -> None:
    for a, b in PAIRS:
        x, y = [3, 0, 1, 7], [2, 1, 1, 5]
        results = []
        for lib in (jitgrad, torch):
            try:
                r = BINARY[op](lib, make(lib, a, x), make(lib, b, y))
                results.append((name_of(r.dtype), np.asarray(r.tolist(), dtype=float)))
            except (RuntimeError, TypeError) as exc:
                results.append((type(exc).__name__, None))
        (d1, v1), (d2, v2) = results
        assert d1 == d2, (op, a, b, results)
        if v2 is not None:
            np.testing.assert_allclose(v1, v2, rtol=1e-3, err_msg=f"{op} {a} {b}")


@pytest.mark.parametrize("name", ["uint8", "int8", "int16", "int32", "float16"])
def test_unary_ops_and_reductions_match_pytorch(name: str) -> None:
    programs = [
        lambda L, x: -x if x.dtype != L.uint8 else x, lambda L, x: x.abs(), lambda L, x: x.sum(),
        lambda L, x: x * 2.5, lambda L, x: x + 1, lambda L, x: x ** 2, lambda L, x: x.exp(),
        lambda L, x: x.sqrt(), lambda L, x: x.relu(), lambda L, x: x.clamp(0, 2),
        lambda L, x: x.max(), lambda L, x: x.to(L.float64), lambda L, x: x.clone().fill_(1),
        lambda L, x: x.reshape(2, 2).t().contiguous(), lambda L, x: x @ x,
    ]
    for program in programs:
        ours = program(jitgrad, make(jitgrad, name, [1, 0, 3, 2]))
        theirs = program(torch, make(torch, name, [1, 0, 3, 2]))
        assert ours.dtype.name == name_of(theirs.dtype)
        np.testing.assert_allclose(ours.detach().numpy().astype(float), theirs.detach().numpy().astype(float), rtol=1e-3)


@pytest.mark.parametrize("name", ["uint8", "int8", "int16", "int32", "float16"])
def test_large_copies_adds_and_fills_go_through_numpy(name: str) -> None:
    # above regions.SMALL elements the float32/float64/int64/bool data would take the kernels
    base = (np.arange(100 * 70) % 50).astype(name).reshape(100, 70)
    x = jitgrad.from_numpy(base.copy())
    np.testing.assert_array_equal(x.t().contiguous().detach().numpy(), base.T)
    np.testing.assert_array_equal(x.t().clone().detach().numpy(), base.T)
    y = jitgrad.zeros(70, 100, dtype=getattr(jitgrad, name))
    y.copy_(x.t())
    np.testing.assert_array_equal(y.detach().numpy(), base.T)
    y[::2].fill_(3)
    assert (y.detach().numpy()[::2] == 3).all()
    if name == "float16":  # gradient accumulation into a float16 leaf through a strided view
        leaf = jitgrad.zeros(100, 70, dtype=jitgrad.float16, requires_grad=True)
        leaf.t()[::1].sum().backward()
        leaf.t().sum().backward()
        assert leaf.grad.dtype == jitgrad.float16 and (leaf.grad.detach().numpy() == 2).all()


@pytest.mark.parametrize("name", ["uint8", "int8", "int16", "int32", "float16"])
def test_kernels_refuse_dtypes_they_are_not_compiled_for(name: str) -> None:
    buf = np.zeros(8, dtype=name)
    ok = np.zeros(8)
    calls = [
        lambda: kernels.strided_copy(buf, 0, (1,), ok, 0, (1,), (8,)),
        lambda: kernels.strided_copy(ok, 0, (1,), buf, 0, (1,), (8,)),
        lambda: kernels.strided_add(buf, 0, (1,), ok, 0, (1,), (8,)),
        lambda: kernels.fill(buf, 0, (1,), (8,), 1),
        lambda: kernels.scatter(buf, 0, (1,), (8,), np.zeros(8)),
    ]
    before = {k: len(d.signatures) for k, d in _dispatchers().items()}
    for call in calls:
        with pytest.raises(TypeError, match=name):
            call()
    assert {k: len(d.signatures) for k, d in _dispatchers().items()} == before


def _dispatchers():
    from jitgrad.kernels import registry

    return {k.name: k.dispatcher for k in registry.kernels()}


def test_float16_gradients_match_pytorch() -> None:
    data = np.array([[0.5, -1.25], [2.0, 0.75]], dtype=np.float16)
    results = []
    for lib in (jitgrad, torch):
        x = lib.tensor(data, requires_grad=True)
        y = (x * x).exp().sum() + (x.t() * 3).sum()
        y.backward()
        results.append((x.grad.dtype, x.grad.detach().numpy()))
    assert name_of(results[0][0]) == name_of(results[1][0]) == "float16"
    np.testing.assert_allclose(results[0][1].astype(float), results[1][1].astype(float), rtol=2e-3)


# -- dtype objects and names ----------------------------------------------------------------
def test_aliases_and_dtype_type() -> None:
    pairs = {"float": "float32", "double": "float64", "half": "float16", "long": "int64",
             "int": "int32", "short": "int16"}
    for alias, name in pairs.items():
        assert getattr(jitgrad, alias) == getattr(jitgrad, name)
        assert name_of(getattr(torch, alias)) == name
    x = jitgrad.zeros(2, dtype=jitgrad.half)
    assert isinstance(x.dtype, jitgrad.dtype) and x.dtype == jitgrad.float16
    assert x.is_floating_point() and not jitgrad.zeros(1, dtype=jitgrad.int32).is_floating_point()
    assert [t.dtype.itemsize for t in (x, x.int(), x.short(), x.char(), x.byte(), x.long())] == [2, 4, 2, 1, 1, 8]
    assert x.half() is x and x.int().dtype == jitgrad.int32 and x.byte().dtype == jitgrad.uint8


@pytest.mark.parametrize("name", ["bfloat16", "complex64", "complex128", "cfloat", "uint16", "uint32"])
def test_unsupported_dtypes_exist_and_refuse_clearly(name: str) -> None:
    d = getattr(jitgrad, name)
    assert repr(d).startswith("jitgrad.")
    with pytest.raises(TypeError, match=r"zeros: dtype jitgrad\.\w+ is not supported.*float16"):
        jitgrad.zeros(2, dtype=d)
    with pytest.raises(TypeError, match="to"):
        jitgrad.zeros(2).to(d)


def test_index_with_every_integer_dtype_scalar() -> None:
    assert [10, 11, 12][jitgrad.tensor(1, dtype=jitgrad.int8)] == 11
    assert [10, 11, 12][jitgrad.tensor(2, dtype=jitgrad.uint8)] == 12


# -- the default dtype -------------------------------------------------------------------------
DEFAULT_PROGRAMS = {
    "tensor_float": lambda L: L.tensor([1.5]),
    "tensor_mixed": lambda L: L.tensor([1, 2.5]),
    "tensor_np_float64": lambda L: L.tensor([np.float64(1.5)]),
    "tensor_np_float32_and_float": lambda L: L.tensor([np.float32(1.5), 2.5]),
    "tensor_np_int32_and_int": lambda L: L.tensor([np.int32(1), 2]),
    "tensor_np_float16_and_int": lambda L: L.tensor([np.float16(1), 2]),
    "tensor_np_int8_and_bool": lambda L: L.tensor([np.int8(1), True]),
    "tensor_np_int32_array": lambda L: L.tensor(np.arange(3, dtype=np.int32)),
    "tensor_np_uint8_array": lambda L: L.tensor(np.arange(3, dtype=np.uint8)),
    "tensor_np_float16_scalar": lambda L: L.tensor(np.float16(1.5)),
    "legacy_Tensor": lambda L: L.Tensor([1, 2]),
    "zeros": lambda L: L.zeros(2),
    "empty": lambda L: L.empty(2).dtype,
    "ones_like_int_dtype": lambda L: L.ones_like(L.zeros(2, dtype=L.int32)),
    "full_float": lambda L: L.full((2,), 1.5),
    "full_0d_float": lambda L: L.full((2,), L.tensor(1.5)),
    "arange_float": lambda L: L.arange(0.5, 3),
    "linspace": lambda L: L.linspace(0, 1, 3),
    "logspace": lambda L: L.logspace(0, 1, 3),
    "eye": lambda L: L.eye(2),
    "rand": lambda L: L.rand(2).dtype,
    "int_times_float": lambda L: L.tensor([1, 2]) * 2.5,
    "int_sqrt": lambda L: L.tensor([1, 4]).sqrt(),
    "int_div": lambda L: L.tensor([1, 4]) / 2,
    "float32_plus_float": lambda L: L.tensor([1.0], dtype=L.float32) + 2.5,
    "half_plus_float": lambda L: L.tensor([1.0], dtype=L.float16) + 2.5,
    "mean_of_int_as_float": lambda L: L.tensor([1, 2]).float().mean(),
    "finfo": lambda L: L.finfo().eps,
    "repr_float32": lambda L: repr(L.tensor([1.5], dtype=L.float32)).replace("torch.", "jitgrad."),
    "repr_float64": lambda L: repr(L.tensor([1.5], dtype=L.float64)).replace("torch.", "jitgrad."),
}


@pytest.mark.parametrize("default", ["float32", "float64", "float16"])
@pytest.mark.parametrize("name", sorted(DEFAULT_PROGRAMS))
def test_default_dtype_is_followed_like_pytorch(name: str, default: str) -> None:
    both_default(default)
    assert jitgrad.get_default_dtype() == getattr(jitgrad, default)
    ours, theirs = DEFAULT_PROGRAMS[name](jitgrad), DEFAULT_PROGRAMS[name](torch)
    if isinstance(theirs, torch.Tensor):
        assert ours.dtype.name == name_of(theirs.dtype)
        np.testing.assert_allclose(ours.detach().numpy().astype(float), theirs.detach().numpy().astype(float), rtol=1e-3)
    elif isinstance(theirs, torch.dtype):
        assert ours.name == name_of(theirs)
    else:
        assert ours == theirs


@pytest.mark.parametrize("bad", ["int32", "int64", "bool", "uint8"])
def test_set_default_dtype_refuses_non_float_like_pytorch(bad: str) -> None:
    with pytest.raises(TypeError, match="set_default_dtype"):
        jitgrad.set_default_dtype(getattr(jitgrad, bad))
    with pytest.raises(TypeError):
        torch.set_default_dtype(getattr(torch, bad))
    assert jitgrad.get_default_dtype() == jitgrad.float32
    with pytest.raises(TypeError, match="bfloat16"):
        jitgrad.set_default_dtype(jitgrad.bfloat16)


# -- finfo / iinfo -------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["float16", "float32", "float64", None])
def test_finfo_matches_pytorch(name: str | None) -> None:
    ours = jitgrad.finfo() if name is None else jitgrad.finfo(getattr(jitgrad, name))
    theirs = torch.finfo() if name is None else torch.finfo(getattr(torch, name))
    for attr in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"):
        assert getattr(ours, attr) == getattr(theirs, attr), attr
    assert repr(ours) == repr(theirs)
    assert jitgrad.finfo(float).dtype == "float64"


@pytest.mark.parametrize("name", ["uint8", "int8", "int16", "int32", "int64"])
def test_iinfo_matches_pytorch(name: str) -> None:
    ours, theirs = jitgrad.iinfo(getattr(jitgrad, name)), torch.iinfo(getattr(torch, name))
    for attr in ("bits", "max", "min", "dtype"):
        assert getattr(ours, attr) == getattr(theirs, attr), attr
    assert repr(ours) == repr(theirs)


def test_finfo_iinfo_refuse_the_wrong_kind_like_pytorch() -> None:
    for ours, theirs in [(lambda: jitgrad.finfo(jitgrad.int32), lambda: torch.finfo(torch.int32)),
                         (lambda: jitgrad.iinfo(jitgrad.float32), lambda: torch.iinfo(torch.float32)),
                         (lambda: jitgrad.iinfo(jitgrad.bool), lambda: torch.iinfo(torch.bool))]:
        with pytest.raises(TypeError):
            theirs()
        with pytest.raises(TypeError, match="info"):
            ours()


def test_finfo_in_a_default_argument_at_import() -> None:
    # the pattern that made `import jitgrad as torch` fail at import time
    def clamp_log(x, eps=jitgrad.finfo(jitgrad.float32).eps):
        return (x + eps).log()

    assert clamp_log(jitgrad.zeros(1)).item() == pytest.approx(np.log(np.finfo(np.float32).eps))


@pytest.mark.parametrize("name", ["uint8", "int8", "int16", "int32", "float16"])
def test_numpy_and_dlpack_exchange_share_memory_in_new_dtypes(name: str) -> None:
    array = np.arange(6).astype(name)
    x = jitgrad.from_numpy(array)
    assert x.dtype == getattr(jitgrad, name) and np.shares_memory(x.detach().numpy(), array)
    t = torch.arange(6).to(getattr(torch, name))
    back = torch.from_dlpack(jitgrad.from_dlpack(t))
    assert back.dtype == t.dtype and back.data_ptr() == t.data_ptr()
    assert jitgrad.tensor(array).dtype == x.dtype  # tensor() keeps a NumPy array's dtype


def test_default_dtype_is_read_at_call_time_everywhere() -> None:
    # one source: dtypes.DEFAULT_FLOAT, changed only through set_default_dtype
    import jitgrad.dtypes as d

    jitgrad.set_default_dtype(jitgrad.float64)
    assert d.DEFAULT_FLOAT == jitgrad.float64
    assert (jitgrad.tensor([1, 2]) * 0.5).dtype == jitgrad.float64
    assert repr(jitgrad.tensor([0.5], dtype=jitgrad.float32)) == "tensor([0.5000], dtype=jitgrad.float32)"
    assert repr(jitgrad.tensor([0.5])) == "tensor([0.5000])"


@pytest.mark.parametrize(("a", "b"), PAIRS)
def test_public_promotion_queries_match_pytorch(a: str, b: str) -> None:
    ja, jb, ta, tb = getattr(jitgrad, a), getattr(jitgrad, b), getattr(torch, a), getattr(torch, b)
    assert jitgrad.promote_types(ja, jb).name == name_of(torch.promote_types(ta, tb))
    assert jitgrad.can_cast(ja, jb) == torch.can_cast(ta, tb)
    x, tx = jitgrad.zeros(2, dtype=ja), torch.zeros(2, dtype=ta)
    for other, tother in [(jitgrad.zeros((), dtype=jb), torch.zeros((), dtype=tb)), (2.5, 2.5), (3, 3), (True, True)]:
        assert jitgrad.result_type(x, other).name == name_of(torch.result_type(tx, tother))


def test_cudnn_flags_can_be_set() -> None:
    jitgrad.backends.cudnn.deterministic = True
    jitgrad.backends.cudnn.benchmark = False
    assert jitgrad.backends.cudnn.is_available() is torch.backends.cudnn.is_available() is False


def test_kernel_dtypes_are_the_ones_moves_routes_to_kernels() -> None:
    from jitgrad.kernels import _layout

    assert jitgrad.dtypes.KERNEL == frozenset(_layout.SUPPORTED_DTYPES)
    assert set(jitgrad.dtypes.SUPPORTED) > jitgrad.dtypes.KERNEL
