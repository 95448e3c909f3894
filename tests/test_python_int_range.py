"""Python ints as Scalars, against PyTorch: its argument parser takes [-2**63, 2**64) (from
2**63 on as uint64, which wraps into integer dtypes and promotes a bool tensor to an error)
and raises OverflowError beyond, before the op runs, whatever the tensor's dtype
(``torch.ones(2, dtype=torch.float64).add_(10**30)``). The lean paths take a number in int64's
range only and leave the others to the general path."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import jitgrad
from conftest import budget

OPS: dict[str, Callable[[Any, Any, int], Any]] = {
    "add": lambda L, t, n: t + n,
    "radd": lambda L, t, n: n + t,
    "sub": lambda L, t, n: t - n,
    "mul": lambda L, t, n: t * n,
    "rmul": lambda L, t, n: n * t,
    "add_": lambda L, t, n: t.add_(n),
    "sub_": lambda L, t, n: t.sub_(n),
    "mul_": lambda L, t, n: t.mul_(n),
    "alpha": lambda L, t, n: t.add(1, alpha=n),
    "strided": lambda L, t, n: t.expand(3, 2)[1:] * n,
    "eq": lambda L, t, n: t == n,
    "clamp": lambda L, t, n: t.clamp(max=n),
    "where": lambda L, t, n: L.where(t > 0, t, n),
    "fill_": lambda L, t, n: t.fill_(n),
}
DTYPES = ["float64", "float32", "float16", "int64", "int32", "uint8", "bool"]
EDGES = [2**63 - 1, 2**63, 2**64 - 1, 2**64, -(2**63), -(2**63) - 1, 10**30, -(10**30), 10**20, 3,
         2**31, 256, -1, -255, -256, 65505]
FLOATS = [1e300, -1e300, 1e39, 65505.0, 2.5e10, float("inf"), float("nan"), 0.5]


def _check(name: str, dtype: str, n: int) -> None:
    def program(L: Any) -> Any:
        t = L.ones(2, dtype=getattr(L, dtype)) * 1  # (not a leaf: in-place allowed)
        if dtype == "bool":
            t = L.ones(2, dtype=L.bool)
        return OPS[name](L, t, n)

    ours, theirs = _outcome(jitgrad, program), _outcome(torch, program)
    if isinstance(theirs, Exception) or isinstance(ours, Exception):
        assert type(ours) is type(theirs), (name, dtype, n, ours, theirs)  # (OverflowError exactly)
        return
    assert ours.dtype.name == str(theirs.dtype)[6:]
    np.testing.assert_array_equal(ours.detach().numpy(), theirs.detach().numpy())


def _outcome(L: Any, program: Callable[[Any], Any]) -> Any:
    try:
        return program(L)
    except (OverflowError, RuntimeError, TypeError, ValueError) as exc:
        return exc


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(OPS))
def test_python_int_edges_match_pytorch(name: str, dtype: str) -> None:
    for n in EDGES + FLOATS:  # (floats: the range checks of alpha, clamp's bounds, where)
        _check(name, dtype, n)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@settings(max_examples=budget(150), deadline=None)
@given(st.sampled_from(sorted(OPS)), st.sampled_from(DTYPES),
       st.one_of(st.integers(-(2**70), 2**70), st.integers(2**62, 2**65), st.sampled_from(EDGES)))
def test_python_ints_match_pytorch(name: str, dtype: str, n: int) -> None:
    _check(name, dtype, n)


def test_add_of_a_huge_int_raises_overflow_error_for_float() -> None:
    with pytest.raises(OverflowError, match="add_: int too big to convert"):
        jitgrad.ones(2, dtype=jitgrad.float64).add_(10**30)
    with pytest.raises(OverflowError, match="multiply: int too big to convert"):
        jitgrad.ones(2, dtype=jitgrad.float64) * 2**70
