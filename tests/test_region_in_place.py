"""CopySlices's backward on data with a node that works in the view's region itself
(``Node.writes_strided``: ``MulBackward0``), against the path that copies the region into a
dense piece and back (the flag off) and against PyTorch, bit for bit, float32 and float64.

A program: ``b = x * c0`` (a leaf ``x`` with some nan/inf), one to three ``mul_`` writes
through strided views of ``b`` (slices with steps, transposes, selects, a diagonal), by a
number or by a tensor with or without history (one of the view's shape: ``mul_grads``
writes its gradient into the region and passes it on; a 0-d one: summed), then the sum of
``b`` (an expanded gradient) or of ``b * wts`` (a dense one).
"""

from __future__ import annotations

import contextlib
from typing import Any, Callable, Iterator

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import jitgrad
from conftest import budget
from jitgrad import regions
from jitgrad.autograd.view_mode import view_replay
from jitgrad.ops.elementwise import MulBackward0

FACTORS = (2.0, -0.5, 1.0, 3, 0.0, float("inf"), "tensor", "tensor_grad", "scalar_grad")


@contextlib.contextmanager
def copied_piece() -> Iterator[None]:
    """CopySlices copies the region into a dense piece and back (the path before
    ``writes_strided``)."""
    MulBackward0.writes_strided = False
    try:
        yield
    finally:
        MulBackward0.writes_strided = True


def _view(b: Any, kind: str, k: int) -> Any:
    rows, cols = b.shape
    if kind == "strided":
        return b[k % 2::2, 1:cols - 1 if cols > 2 else cols]
    if kind == "rows":  # contiguous whole rows
        return b[k % rows:]
    if kind == "column":
        return b[:, k % cols]
    if kind == "row_step":
        return b[k % rows, ::2]
    if kind == "transposed":
        return b.t()[k % cols::3]
    if kind == "diagonal":
        return b.diagonal()
    return b[k % rows, k % cols]  # a cell


@st.composite
def programs(draw: Callable[..., Any]) -> dict[str, Any]:
    writes = [(draw(st.sampled_from(("strided", "rows", "column", "row_step", "transposed",
                                     "diagonal", "cell"))),
               draw(st.integers(0, 99)), draw(st.sampled_from(FACTORS)))
              for _ in range(draw(st.integers(1, 3)))]
    return {"shape": (draw(st.integers(1, 9)), draw(st.integers(1, 9))),
            "dtype": draw(st.sampled_from(("float32", "float64"))),
            "c0": draw(st.sampled_from((1.0, 1.5, -2.0))), "writes": writes,
            "loss": draw(st.sampled_from(("sum", "weighted"))), "seed": draw(st.integers(0, 99)),
            "replay": draw(st.booleans())}


def run(lib: Any, program: dict[str, Any]) -> list[np.ndarray]:
    dtype = getattr(lib, program["dtype"])
    rng = np.random.default_rng(program["seed"])
    shape = program["shape"]
    values = rng.standard_normal(shape)
    values.flat[rng.integers(0, values.size, 2)] = (np.nan, np.inf)
    x = lib.tensor(values, dtype=dtype, requires_grad=True)
    leaves = [x]
    b = x * program["c0"]
    for kind, k, factor in program["writes"]:
        view = _view(b, kind, k)
        if factor == "tensor":
            factor = lib.tensor(rng.standard_normal(tuple(view.shape)), dtype=dtype)
        elif factor == "tensor_grad":
            factor = lib.tensor(rng.standard_normal(tuple(view.shape)), dtype=dtype, requires_grad=True)
            leaves.append(factor)
        elif factor == "scalar_grad":
            factor = lib.tensor(rng.standard_normal(()), dtype=dtype, requires_grad=True)
            leaves.append(factor)
        view.mul_(factor)
    if program["loss"] == "sum":
        loss = b.sum()
    else:
        loss = (b * lib.tensor(rng.standard_normal(shape), dtype=dtype)).sum()
    loss.backward()
    return [leaf.grad.detach().numpy().copy() for leaf in leaves]


def _same(got: list[np.ndarray], expected: list[np.ndarray], summed_exactly: bool = True) -> None:
    """Bit for bit; a 0-d factor's gradient (a sum) only to rounding unless
    ``summed_exactly``: PyTorch's reductions add in another order than NumPy's."""
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert g.dtype == e.dtype and g.shape == e.shape
        if g.ndim == 0 and not summed_exactly:
            np.testing.assert_allclose(g, e, rtol=1e-5 if g.dtype == np.float32 else 1e-12)
        else:
            np.testing.assert_array_equal(g.reshape(-1).view(np.uint8), e.reshape(-1).view(np.uint8))


def _three_ways(program: dict[str, Any]) -> None:
    with view_replay(program["replay"]):
        in_region = run(jitgrad, program)
        with copied_piece():
            piece = run(jitgrad, program)
    _same(in_region, piece)
    _same(in_region, run(torch, program), summed_exactly=False)


@settings(max_examples=budget(300))
@given(programs())
def test_region_in_place_matches_copied_piece_and_pytorch(program: dict[str, Any]) -> None:
    _three_ways(program)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("factor", FACTORS)
@pytest.mark.parametrize("kind", ["strided", "rows", "transposed", "column"])
def test_each_write(dtype: str, factor: Any, kind: str) -> None:
    _three_ways({"shape": (6, 7), "dtype": dtype, "c0": 1.5, "writes": [(kind, 1, factor)],
                 "loss": "sum", "seed": 0, "replay": False})


def test_the_region_is_not_copied() -> None:
    """The bench's ``strided_inplace`` (small): one copy (the expanded gradient into the
    base's layout) instead of three (that, the region into a piece and back)."""
    calls = [0]
    copy = regions.copy_region

    def spy(*args: Any) -> None:
        calls[0] += 1
        copy(*args)

    def backward() -> int:
        x = jitgrad.randn(64, 64, requires_grad=True)
        b = x * 1.0
        b[::2, 1:-1].mul_(2)
        calls[0] = 0
        regions.copy_region = spy
        try:
            b.sum().backward()
        finally:
            regions.copy_region = copy
        return calls[0]

    assert backward() == 1
    with copied_piece():
        assert backward() == 3


def test_a_gradient_passed_on_is_a_buffer_of_its_own() -> None:
    """``mul_grads`` writes the factor's gradient into the region (whole rows: contiguous)
    and passes it on; CopySlices copies it out before writing the view's gradient back, and
    the copy may be overwritten by the next node without touching ``x.grad``."""
    for lib in (jitgrad, torch):
        x = lib.arange(12.0).reshape(3, 4).requires_grad_()
        w = lib.full((2, 4), 3.0, requires_grad=True)
        b = x * 1.0
        b[1:].mul_(w)
        (b.sum() * 1.0).backward()
        assert x.grad.tolist() == [[1.0] * 4, [3.0] * 4, [3.0] * 4]
        assert w.grad.tolist() == [[4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0]]
