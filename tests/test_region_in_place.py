"""CopySlices's backward on data with a node that works in the view's region itself
(``Node.writes_strided``: ``MulBackward0``), against the path that copies the region into a
dense piece and back (the flag off) and against PyTorch, bit for bit, float32 and float64.

A program: ``b = x * c0`` (a leaf ``x`` with some nan/inf), one to three ``mul_`` writes
through strided views of ``b`` (slices with steps, transposes, selects, a diagonal), by a
number or by a tensor with or without history (of the view's shape, of its last dim, 0-d:
with history, the factor needs a gradient and CopySlices copies the region into a piece as
before, so that the factor's sum is taken in the same order), then the sum of ``b`` (an
expanded gradient) or of ``b * wts`` (a dense one).
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

FACTORS = (2.0, -0.5, 1.0, 3, 0.0, float("inf"), "tensor", "tensor_grad", "scalar_grad",
           "broadcast_grad")


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


def run(lib: Any, program: dict[str, Any]) -> list[tuple[np.ndarray, bool]]:
    """Each leaf's gradient, and whether it is a sum over broadcast dims."""
    dtype = getattr(lib, program["dtype"])
    rng = np.random.default_rng(program["seed"])
    shape = program["shape"]
    values = rng.standard_normal(shape)
    values.flat[rng.integers(0, values.size, 2)] = (np.nan, np.inf)
    x = lib.tensor(values, dtype=dtype, requires_grad=True)
    leaves, summed = [x], [False]
    b = x * program["c0"]
    for kind, k, factor in program["writes"]:
        view = _view(b, kind, k)
        if factor == "tensor":
            factor = lib.tensor(rng.standard_normal(tuple(view.shape)), dtype=dtype)
        elif factor == "tensor_grad":
            factor = lib.tensor(rng.standard_normal(tuple(view.shape)), dtype=dtype, requires_grad=True)
            leaves.append(factor)
            summed.append(False)
        elif factor == "broadcast_grad":  # the view's last dim only: summed by the engine
            factor = lib.tensor(rng.standard_normal(tuple(view.shape)[-1:]), dtype=dtype, requires_grad=True)
            leaves.append(factor)
            summed.append(view.dim() > 1)
        elif factor == "scalar_grad":
            factor = lib.tensor(rng.standard_normal(()), dtype=dtype, requires_grad=True)
            leaves.append(factor)
            summed.append(view.dim() > 0)
        view.mul_(factor)
    if program["loss"] == "sum":
        loss = b.sum()
    else:
        loss = (b * lib.tensor(rng.standard_normal(shape), dtype=dtype)).sum()
    loss.backward()
    return [(leaf.grad.detach().numpy().copy(), k) for leaf, k in zip(leaves, summed)]


def _same(got: list[tuple[np.ndarray, bool]], expected: list[tuple[np.ndarray, bool]],
          summed_exactly: bool = True) -> None:
    """Bit for bit; a factor's gradient summed over broadcast dims only to rounding unless
    ``summed_exactly``: PyTorch's reductions add in another order than NumPy's."""
    assert len(got) == len(expected)
    for (g, summed), (e, _) in zip(got, expected):
        assert g.dtype == e.dtype and g.shape == e.shape
        if summed and not summed_exactly:
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


def _copies(program: Callable[[], Any]) -> int:
    """How many ``regions.copy_region`` calls the backward of ``program()`` makes."""
    calls = [0]
    copy = regions.copy_region

    def spy(*args: Any) -> None:
        calls[0] += 1
        copy(*args)

    loss = program()
    regions.copy_region = spy
    try:
        loss.backward()
    finally:
        regions.copy_region = copy
    return calls[0]


def _strided_inplace(factor: Any = 2) -> Callable[[], Any]:
    def program() -> Any:
        x = jitgrad.randn(64, 64, requires_grad=True)
        b = x * 1.0
        b[::2, 1:-1].mul_(factor() if callable(factor) else factor)
        return b.sum()
    return program


def test_the_region_is_not_copied() -> None:
    """The bench's ``strided_inplace`` (small): one copy (the expanded gradient into the
    base's layout) instead of three (that, the region into a piece and back)."""
    assert _copies(_strided_inplace()) == 1
    with copied_piece():
        assert _copies(_strided_inplace()) == 3


def test_a_factor_that_needs_a_gradient_gets_a_piece() -> None:
    factor = _strided_inplace(lambda: jitgrad.tensor(2.0, requires_grad=True))
    assert _copies(factor) == 3


def test_a_factor_of_the_views_shape_with_history() -> None:
    """Whole rows (contiguous): ``mul_grads`` writes the factor's gradient into the piece it
    is handed and passes it on; the view's gradient is written back from a fresh buffer."""
    for lib in (jitgrad, torch):
        x = lib.arange(12.0).reshape(3, 4).requires_grad_()
        w = lib.full((2, 4), 3.0, requires_grad=True)
        b = x * 1.0
        b[1:].mul_(w)
        (b.sum() * 1.0).backward()
        assert x.grad.tolist() == [[1.0] * 4, [3.0] * 4, [3.0] * 4]
        assert w.grad.tolist() == [[4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0]]
