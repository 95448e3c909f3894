"""The strides of elementwise results against PyTorch's TensorIterator (``compute_strides``,
``reorder_dimensions``, ``fast_set_up``): random strided views (size-1 and size-0 dims,
transposes, gaps, expanded and overlapping dims) through unary ops, binary ops of one shape,
broadcasting binary ops and ops with a Python number or a 0-d tensor, including the inputs
the lean paths take (contiguous, row-major blocks; Note [Lean paths])."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest
import torch
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import jitgrad
from conftest import budget

OPS: dict[str, Callable[[Any, Any, Any], Any]] = {
    "sin": lambda L, a, b: a.sin(),
    "neg": lambda L, a, b: -a,
    "exp": lambda L, a, b: L.exp(a),
    "mul_number": lambda L, a, b: a * 2.0,
    "number_sub": lambda L, a, b: 1.0 - a,
    "add_0d": lambda L, a, b: a + L.tensor(1.5, dtype=L.float64),
    "add": lambda L, a, b: a + b,
    "mul": lambda L, a, b: b * a,
    "maximum": lambda L, a, b: L.maximum(a, b),
    "atan2": lambda L, a, b: L.atan2(a, b),
    "gt_number": lambda L, a, b: a > 1.0,
    "le": lambda L, a, b: a <= b,
    "where_number": lambda L, a, b: L.where(a > 2.0, a, 0.0),
    "where": lambda L, a, b: L.where(b > 2.0, a, b),
    "lerp_number": lambda L, a, b: L.lerp(a, b, 0.25),
    "lerp": lambda L, a, b: L.lerp(a, b, b),
    "clamp_number": lambda L, a, b: a.clamp(min=1.0),
    "clamp": lambda L, a, b: a.clamp(min=b),
    "pow_number": lambda L, a, b: a ** 3.0,
    "number_pow": lambda L, a, b: 3.0 ** a,
    "pow": lambda L, a, b: a ** b,
    "fmod_number": lambda L, a, b: L.fmod(a, 2.0),
    "addcmul": lambda L, a, b: L.addcmul(a, b, a, value=0.5),
    "sigmoid": lambda L, a, b: L.sigmoid(a),
    "logical_not": lambda L, a, b: L.logical_not(a),
    "bitwise_not": lambda L, a, b: ~(a > 2.0),
    "isnan": lambda L, a, b: L.isnan(a),
    "masked_fill": lambda L, a, b: a.masked_fill(b > 2.0, 0.5),
    "xlogy_number": lambda L, a, b: L.xlogy(a, 2.0),
    "remainder_number": lambda L, a, b: L.remainder(a, 2.0),
    "hypot": lambda L, a, b: L.hypot(a, b),
    "abs": lambda L, a, b: a.abs(),
    "to_float32": lambda L, a, b: a.to(L.float32),
    "clone": lambda L, a, b: a.clone(),
}


@st.composite
def views(draw: Any, shape: tuple[int, ...] | None = None) -> tuple[tuple[int, ...], tuple[int, ...], int]:
    """A geometry over a 64-element buffer: sizes, strides (0 and overlaps allowed), offset."""
    if shape is None:
        shape = tuple(draw(st.lists(st.integers(0, 3), min_size=0, max_size=4)))
    kind = draw(st.sampled_from(["contiguous", "permuted", "sliced", "random"]))
    n = len(shape)
    if kind == "contiguous":
        strides = tuple(int(np.prod(shape[d + 1:], dtype=np.int64)) or 1 for d in range(n))
    elif kind == "permuted":  # a contiguous tensor of permuted shape, permuted back
        perm = draw(st.permutations(range(n)))
        inner = [shape[p] for p in perm]
        inner_strides = [int(np.prod(inner[k + 1:], dtype=np.int64)) or 1 for k in range(n)]
        strides = tuple(inner_strides[perm.index(d)] for d in range(n))
    elif kind == "sliced":  # a row-major block of a larger table
        strides_list, acc = [], 1
        for d in range(n - 1, -1, -1):
            strides_list.append(acc)
            acc *= shape[d] + draw(st.integers(0, 2))
        strides = tuple(reversed(strides_list))
    else:
        strides = tuple(draw(st.lists(st.integers(0, 9), min_size=n, max_size=n)))
    reach = sum((s - 1) * t for s, t in zip(shape, strides)) if 0 not in shape else 0
    if reach >= 64:
        strides = tuple(1 for _ in shape)
        reach = sum(s - 1 for s in shape) if 0 not in shape else 0
    offset = draw(st.integers(0, max(0, min(5, 63 - reach))))
    return shape, strides, offset


def _make(L: Any, geometry: tuple[tuple[int, ...], tuple[int, ...], int]) -> Any:
    base = L.arange(64, dtype=L.float64) * 0.5 + 0.25
    sizes, strides, offset = geometry
    return base.as_strided(sizes, strides, offset)


def _broadcastable(draw: Any, shape: tuple[int, ...]) -> tuple[int, ...]:
    keep = draw(st.integers(0, len(shape)))
    return tuple(1 if draw(st.booleans()) else s for s in shape[len(shape) - keep:])


@settings(max_examples=budget(400), deadline=None)
@given(st.data())
def test_elementwise_result_strides_match_pytorch(data: Any) -> None:
    ga = data.draw(views())
    broadcast = data.draw(st.booleans())
    shape_b = _broadcastable(data.draw, ga[0]) if broadcast else ga[0]
    if broadcast and data.draw(st.booleans()):  # a the broadcast one, b of the full shape
        ga, shape_b = data.draw(views(_broadcastable(data.draw, ga[0]))), ga[0]
    gb = data.draw(views(shape_b))
    name = data.draw(st.sampled_from(sorted(OPS)))
    # (an empty contiguous tensor with a number or a 0-d tensor takes the lean path, which keeps its strides:
    # see test_lean_path_keeps_an_empty_tensors_strides_with_a_number)
    assume(not (0 in ga[0] + gb[0] and (name in NUMBER_OPS or not ga[0] or not gb[0])))
    results = []
    for L in (jitgrad, torch):
        a, b = _make(L, ga), _make(L, gb)
        results.append(OPS[name](L, a, b))
    ours, theirs = results
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert ours.stride() == theirs.stride(), (name, ga, gb)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-15)  # (atan2: an ulp)


NUMBER_OPS = ("mul_number", "number_sub", "add_0d", "gt_number", "where_number", "lerp_number",
              "clamp_number", "pow_number", "number_pow", "fmod_number", "xlogy_number",
              "remainder_number")


def test_an_empty_tensor_times_a_number_has_pytorchs_strides() -> None:
    """(lean_binary leaves empty operands to the general path, which orders dims as PyTorch.)"""
    ours = jitgrad.empty(0, 1, dtype=jitgrad.float64) * 2.0
    assert ours.stride() == (torch.empty(0, 1, dtype=torch.float64) * 2.0).stride() == (1, 0)


def _transposed_row() -> Callable[[Any], Any]:
    return lambda L: (L.arange(3.0, dtype=L.float64).reshape(1, 3) * 1.0)[0:1, 0:2].t()


CASES: dict[str, Callable[[Any], Any]] = {
    # a (2, 1) view with stride 3 on its size-1 dim is contiguous to PyTorch: the sum of two
    # such is contiguous ((1, 1)), their product with a number is not (the number is an operand)
    "size1_sum": lambda L: (lambda a: a + a * 2.0)(_transposed_row()(L)),
    "size1_number": lambda L: _transposed_row()(L) * 2.0,
    "size1_unary": lambda L: _transposed_row()(L).sin(),
    "size1_broadcast": lambda L: _transposed_row()(L) * L.ones(1, dtype=L.float64),
    "size1_full_shape": lambda L: _transposed_row()(L) + L.ones(2, 1, dtype=L.float64),
    "channels_last": lambda L: (lambda x: x + x)(L.ones(2, 3, 4, 5, dtype=L.float64).permute(0, 2, 3, 1).permute(0, 3, 1, 2)),
    "dense_permuted": lambda L: (lambda x: x * x)(L.ones(2, 3, 4, dtype=L.float64).permute(2, 0, 1)),
    "dense_permuted_number": lambda L: L.ones(2, 3, 4, dtype=L.float64).permute(2, 0, 1) * 3.0,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_result_strides_cases_match_pytorch(name: str) -> None:
    ours, theirs = CASES[name](jitgrad), CASES[name](torch)
    assert ours.stride() == theirs.stride()
    np.testing.assert_array_equal(ours.detach().numpy(), theirs.detach().numpy())
