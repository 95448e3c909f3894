"""``mode`` and ``histogram`` side by side with PyTorch (values, indices, edges, gradients,
errors), with Hypothesis over shapes, ties and bins."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import jitgrad
from compat_helpers import both, same

NAN = float("nan")


def _tensor(lib, data, dtype="float64", grad=False):
    return lib.tensor(np.asarray(data), dtype=getattr(lib, dtype), requires_grad=grad)


# -- mode ------------------------------------------------------------------------------------------
@st.composite
def tied_arrays(draw, max_dim=16):
    """Arrays of few distinct values (so ties are common), dims up to ``max_dim`` long."""
    shape = draw(st.lists(st.integers(1, 4), min_size=0, max_size=3))
    if shape:
        shape[draw(st.integers(0, len(shape) - 1))] = draw(st.integers(1, max_dim))
    pool = draw(st.lists(st.sampled_from([-2.0, -0.0, 0.0, 1.0, 1.5, 3.0, np.inf]), min_size=1, max_size=4))
    values = draw(st.lists(st.sampled_from(pool), min_size=int(np.prod(shape)), max_size=int(np.prod(shape))))
    return np.array(values, dtype=np.float64).reshape(shape)


@settings(max_examples=150, deadline=None)
@given(tied_arrays(), st.data())
def test_mode_matches_pytorch_with_ties(data, draw):
    """At most 16 elements along ``dim`` (PyTorch's insertion sort): the same values, indices,
    signs of zero and gradients."""
    dim = draw.draw(st.integers(-max(data.ndim, 1), max(data.ndim, 1) - 1))
    keepdim = draw.draw(st.booleans())

    def program(lib):
        x = _tensor(lib, data, grad=True)
        values, indices = lib.mode(x, dim, keepdim=keepdim)
        (values * _tensor(lib, np.arange(values.numel()).reshape(values.shape) + 1.0)).sum().backward()
        return values, np.signbit(values.detach().numpy()).tolist(), indices, x.grad

    both(program)


@settings(max_examples=60, deadline=None)
@given(st.integers(17, 60), st.integers(1, 4), st.integers(0, 2**32 - 1))
def test_mode_long_dims_give_pytorchs_values_and_indices(n, distinct, seed):
    """Longer dims: the index is the one the C++ library's sort leaves last in the run, as
    PyTorch's (not the last position of the value)."""
    data = np.random.default_rng(seed).integers(0, distinct, (3, n)).astype(np.float64)
    both(lambda lib: tuple(lib.mode(_tensor(lib, data))))


def test_mode_on_other_dtypes_and_shapes():
    for data, dtype in (([1, 1, 2, 2, 5, 5, 5, 0], "int64"), ([True, False, True], "bool"),
                        ([[1, 3], [2, 4]], "int32"), (7.0, "float32"), ([[2.0, 2.0], [1.0, 3.0]], "float32")):
        both(lambda lib: tuple(lib.mode(_tensor(lib, data, dtype))))
        both(lambda lib: tuple(_tensor(lib, data, dtype).mode(0, True)))
    both(lambda lib: tuple(lib.mode(lib.zeros(0, 3), 1)))  # nothing to reduce over: empty results
    both(lambda lib: tuple(lib.mode(_tensor(lib, [[1.0, 2.0], [3.0, 4.0]]).t(), 0)))  # a strided view
    both(lambda lib: type(lib.mode(lib.ones(2))).__name__)


def test_mode_nan_when_pytorch_is_a_sort():
    """NaN in a slice where PyTorch's order is still a sort's: a NaN is a run of its own."""
    for row in ([NAN, NAN, NAN, 1.0, 1.0], [NAN, NAN, 1.0, 1.0], [2.0, NAN, NAN, 1.0], [1.0, NAN], [NAN]):
        both(lambda lib: tuple(lib.mode(_tensor(lib, row))))


def test_mode_nan_order_pytorch():
    """PyTorch's comparator sort leaves [nan, 1] unsorted: the NaN (first) wins."""
    values, indices = torch.mode(torch.tensor([NAN, 1.0]))
    assert np.isnan(values.item()) and indices.item() == 0
    values, indices = torch.mode(torch.tensor([1.0, NAN, 1.0]))
    assert values.item() == 1.0 and indices.item() == 0


@pytest.mark.xfail(strict=True, reason="deliberate: jitgrad sorts NaN last (PyTorch's order with NaN is no sort)")
def test_mode_nan_order_jitgrad():
    values, indices = jitgrad.mode(jitgrad.tensor([NAN, 1.0]))
    assert np.isnan(values.item()) and indices.item() == 0


def test_mode_long_dim_index_is_pytorchs():
    """Above 16 elements PyTorch's index among equal values is std::sort's (not the last)."""
    assert torch.mode(torch.tensor([0.0, 1.0] * 10)).indices.item() != 18
    both(lambda lib: tuple(lib.mode(lib.tensor([0.0, 1.0] * 10))))


def test_mode_gradient_and_node():
    def program(lib):
        x = _tensor(lib, [[3.0, 1.0, 3.0], [2.0, 2.0, 5.0]], grad=True)
        values, _ = x.mode(-1, keepdim=True)
        (g,) = lib.autograd.grad(values.sum(), x, create_graph=True)
        return values.grad_fn.name(), g
    both(program)
    x = jitgrad.tensor([[3.0, 1.0, 3.0], [2.0, 2.0, 5.0]], dtype=jitgrad.float64, requires_grad=True)
    assert jitgrad.autograd.gradcheck(lambda t: jitgrad.mode(t, 0).values, (x,))


@pytest.mark.parametrize("call, fragment", [
    (lambda lib: lib.mode(lib.zeros(0)), None),
    (lambda lib: lib.mode(lib.zeros(2, 0), 1), None),
    (lambda lib: lib.mode(lib.zeros(2, 3), 2), "Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
    (lambda lib: lib.mode(lib.zeros(2, 3), -3), "Dimension out of range (expected to be in range of [-2, 1], but got -3)"),
    (lambda lib: lib.mode(lib.zeros(2, 3), 1.5), "mode()"),
])
def test_mode_bad_input_raises_as_pytorch(call, fragment):
    both(call, fragment)


def test_mode_bad_input_changes_nothing():
    x = jitgrad.tensor([1.0, 2.0], requires_grad=True)
    version = x._version
    with pytest.raises(IndexError, match="mode"):
        jitgrad.mode(x, 3)
    with pytest.raises(TypeError, match="mode"):
        jitgrad.mode([1.0, 2.0])
    assert x._version == version and x.grad is None and x.tolist() == [1.0, 2.0]


# -- histogram -------------------------------------------------------------------------------------
finite = st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False)


@settings(max_examples=150, deadline=None)
@given(st.lists(finite, min_size=0, max_size=30), st.integers(1, 12), st.booleans(), st.booleans(),
       st.sampled_from([None, (0.0, 1.0), (-5.0, 5.0), (2.0, 2.0), (-1e3, 0.0)]), st.sampled_from(["float64", "float32"]))
def test_histogram_int_bins_matches_pytorch(values, bins, weighted, density, range_, dtype):
    weights = np.random.default_rng(len(values)).uniform(-1, 2, len(values))

    def program(lib):
        x = _tensor(lib, values, dtype)
        w = _tensor(lib, weights, dtype) if weighted else None
        return tuple(lib.histogram(x, bins, range=range_, weight=w, density=density))

    if dtype == "float64":
        both(program)
    else:  # PyTorch sums float32 weights in float32, jitgrad in float64 (then rounds)
        ours, theirs = program(jitgrad), program(torch)
        same(ours[1], theirs[1])
        np.testing.assert_allclose(ours[0].numpy(), theirs[0].numpy(), rtol=1e-5, atol=1e-5)


@settings(max_examples=100, deadline=None)
@given(st.lists(finite, min_size=0, max_size=30), st.lists(finite, min_size=1, max_size=8, unique=True),
       st.booleans(), st.booleans())
def test_histogram_tensor_bins_matches_pytorch(values, edges, weighted, density):
    """Edge tensors (repeats allowed, including data on the edges)."""
    edges = sorted(edges + edges[:1])
    values = values + edges[:2]
    weights = np.linspace(0.5, 2.0, len(values))

    def program(lib):
        w = _tensor(lib, weights) if weighted else None
        return tuple(_tensor(lib, values).histogram(_tensor(lib, edges), weight=w, density=density))

    both(program)


def test_histogram_edge_cases_match_pytorch():
    x = [1.0, 2.0, 1.0, 4.0, 2.5, 7.0]
    both(lambda lib: tuple(lib.histogram(_tensor(lib, [3.0, 3.0], "float32"), 2)))  # one value: widened by 1/2
    both(lambda lib: tuple(lib.histogram(lib.zeros(0), 2, density=True)))  # nothing: [0, 1], nan density
    both(lambda lib: tuple(lib.histogram(_tensor(lib, [NAN, 1.0, np.inf]), 2, range=(0.0, 2.0))))
    both(lambda lib: tuple(lib.histogram(_tensor(lib, x).reshape(2, 3), 2, weight=_tensor(lib, x))))
    both(lambda lib: tuple(lib.histogram(_tensor(lib, x), 3, range=(1, 5))))
    both(lambda lib: tuple(lib.histogram(_tensor(lib, x), _tensor(lib, [3.0, 1.0]))))
    both(lambda lib: tuple(lib.histogram(_tensor(lib, 3.0), 2)))
    both(lambda lib: type(lib.histogram(_tensor(lib, x))).__name__)
    both(lambda lib: tuple(lib.histogram(_tensor(lib, x))))  # 100 bins by default


def test_histogram_is_not_differentiable_as_pytorch():
    def program(lib):
        x = _tensor(lib, [1.0, 2.0, 4.0], grad=True)
        hist, edges = lib.histogram(x, 2)
        assert hist.grad_fn is edges.grad_fn
        return hist.requires_grad, edges.requires_grad, hist.grad_fn.name(), hist.sum().backward()
    both(program)
    both(lambda lib: lib.histogram(_tensor(lib, [1.0]), 2, weight=_tensor(lib, [1.0], grad=True)).hist.requires_grad)
    both(lambda lib: lib.histogram(_tensor(lib, [1.0]), 2).hist.requires_grad)


@pytest.mark.parametrize("call, fragment", [
    (lambda lib: lib.histogram(_tensor(lib, [1, 2], "int64"), 2), "not implemented for"),
    (lambda lib: lib.histogram(_tensor(lib, [1.0], "float16"), 2), "not implemented for"),
    (lambda lib: lib.histogram(_tensor(lib, [1.0]), 0), "bins must be > 0, but got 0"),
    (lambda lib: lib.histogram(_tensor(lib, [1.0]), -1), "bins must be > 0, but got -1"),
    (lambda lib: lib.histogram(_tensor(lib, [1.0]), 2, range=(3.0, 1.0)), "min should not exceed max"),
    (lambda lib: lib.histogram(_tensor(lib, [1.0]), 2, range=(1.0, 2.0, 3.0)), "should have 2 elements, but got 3"),
    (lambda lib: lib.histogram(_tensor(lib, [1.0]), 2, range=(0.0, np.inf)), "is not finite"),
    (lambda lib: lib.histogram(_tensor(lib, [1.0, NAN]), 2), "is not finite"),
    (lambda lib: lib.histogram(_tensor(lib, [1.0, 2.0]), 2, weight=_tensor(lib, [1.0])), "same shape as the input"),
    (lambda lib: lib.histogram(_tensor(lib, [1.0]), 2, weight=_tensor(lib, [1.0], "float32")), "same dtype"),
    (lambda lib: lib.histogram(_tensor(lib, [1.0]), _tensor(lib, [1.0, 2.0], "float32")), "same dtype"),
    (lambda lib: lib.histogram(_tensor(lib, [1.0]), _tensor(lib, 1.0)), "should have one dimension, but got 0"),
    (lambda lib: lib.histogram(_tensor(lib, [1.0]), _tensor(lib, [])), "at least 1 element, but got 0"),
    (lambda lib: lib.histogram(_tensor(lib, [1.0]), 2.5), "histogram()"),
    (lambda lib: lib.histogram([1.0, 2.0], 2), "histogram()"),
])
def test_histogram_bad_input_raises_as_pytorch(call, fragment):
    both(call, fragment=fragment)


def test_histogram_bad_input_changes_nothing():
    x = jitgrad.tensor([1.0, 2.0], requires_grad=True)
    w = jitgrad.tensor([1.0])
    with pytest.raises(RuntimeError, match="histogram"):
        jitgrad.histogram(x, 2, weight=w)
    assert x._version == 0 and x.grad is None and x.tolist() == [1.0, 2.0] and w.tolist() == [1.0]


# -- histogramdd -------------------------------------------------------------------------------------
@settings(max_examples=100, deadline=None)
@given(st.integers(0, 25), st.integers(1, 3), st.data(), st.booleans(), st.booleans())
def test_histogramdd_matches_pytorch(n, ndim, draw, weighted, density):
    rng = np.random.default_rng(n * 7 + ndim)
    points = np.round(rng.normal(size=(n, ndim)) * 4) / 4  # (values on the edges too)
    kind = draw.draw(st.sampled_from(["int", "ints", "tensors", "range"]))
    counts = [draw.draw(st.integers(1, 5)) for _ in range(ndim)]
    weights = rng.uniform(0.5, 2.0, n)

    def program(lib):
        bins = {"int": counts[0], "ints": counts, "range": counts,
                "tensors": [_tensor(lib, np.sort(rng_edges)) for rng_edges in edge_lists]}[kind]
        kwargs = {"range": [v for d in range(ndim) for v in (-1.0 - d, 1.0 + d)]} if kind == "range" else {}
        w = _tensor(lib, weights) if weighted else None
        hist, edges = lib.histogramdd(_tensor(lib, points), bins, weight=w, density=density, **kwargs)
        return hist, list(edges)

    edge_lists = [np.unique(np.round(np.random.default_rng(d).normal(size=4) * 4) / 4) for d in range(ndim)]
    both(program)


def test_histogramdd_cases_and_gradients_as_pytorch():
    x = [[0.0, 1.0], [1.0, 0.0], [2.0, 0.0], [2.0, 2.0], [0.5, 1.5]]
    both(lambda lib: type(lib.histogramdd(_tensor(lib, x), bins=2)).__name__)
    both(lambda lib: tuple(lib.histogramdd(_tensor(lib, x).reshape(5, 1, 2), bins=[2, 3])))
    both(lambda lib: tuple(lib.histogramdd(_tensor(lib, x)[:, :1], bins=3)))
    both(lambda lib: tuple(lib.histogramdd(_tensor(lib, x, "float32"), bins=2, range=[0.0, 1.0, 0.0, 1.0], density=True)))
    both(lambda lib: tuple(lib.histogramdd(lib.zeros(3, 0, dtype=lib.float64), bins=2)))
    both(lambda lib: lib.histogramdd(_tensor(lib, x), bins=[_tensor(lib, [0.0, 1.0])] * 2, range=[0.0, 1.0, 0.0, 1.0]).hist)

    def grads(lib):
        p = _tensor(lib, x, grad=True)
        h = lib.histogramdd(p, bins=2)
        bins = _tensor(lib, [0.0, 1.0, 2.0])
        h2 = lib.histogramdd(p, bins=[bins, bins])
        out = [h.hist.requires_grad, h.bin_edges[0].requires_grad, h2.bin_edges[0] is bins,
               h2.bin_edges[0].requires_grad]
        for t in (h.hist, h.bin_edges[1], h2.hist):
            try:
                t.sum().backward()
            except RuntimeError as e:
                out.append(str(e))
        return out
    both(grads)


@pytest.mark.parametrize("call, fragment", [
    (lambda lib: lib.histogramdd(_tensor(lib, [[0.0, 1.0]]), bins=[2, 2, 2]), None),
    (lambda lib: lib.histogramdd(_tensor(lib, [[0.0, 1.0]]), bins=2, range=[0.0, 1.0]), None),
    (lambda lib: lib.histogramdd(_tensor(lib, [0.0, 1.0]), bins=2), None),
    (lambda lib: lib.histogramdd(_tensor(lib, [[0.0, 1.0]]), bins=[2, 0]), None),
    (lambda lib: lib.histogramdd(_tensor(lib, [[0.0, 1.0]]), bins=2, range=(0.0, 1.0, 2.0, 1.0)), "min should not exceed max"),
    (lambda lib: lib.histogramdd(_tensor(lib, [[0.0, 1.0]]), bins=[_tensor(lib, [0.0, 1.0]), _tensor(lib, [0.0, 1.0], "float32")]),
     "bins tensors should have the same dtype, but got input with dtype"),
    (lambda lib: lib.histogramdd(_tensor(lib, [[0.0, 1.0]] * 3), bins=2, weight=_tensor(lib, [1.0, 1.0])), None),
    (lambda lib: lib.histogramdd(_tensor(lib, [[0, 1]], "int32"), bins=2), "not implemented for"),
    (lambda lib: lib.histogramdd(_tensor(lib, [[0.0, 1.0]]), bins=[_tensor(lib, [[0.0, 1.0]])] * 2), None),
    (lambda lib: lib.histogramdd(_tensor(lib, [[NAN, 1.0]]), bins=2), None),
])
def test_histogramdd_bad_input_raises_as_pytorch(call, fragment):
    both(call, fragment)


@settings(max_examples=100, deadline=None)
@given(st.floats(-1e6, 1e6), st.floats(1e-9, 1e6), st.integers(1, 300), st.sampled_from([np.float64, np.float32]),
       st.integers(0, 2**32 - 1))
def test_interpolated_bins_equal_a_binary_search(lo, width, bins, dtype, seed):
    """The int-bins shortcut (interpolate, then check against the edges) finds searchsorted's
    bin for every value inside, edges and their neighbours included."""
    from jitgrad.ops.frequency import _bin_of

    edges = jitgrad.linspace(lo, lo + width, bins + 1, dtype=jitgrad.float64 if dtype is np.float64 else jitgrad.float32)
    e = edges.numpy()
    rng = np.random.default_rng(seed)
    values = np.concatenate([e, np.nextafter(e, np.inf, dtype=dtype), np.nextafter(e, -np.inf, dtype=dtype),
                             rng.uniform(e[0], e[-1], 200).astype(dtype), [np.nan, np.inf]]).astype(dtype)
    inside, fast = _bin_of(values, e, linear=True)
    inside2, slow = _bin_of(values, e, linear=False)
    assert np.array_equal(inside, inside2)
    assert np.array_equal(fast[inside], slow[inside])
