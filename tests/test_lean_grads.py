"""The lean backward formulas (``jitgrad/ops/lean_grads.py``): the backward of ``a * b``,
``a / b``, ``a - b`` and ``a * number`` on data, against the general formulas (bit for bit)
and PyTorch."""

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
from jitgrad.ops import elementwise
from lean_switch import counted, declined, replaced

OPS: dict[str, Callable[[Any, Any], Any]] = {
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "sub": lambda a, b: a - b,
    # (ints up to 2**24 are multiplied as floats: scaled; 2**24 + 1 is not one in float32)
    "mul_number": lambda a, b: a * 2.5 + b * -3 + b * (2**40 + 1) + a * 2**24 - b * (2**24 + 1),
}
LEAN = {"mul": "mul_grads", "div": "div_grads", "sub": "negated", "mul_number": "scaled"}

VALUES = st.one_of(
    st.floats(-4, 4, allow_nan=False, width=32).filter(lambda v: abs(v) > 1e-3),
    st.sampled_from([0.0, -0.0, float("inf"), -float("inf"), float("nan"), 1e300, -1e-300, 3.0]),
)


@contextlib.contextmanager
def general(op: str) -> Iterator[None]:
    with declined(elementwise, LEAN[op], None):
        yield


def _grads(lib: Any, op: str, a: np.ndarray, b: np.ndarray, dtype: str, needs: tuple[bool, bool],
           g: np.ndarray, twice: bool = False) -> list[np.ndarray | None]:
    dt = getattr(lib, dtype)
    x = lib.tensor(a, dtype=dt, requires_grad=needs[0])
    y = lib.tensor(b, dtype=dt, requires_grad=needs[1])
    w = lib.tensor(g, dtype=dt)
    out = OPS[op](x, y)
    if twice:  # two gradients summed: the node gets a buffer the engine owns
        ((out * w).sum() + (out * 0.5).sum()).backward()
    else:
        (out * w).sum().backward()
    return [None if t.grad is None else np.array(t.grad.detach().numpy()) for t in (x, y)]


def _bits(values: list[np.ndarray | None]) -> list[bytes | None]:
    return [None if v is None else v.tobytes() + str(v.shape).encode() for v in values]


@st.composite
def cases(draw: Callable[..., Any]) -> tuple[Any, ...]:
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=0, max_size=2)))
    a_shape = shape if draw(st.booleans()) else ()
    b_shape = shape if draw(st.booleans()) else ()
    if not a_shape and not b_shape:
        shape = ()
    out_shape = np.broadcast_shapes(a_shape, b_shape)

    def arr(s: tuple[int, ...]) -> np.ndarray:
        k = int(np.prod(s))
        return np.array(draw(st.lists(VALUES, min_size=k, max_size=k)), dtype=np.float64).reshape(s)

    needs = draw(st.sampled_from([(True, True), (True, False), (False, True)]))
    return (draw(st.sampled_from(sorted(OPS))), arr(a_shape), arr(b_shape),
            draw(st.sampled_from(["float64", "float32"])), needs, arr(out_shape), draw(st.booleans()))


@settings(max_examples=budget(400), deadline=None)
@given(cases())
def test_lean_formulas_are_the_general_ones_bit_for_bit(case: tuple[Any, ...]) -> None:
    op, a, b, dtype, needs, g, twice = case
    taken = [0]
    with counted(elementwise, LEAN[op], taken, lambda out: out is not None):
        lean = _grads(jitgrad, op, a, b, dtype, needs, g, twice)
    with general(op):
        slow = _grads(jitgrad, op, a, b, dtype, needs, g, twice)
    assert _bits(lean) == _bits(slow)
    # the lean formula ran (a product with a number may scale an owned gradient in place)
    assert taken[0] >= {"sub": needs[1], "mul_number": False}.get(op, True)


@settings(max_examples=budget(150), deadline=None)
@given(cases())
def test_lean_formulas_match_pytorch(case: tuple[Any, ...]) -> None:
    op, a, b, dtype, needs, g, twice = case
    ours = _grads(jitgrad, op, a, b, dtype, needs, g, twice)
    theirs = _grads(torch, op, a, b, dtype, needs, g, twice)
    for x, y in zip(ours, theirs):
        assert (x is None) == (y is None)
        if x is not None:
            assert x.shape == y.shape and x.dtype == y.dtype
            # a 0-d input's gradient is a sum (the order of the terms may differ)
            np.testing.assert_allclose(x, y, rtol=1e-5 if dtype == "float32" else 1e-12, atol=0)


