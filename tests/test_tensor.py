"""The Tensor's own attributes and its Python/NumPy/DLPack interop, against PyTorch."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import jitgrad
from oracle import compare

A34 = np.arange(12, dtype=np.float32).reshape(3, 4)
A0 = np.array(2.5)
I3 = np.array([3, -1, 7])
B1 = np.array([True])


def attributes(L, x):
    v = x.t()[1:]
    return (
        tuple(x.shape), tuple(x.size()), x.size(1), x.size(-1), x.stride(), x.stride(0),
        x.stride(-1), x.storage_offset(), v.storage_offset(), x.dim(), x.ndim, v.ndim,
        x.numel(), v.numel(), x.is_contiguous(), v.is_contiguous(), x._version, v._version,
        x._is_view(), v._is_view(), v._base is x, x._base is None, len(x), len(v),
        x.element_size(), x.is_floating_point(),
    )


@pytest.mark.parametrize(
    "data", [A34, A34[:, ::2], np.zeros((0, 3)), np.zeros((2, 0, 3)), I3, B1],
    ids=["2d", "strided", "empty", "empty_3d", "int", "bool"],
)
def test_attributes_match_pytorch(data) -> None:
    compare(attributes, data)


CASES = {
    "size_bad_dim": (lambda L, x: x.size(2), A34),
    "stride_bad_dim": (lambda L, x: x.stride(-3), A34),
    "size_0d": (lambda L, x: x.size(0), A0),
    "shape_0d": (lambda L, x: (tuple(x.shape), x.dim(), x.numel(), x.stride()), A0),
    "item_float": (lambda L, x: x.item(), A0),
    "item_1x1": (lambda L, x: x[1:2, 2:3].item(), A34),
    "item_int": (lambda L, x: x[1].item(), I3),
    "item_bool": (lambda L, x: x.item(), B1),
    "item_many": (lambda L, x: x.item(), A34),
    "item_empty": (lambda L, x: x.item(), np.zeros(0)),
    "tolist": (lambda L, x: x.tolist(), A34),
    "tolist_view": (lambda L, x: x.t()[::2].tolist(), A34),
    "tolist_0d": (lambda L, x: x.tolist(), A0),
    "tolist_int": (lambda L, x: x.tolist(), I3),
    "tolist_bool": (lambda L, x: x.tolist(), B1),
    "tolist_empty": (lambda L, x: x.tolist(), np.zeros((2, 0))),
    "len": (lambda L, x: len(x), A34),
    "len_0d": (lambda L, x: len(x), A0),
    "iter": (lambda L, x: list(x), A34),
    "iter_views": (lambda L, x: [r._base is x for r in x], A34),
    "iter_0d": (lambda L, x: list(x), A0),
    "bool_one": (lambda L, x: bool(x), B1),
    "bool_zero": (lambda L, x: bool(x[:1]), np.array([0.0, 1.0])),
    "bool_many": (lambda L, x: bool(x), A34),
    "bool_empty": (lambda L, x: bool(x), np.zeros(0)),
    "float": (lambda L, x: float(x), A0),
    "float_of_int": (lambda L, x: float(x[0]), I3),
    "float_many": (lambda L, x: float(x), A34),
    "int": (lambda L, x: int(x), np.array(-2.7)),
    "int_many": (lambda L, x: int(x), I3),
    "index": (lambda L, x: [10, 20, 30, 40][x[1].__index__() + 1], I3),
    "index_range": (lambda L, x: list(range(x[0])), I3),
    "index_float": (lambda L, x: x.__index__(), A0),
    "index_many": (lambda L, x: x.__index__(), I3),
    "index_shape_1": (lambda L, x: x[:1].__index__(), I3),
    "index_bool": (lambda L, x: x.__index__(), B1),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_python_protocols_match_pytorch(name: str) -> None:
    program, data = CASES[name]
    compare(program, data)


def test_python_scalars_have_python_types() -> None:
    assert type(jitgrad.tensor(1.5).item()) is float
    assert type(jitgrad.tensor(3).item()) is int
    assert type(jitgrad.tensor(True).item()) is bool
    assert type(jitgrad.tensor([[1]]).tolist()[0][0]) is int


def test_numpy_shares_memory_both_ways() -> None:
    x = jitgrad.zeros(3, 4)
    v = x.t()[1:]
    a = v.detach().numpy()
    assert a.shape == (3, 3) and a.strides == (4, 16) and np.shares_memory(a, x.detach().numpy())
    a[0, 0] = 5.0  # v[i, j] is x[j, i + 1]
    assert x[0, 1].item() == 5.0
    x[2, 1] = 7.0
    assert a[0, 2] == 7.0
    assert jitgrad.zeros(0, 3).detach().numpy().shape == (0, 3)


def test_array_protocol() -> None:
    x = jitgrad.arange(6).view(2, 3)
    shared = np.asarray(x)
    assert shared.dtype == np.int64 and np.shares_memory(shared, x.detach().numpy())
    copied = np.array(x)  # np.array copies by default
    assert not np.shares_memory(copied, x.detach().numpy())
    np.testing.assert_array_equal(copied, shared)
    assert np.array(x, copy=False).base is not None
    converted = np.asarray(x, dtype=np.float32)
    assert converted.dtype == np.float32 and converted.tolist() == [[0, 1, 2], [3, 4, 5]]
    with pytest.raises(ValueError, match="needs a copy"):
        np.array(x, dtype=np.float64, copy=False)
    assert (np.add(x, 1) == np.arange(1, 7).reshape(2, 3)).all()  # NumPy ufuncs accept tensors
    x.fill_(9)
    assert shared.tolist() == [[9] * 3] * 2 and copied[0, 0] == 0


def test_dlpack_to_torch_is_zero_copy() -> None:
    x = jitgrad.zeros(3, 4)
    v = x.t()[1:]
    t = torch.from_dlpack(v)
    assert tuple(t.shape) == (3, 3) and t.stride() == (1, 4) and t.dtype == torch.float32
    t[0, 0] = 5.0  # v[i, j] is x[j, i + 1]
    assert x[0, 1].item() == 5.0
    x[2, 1] = 7.0
    assert t[0, 2].item() == 7.0
    assert x.__dlpack_device__() == (1, 0)


def test_dlpack_to_numpy_is_zero_copy() -> None:
    x = jitgrad.arange(6)
    a = np.from_dlpack(x)
    a[0] = -1
    assert x[0].item() == -1 and a.dtype == np.int64


def test_from_dlpack_of_torch_and_numpy_is_zero_copy() -> None:
    t = torch.arange(12.0, dtype=torch.float64).view(3, 4).t()
    x = jitgrad.from_dlpack(t)
    assert x.shape == (4, 3) and x.stride() == (1, 4) and x.dtype == jitgrad.float64
    t[0, 1] = -3.0
    assert x[0, 1].item() == -3.0
    x[3, 2] = -4.0
    assert t[3, 2].item() == -4.0
    a = np.zeros(3, dtype=bool)
    y = jitgrad.from_dlpack(a)
    y[1] = True
    assert a.tolist() == [False, True, False]
    assert jitgrad.from_dlpack(x) is x


def test_dlpack_round_trip_keeps_values_and_dtypes() -> None:
    for dtype in (torch.float32, torch.float64, torch.int64, torch.bool):
        t = (torch.arange(6) % 3).to(dtype)
        back = torch.from_dlpack(jitgrad.from_dlpack(t))
        assert back.dtype == dtype and torch.equal(back, t)
        assert back.data_ptr() == t.data_ptr()


def test_from_dlpack_refuses_unsupported_dtypes() -> None:
    with pytest.raises(TypeError, match="from_numpy"):
        jitgrad.from_dlpack(torch.zeros(2, dtype=torch.complex64))


@pytest.mark.parametrize("program", [
    lambda L: L.tensor([[1.0, 2.5], [3.0, -4.0]]),
    lambda L: L.tensor([1, 2, 3]),
    lambda L: L.tensor([True, False]),
    lambda L: L.tensor(3.5),
    lambda L: L.tensor([1.0, 2.0], dtype=L.float64),
    lambda L: L.zeros(0, 3),
    lambda L: L.arange(12).view(3, 4).t(),
], ids=["float", "int", "bool", "0d", "float64", "empty", "transposed"])
def test_repr_matches_pytorch(program) -> None:
    ours, theirs = repr(program(jitgrad)), repr(program(torch))
    assert ours == theirs.replace("torch.", "jitgrad."), (ours, theirs)


def test_tensor_constructor_is_the_legacy_one() -> None:
    # jitgrad.Tensor(...) follows torch.Tensor(...); tests/test_dtypes_creation.py has the rest
    assert repr(jitgrad.Tensor([1, 2])) == repr(torch.Tensor([1, 2]))
    with pytest.raises(TypeError, match="Tensor"):
        jitgrad.Tensor(2.5)
