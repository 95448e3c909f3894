"""PyTorch's ``out=`` on the top-level functions that take it (``ops/out_arg.py``), side by
side: the result written into a preallocated tensor or a view of one (a row, a column, a
block), the same object returned, factories computing in ``out``'s dtype, a resized empty
``out``, and the refusals (a differentiable input under grad mode, an impossible cast)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.compat_helpers import both

A = np.arange(12.0).reshape(3, 4) / 7


def _into(lib, write):
    buf = lib.zeros(4, 4, dtype=lib.float64)
    returned = write(lib, buf)
    return buf, returned.data_ptr() == buf.data_ptr() or returned.storage_offset() > 0, buf._version


CASES = {
    "matmul": lambda lib, b: lib.matmul(lib.tensor(A.T), lib.tensor(A), out=b),
    "mm_block": lambda lib, b: lib.mm(lib.tensor(A[:2, :3]), lib.tensor(A[:, :3]), out=b[:2, :3]),
    "mv_row": lambda lib, b: lib.mv(lib.tensor(A.T), lib.tensor(A[:, 0]), out=b[1]),
    "dot": lambda lib, b: lib.dot(lib.tensor(A[0]), lib.tensor(A[1]), out=b[0, 0]),
    "cumsum_column": lambda lib, b: lib.cumsum(lib.tensor(A[:, 1]), 0, out=b[1:, 2]),
    "cumprod": lambda lib, b: lib.cumprod(lib.tensor(A[2]), 0, out=b[3]),
    "index_select": lambda lib, b: lib.index_select(lib.tensor(A), 0, lib.tensor([2, 0]), out=b[:2]),
    "gather": lambda lib, b: lib.gather(lib.tensor(A), 1, lib.tensor([[3, 2, 1, 0]] * 3), out=b[1:]),
    "arange": lambda lib, b: lib.arange(4, out=b[0]),
    "linspace": lambda lib, b: lib.linspace(0, 1, 4, out=b[2]),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_out_receives_the_result(case):
    both(lambda lib: _into(lib, CASES[case]))


def test_bmm_into_a_fresh_tensor_and_an_empty_out_is_resized():
    def program(lib):
        out = lib.zeros(1, 3, 4, dtype=lib.float64)
        lib.bmm(lib.tensor(A[None, :, :2]), lib.tensor(A[None, :2, :]), out=out)
        empty = lib.zeros(0, dtype=lib.float64)
        lib.matmul(lib.tensor(A), lib.tensor(A.T), out=empty)
        return out, empty

    both(program)


def test_out_is_refused_for_a_differentiable_input_and_allowed_under_no_grad():
    def program(lib):
        a = lib.tensor(A, requires_grad=True)
        with lib.no_grad():
            ok = lib.mm(a, lib.tensor(A.T), out=lib.zeros(3, 3, dtype=lib.float64))
        lib.mm(a, lib.tensor(A.T), out=lib.zeros(3, 3, dtype=lib.float64))
        return ok

    both(program, "don't support automatic differentiation")


def test_dtype_rules_follow_each_kernel():
    """``mm`` and ``gather`` want ``out`` of the result's dtype; ``cumsum`` computes in
    ``out``'s dtype; the factories make ``out``'s dtype."""
    both(lambda lib: lib.mm(lib.tensor(A), lib.tensor(A.T), out=lib.zeros(3, 3, dtype=lib.int64)),
         "Expected out tensor to have dtype double, but got long int instead")
    both(lambda lib: lib.gather(lib.tensor(A), 1, lib.tensor([[0]] * 3), out=lib.zeros(3, 1, dtype=lib.float32)),
         "Expected out tensor to have dtype double, but got float instead")

    def program(lib):
        ints = lib.zeros(4, dtype=lib.int64)
        lib.cumsum(lib.tensor(A[2] * 3), 0, out=ints)
        single = lib.zeros(5, dtype=lib.float32)
        lib.linspace(0, 1, 5, out=single)
        return ints, single, lib.arange(3, out=lib.zeros(3, dtype=lib.float64))

    both(program)