@pytest.mark.parametrize("op", sorted(OPS))
def test_create_graph_takes_the_general_formula(op: str) -> None:
    x = jitgrad.tensor([1.5, -2.0, 3.0], dtype=jitgrad.float64, requires_grad=True)
    y = jitgrad.tensor(0.7, dtype=jitgrad.float64, requires_grad=True)
    taken = [0]
    with counted(elementwise, LEAN[op], taken, lambda out: out is not None):
        gx, gy = jitgrad.autograd.grad((OPS[op](x, y) * x).sum(), (x, y), create_graph=True)
    assert taken[0] == 0
    (gx.sum() + gy).backward()  # (the graph of the gradients may take it)
    X = torch.tensor([1.5, -2.0, 3.0], dtype=torch.float64, requires_grad=True)
    Y = torch.tensor(0.7, dtype=torch.float64, requires_grad=True)
    GX, GY = torch.autograd.grad((OPS[op](X, Y) * X).sum(), (X, Y), create_graph=True)
    (GX.sum() + GY).backward()
    np.testing.assert_allclose(x.grad.detach().numpy(), X.grad.detach().numpy(), rtol=1e-14)
    np.testing.assert_allclose(y.grad.detach().numpy(), Y.grad.detach().numpy(), rtol=1e-14)


def test_other_layouts_and_dtypes_take_the_general_formula() -> None:
    # a transposed operand, broadcasts other than to or from 0-d: not lean
    m = jitgrad.arange(6.0, dtype=jitgrad.float64).reshape(2, 3).t().requires_grad_()
    v = jitgrad.tensor([[1.0, 2.0]], dtype=jitgrad.float64, requires_grad=True)
    c = jitgrad.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=jitgrad.float32, requires_grad=True)
    taken = [0]
    with counted(elementwise, "mul_grads", taken, lambda out: out is not None):
        (m * v).sum().backward()
        (v.t() * c.double()).sum().backward()
    assert taken[0] == 0
    M = torch.arange(6.0, dtype=torch.float64).reshape(2, 3).t().requires_grad_()
    V = torch.tensor([[1.0, 2.0]], dtype=torch.float64, requires_grad=True)
    C = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=torch.float32, requires_grad=True)
    (M * V).sum().backward()
    (V.t() * C.double()).sum().backward()
    for ours, theirs in ((m, M), (v, V), (c, C)):
        np.testing.assert_array_equal(ours.grad.detach().numpy(), theirs.grad.detach().numpy())


def test_product_with_a_number_takes_the_lean_formula() -> None:
    x = jitgrad.tensor([1.5, -2.0, 3.0], dtype=jitgrad.float64, requires_grad=True)
    w = jitgrad.tensor([0.1, 0.2, 0.3], dtype=jitgrad.float64)
    taken = [0]
    with counted(elementwise, "scaled", taken, lambda out: out is not None):
        ((x * 3) * w).sum().backward()
    assert taken[0] == 1
    assert x.grad.detach().numpy().tobytes() == (np.array([0.1, 0.2, 0.3]) * 3).tobytes()


def test_owned_gradient_is_written_into_and_passed_on() -> None:
    """With the engine handing ``g`` over (two gradients summed into it), ``mul_grads``
    writes one input's gradient into ``g`` itself; values as the general formula's."""
    written = [0]

    def run(lib: Any) -> tuple[Any, Any]:
        x = lib.tensor([1.5, -2.0, 3.0], dtype=lib.float64, requires_grad=True)
        y = lib.tensor(0.7, dtype=lib.float64, requires_grad=True)
        out = x * y
        ((out * lib.tensor([0.1, 0.2, 0.3], dtype=lib.float64)).sum() + (out * 0.5).sum()).backward()
        return x.grad.detach().numpy().copy(), y.grad.detach().numpy().copy()

    lean = elementwise.mul_grads

    def spy(node: Any, g: Any, *rest: Any) -> Any:
        out = lean(node, g, *rest)
        written[0] += out is not None and any(o is g for o in out)
        return out

    with replaced(elementwise, "mul_grads", spy):
        ours = run(jitgrad)
    assert written[0] == 1
    with general("mul"):
        slow = run(jitgrad)
    theirs = run(torch)
    for a, b, c in zip(ours, slow, theirs):
        assert a.tobytes() == b.tobytes()
        np.testing.assert_allclose(a, c, rtol=1e-15)
