"""``jitgrad.testing`` side by side with ``torch.testing``: the same comparison passes or fails
alike, with the same exception type and the same message (the library prefix aside)."""

from __future__ import annotations

import math
import warnings
from typing import Any, Callable

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import jitgrad
import jitgrad.testing
from compat_helpers import outcome
from conftest import budget

NAN, INF = math.nan, math.inf


def _neutral(text: Any) -> Any:
    """A message with each library's name replaced, so the two can be compared."""
    if not isinstance(text, str):
        return text
    for name in ("<class 'jitgrad.tensor.Tensor'>", "<class 'torch.Tensor'>"):
        text = text.replace(name, "<class Tensor>")
    return text.replace("torch.", "LIB.").replace("jitgrad.", "LIB.")


def both(program: Callable[[Any], Any]) -> tuple[tuple[str, Any], tuple[str, Any]]:
    ours, theirs = (outcome(lambda lib=lib: program(lib)) for lib in (jitgrad, torch))
    return (ours[0], _neutral(ours[1])), (theirs[0], _neutral(theirs[1]))


def _filled_state(L: Any) -> Any:
    """The state dict of a ``Linear(2, 1)`` with weights 0.5 and bias 0."""
    layer = L.nn.Linear(2, 1)
    with L.no_grad():
        layer.weight.fill_(0.5)
        layer.bias.zero_()
    return layer.state_dict()


# each: lib -> a call of lib.testing.assert_close
CASES: dict[str, Callable[[Any], Any]] = {
    "equal floats": lambda L: L.testing.assert_close(L.tensor([1.0, 2.0]), L.tensor([1.0, 2.0])),
    "float32 mismatch": lambda L: L.testing.assert_close(L.tensor([1.0, 2.0, 3.0]), L.tensor([1.0, 2.5, 3.1])),
    "within float32 tolerance": lambda L: L.testing.assert_close(L.tensor([1.0]), L.tensor([1.000001])),
    "2-d, index of the worst": lambda L: L.testing.assert_close(L.tensor([[1.0, 2.0], [3.0, 4.0]]), L.tensor([[1.0, 2.0], [3.0, 5.0]])),
    "ints are exact": lambda L: L.testing.assert_close(L.tensor([1, 2, 3]), L.tensor([2, 5, 4])),
    "uint8 difference in int64": lambda L: L.testing.assert_close(L.tensor([1, 2], dtype=L.uint8), L.tensor([3, 2], dtype=L.uint8)),
    "bools": lambda L: L.testing.assert_close(L.tensor([True, False]), L.tensor([True, True])),
    "float16 tolerances": lambda L: L.testing.assert_close(L.tensor([0.0, 1e-4, 3], dtype=L.float16), L.tensor([0.0, 0.0, 3.01], dtype=L.float16)),
    "float64 tolerances": lambda L: L.testing.assert_close(L.tensor([1.0, 1.0], dtype=L.float64), L.tensor([1.0, 1.0 + 2e-7], dtype=L.float64)),
    "dtype differs": lambda L: L.testing.assert_close(L.tensor([1.0]), L.tensor([1.0], dtype=L.float64)),
    "int dtype differs": lambda L: L.testing.assert_close(L.tensor([1, 2]), L.tensor([1, 2], dtype=L.int32)),
    "dtype promoted": lambda L: L.testing.assert_close(L.tensor([1, 3]), L.tensor([1.1, 3], dtype=L.float64), check_dtype=False),
    "shape differs": lambda L: L.testing.assert_close(L.tensor([1.0]), L.tensor([1.0, 2.0])),
    "stride differs": lambda L: L.testing.assert_close(L.arange(6.0).reshape(2, 3).t(), L.arange(6.0).reshape(2, 3).t().contiguous(), check_stride=True),
    "stride unchecked": lambda L: L.testing.assert_close(L.arange(6.0).reshape(2, 3).t(), L.arange(6.0).reshape(2, 3).t().contiguous()),
    "nan not equal": lambda L: L.testing.assert_close(L.tensor([1.0, NAN, 3.0]), L.tensor([2.0, 2.0, 3.0])),
    "nan equal_nan": lambda L: L.testing.assert_close(L.tensor([NAN, 1.0]), L.tensor([NAN, 1.0]), equal_nan=True),
    "0-d nan": lambda L: L.testing.assert_close(L.tensor(NAN), L.tensor(NAN)),
    "0-d": lambda L: L.testing.assert_close(L.tensor(2.0), L.tensor(2.5)),
    "infinities": lambda L: L.testing.assert_close(L.tensor([1.0, INF]), L.tensor([1.0, INF])),
    "opposite infinities": lambda L: L.testing.assert_close(L.tensor([1.0, INF]), L.tensor([1.0, -INF])),
    "expected zero": lambda L: L.testing.assert_close(L.tensor([0.0, 1e-4]), L.tensor([0.0, 0.0])),
    "empty": lambda L: L.testing.assert_close(L.zeros(0, 3), L.zeros(0, 3)),
    "requires_grad": lambda L: L.testing.assert_close(L.tensor([1.0]).requires_grad_(), L.tensor([1.5])),
    "given tolerances": lambda L: L.testing.assert_close(L.tensor([1.0]), L.tensor([1.5]), rtol=0.1, atol=0.1),
    "loose tolerances": lambda L: L.testing.assert_close(L.tensor([1.0]), L.tensor([1.5]), rtol=0.0, atol=0.5),
    "rtol alone": lambda L: L.testing.assert_close(L.tensor([1.0]), L.tensor([1.5]), rtol=0.1),
    "atol alone": lambda L: L.testing.assert_close(L.tensor([1.0]), L.tensor([1.5]), atol=0.1),
    "msg string": lambda L: L.testing.assert_close(L.tensor([1.0]), L.tensor([1.5]), msg="custom"),
    "msg callable, nested": lambda L: L.testing.assert_close([L.tensor([1.0])], [L.tensor([1.5])], msg=lambda m: f"<{m}>"),
    "msg ignored by structure": lambda L: L.testing.assert_close([1.0], [1.0, 2.0], msg="never"),
    "floats": lambda L: L.testing.assert_close(1.0, 1.5),
    "ints": lambda L: L.testing.assert_close(1, 2),
    "int vs float": lambda L: L.testing.assert_close(1, 1.0),
    "int vs float unchecked": lambda L: L.testing.assert_close(1, 1.0, check_dtype=False),
    "numpy scalars": lambda L: L.testing.assert_close(np.float32(1.0), np.float32(1.5)),
    "bools differ": lambda L: L.testing.assert_close(True, False),
    "None": lambda L: L.testing.assert_close(None, 1),
    "list item": lambda L: L.testing.assert_close([1.0, L.tensor(2.0)], [1.0, L.tensor(2.5)]),
    "tuple vs list": lambda L: L.testing.assert_close((1, 2), [1, 2]),
    "lengths": lambda L: L.testing.assert_close([1, 2], [1, 2, 3]),
    "mapping item": lambda L: L.testing.assert_close({"a": [L.tensor(2.0)], "b": 1}, {"a": [L.tensor(2.5)], "b": 1}),
    "mapping keys": lambda L: L.testing.assert_close({"a": L.tensor(2.0)}, {"b": L.tensor(2.0)}),
    "tensor vs list": lambda L: L.testing.assert_close(L.tensor([1.0]), [1.0]),
    "tensor vs float": lambda L: L.testing.assert_close(L.tensor([1.0]), 1.0),
    "strings": lambda L: L.testing.assert_close("a", "a"),
    "numpy arrays": lambda L: L.testing.assert_close(np.array([1.0, 2.0]), np.array([1.0, 2.5])),
    "numpy int arrays": lambda L: L.testing.assert_close(np.array([1, 2]), np.array([1, 3])),
    "numpy vs tensor": lambda L: L.testing.assert_close(np.array([1.0]), L.tensor([1.0])),
    "structure before values": lambda L: L.testing.assert_close([L.tensor(1.0), "a"], [L.tensor(2.0), "a"]),
    "first failure wins": lambda L: L.testing.assert_close([L.tensor(1.0), 1], [L.tensor(1.0), 2]),
    "0-d ints": lambda L: L.testing.assert_close(L.tensor(3), L.tensor(4)),
    "parameter vs tensor": lambda L: L.testing.assert_close(L.nn.Parameter(L.ones(2)), L.ones(2)),
    "subclasses refused": lambda L: L.testing.assert_close(L.nn.Parameter(L.ones(2)), L.ones(2), allow_subclasses=False),
    "state dicts": lambda L: L.testing.assert_close(_filled_state(L), {"weight": L.full((1, 2), 0.5), "bias": L.ones(1)}),
}


