"""Shifts (``<<``, ``>>`` and their function, reflected and in-place forms), ``gcd`` and
``lcm`` against PyTorch: values and dtypes (incl. out-of-range shifts and wrap-around),
and the errors for float operands."""

from __future__ import annotations

from typing import Any, Callable

import pytest
import torch

import jitgrad

CASES: dict[str, Callable[[Any], Any]] = {
    "lshift": lambda L: L.tensor([5, -7, 12, 0, 3]) << L.tensor([2, 3, 64, 1, -1]),
    "rshift": lambda L: L.tensor([5, -7, 12, 0, 3, -9]) >> L.tensor([2, 3, 64, 1, -1, 70]),
    "lshift_number": lambda L: L.bitwise_left_shift(L.tensor([5, -7, 12]), 2),
    "rlshift": lambda L: 2 << L.tensor([5, -7, 12, 0, 3]),
    "rrshift": lambda L: 100 >> L.tensor([1, 2, 65]),
    "int8_wrap": lambda L: (L.tensor([100, -100], dtype=L.int8) << 1, L.tensor([100, -100], dtype=L.int8) >> 10),
    "uint8_out_of_range": lambda L: L.tensor([1], dtype=L.uint8) << 9,
    "bool": lambda L: L.tensor([True]) << 1,
    "ilshift": lambda L: (lambda x: (x.__ilshift__(1), x.tolist(), x._version)[1:])(L.tensor([5, -7])),
    "irshift_method": lambda L: (lambda x: (x.bitwise_right_shift_(1), x.tolist())[1])(L.tensor([5, -7])),
    "gcd": lambda L: L.gcd(L.tensor([5, -7, 12, 0, 3]), L.tensor([10, 21, 18, 0, 0])),
    "lcm": lambda L: L.tensor([5, -7, 12, 0, 3]).lcm(L.tensor([10, 21, 18, 0, 4])),
    "gcd_int32": lambda L: L.gcd(L.tensor([12, 18], dtype=L.int32), L.tensor([8], dtype=L.int32)),
    "float_shift": lambda L: L.ones(2) << 1,
    "shift_by_float": lambda L: L.tensor([1, 2]) << 1.5,
    "float_gcd": lambda L: L.gcd(L.ones(2), L.ones(2)),
    "gcd_number": lambda L: L.gcd(L.tensor([4]), 2),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_against_pytorch(case: str) -> None:
    got = []
    for lib in (jitgrad, torch):
        try:
            out = CASES[case](lib)
        except (NotImplementedError, TypeError) as e:
            got.append((type(e).__name__, str(e) if not isinstance(e, TypeError) else ""))
            continue
        outs = out if isinstance(out, tuple) else (out,)
        got.append(tuple((o.tolist(), str(o.dtype).split(".")[-1]) if isinstance(o, lib.Tensor) else o for o in outs))
    assert got[0] == got[1]