@pytest.mark.parametrize("name", list(CASES))
def test_assert_close_like_pytorch(name: str) -> None:
    ours, theirs = both(CASES[name])
    assert ours == theirs


def test_a_negative_tolerance_raises_runtime_error() -> None:
    ours, theirs = both(lambda L: L.testing.assert_close(L.tensor([1.0]), L.tensor([1.5]), rtol=0.0, atol=-1.0))
    assert ours[0] == theirs[0] == "RuntimeError"


@settings(max_examples=budget(30))
@given(st.lists(st.integers(1, 4), min_size=0, max_size=3), st.data())
def test_perturbed_tensors_report_alike(shape: list[int], data: st.DataObject) -> None:
    n = math.prod(shape)
    values = data.draw(st.lists(st.floats(-100, 100, width=32), min_size=n, max_size=n))
    noise = data.draw(st.lists(st.sampled_from([0.0, 1e-7, 1e-5, 1e-3, 1.0, NAN]), min_size=n, max_size=n))
    dtype = data.draw(st.sampled_from(["float32", "float64", "float16", "int64"]))
    base = np.array(values, dtype=np.float64).reshape(shape)
    other = base + np.array(noise, dtype=np.float64).reshape(shape)
    if dtype == "int64":
        base, other = np.round(base), np.round(np.nan_to_num(other))

    def program(L: Any) -> None:
        kind = getattr(L, dtype)
        L.testing.assert_close(L.tensor(base.tolist(), dtype=kind).reshape(shape),
                               L.tensor(other.tolist(), dtype=kind).reshape(shape))

    ours, theirs = both(program)
    assert ours == theirs


def test_assert_allclose_warns_and_promotes() -> None:
    for lib in (jitgrad, torch):
        with pytest.warns(FutureWarning):
            lib.testing.assert_allclose(lib.tensor([1.0, NAN]), [1.00001, NAN])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        ours, theirs = both(lambda L: L.testing.assert_allclose(L.tensor([1.0, 2.0]), [1.0, 2.1]))
    assert ours == theirs and ours[0] == "AssertionError"


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int64", "int32", "int8", "uint8", "bool"])
@pytest.mark.parametrize("noncontiguous", [False, True])
def test_make_tensor_like_pytorch(dtype: str, noncontiguous: bool) -> None:
    made = {lib: lib.testing.make_tensor(3, 4, dtype=getattr(lib, dtype), device="cpu", noncontiguous=noncontiguous)
            for lib in (jitgrad, torch)}
    ours, theirs = made[jitgrad], made[torch]
    assert tuple(ours.shape) == tuple(theirs.shape) == (3, 4)
    assert ours.stride() == theirs.stride() and ours.is_contiguous() == theirs.is_contiguous()
    assert ours.dtype.name == str(theirs.dtype).split(".")[-1]
    values = ours.numpy().astype(np.float64)
    low, high = {"bool": (0, 1), "uint8": (0, 9)}.get(dtype, (-9, 9))
    assert values.min() >= low and values.max() <= high


def test_make_tensor_options_like_pytorch() -> None:
    for lib in (jitgrad, torch):
        t = lib.testing.make_tensor((2, 3), dtype=lib.float64, device="cpu", low=-1e308, high=1e308,
                                    requires_grad=True, exclude_zero=True)
        assert t.requires_grad and t.is_leaf and bool((t != 0).all()) and bool(t.isfinite().all())
        t = lib.testing.make_tensor(50, dtype=lib.int64, device="cpu", low=0, high=2, exclude_zero=True)
        assert bool((t == 1).all())
        t = lib.testing.make_tensor([1], dtype=lib.float32, device="cpu", noncontiguous=True)
        assert t.is_contiguous()  # one element: noncontiguous is ignored


@pytest.mark.parametrize("kwargs", [
    {"dtype": "int64", "requires_grad": True},
    {"dtype": "float32", "low": 2, "high": 1},
    {"dtype": "uint8", "low": -20, "high": -10},
    {"dtype": "float32", "low": NAN},
    {"dtype": "int64", "low": 3, "high": 3},
    {"dtype": "float32", "noncontiguous": True, "memory_format": "contiguous_format"},
])
def test_make_tensor_refuses_like_pytorch(kwargs: dict[str, Any]) -> None:
    def program(L: Any) -> None:
        options = {k: getattr(L, v) if k in ("dtype", "memory_format") else v for k, v in kwargs.items()}
        L.testing.make_tensor(3, 2, device="cpu", **options)

    ours, theirs = both(program)
    assert ours[0] == theirs[0] == "ValueError"
    if "memory_format" not in kwargs:
        assert ours == theirs


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("rtol,atol", [(None, None), (0.0, 1e-3), (1e-2, 0.0), (0.3, 0.07)])
def test_isclose_at_the_tolerance_boundary_like_pytorch(dtype: str, rtol: float | None, atol: float | None) -> None:
    """Pairs a hair either side of ``atol + rtol * |b|``: isclose (what assert_close counts)
    and allclose agree with PyTorch's element by element, float16's roundings included."""
    rng = np.random.default_rng(7)
    if rtol is None:
        rtol, atol = {"float16": (1e-3, 1e-5), "float32": (1.3e-6, 1e-5), "float64": (1e-7, 1e-7)}[dtype]
    b = (rng.standard_normal(4000) * 10.0 ** rng.integers(-6, 4, 4000)).astype(dtype)
    tol = atol + rtol * np.abs(b.astype(np.float64))
    a = (b.astype(np.float64) + tol * rng.uniform(0.97, 1.03, b.size) * rng.choice([-1, 1], b.size)).astype(dtype)
    ours = jitgrad.isclose(jitgrad.from_numpy(a), jitgrad.from_numpy(b), rtol=rtol, atol=atol).numpy()
    theirs = torch.isclose(torch.from_numpy(a), torch.from_numpy(b), rtol=rtol, atol=atol).numpy()
    assert 0 < theirs.sum() < theirs.size and np.array_equal(ours, theirs)
    pairs = [(jitgrad.from_numpy(a[i:i + 1]), torch.from_numpy(a[i:i + 1]), jitgrad.from_numpy(b[i:i + 1]),
              torch.from_numpy(b[i:i + 1])) for i in range(0, a.size, 7)]
    assert ([jitgrad.allclose(x, y, rtol=rtol, atol=atol) for x, _, y, _ in pairs]
            == [torch.allclose(x, y, rtol=rtol, atol=atol) for _, x, _, y in pairs])
