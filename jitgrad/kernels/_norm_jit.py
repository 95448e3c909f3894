"""Jitted sums of squares along the rows of a 2-D float64 array, in the order of PyTorch's CPU
``linalg.vector_norm`` (``ord=2``) over contiguous last dims, so the norm is PyTorch's to the
bit.

PyTorch's kernel for that case (``norm_kernel_tensor_iterator_impl``'s fast path, compiled
for AVX2) keeps four partial sums: element ``4k + j`` of a row is squared and added to sum
``j`` (a multiply, then an add), then the four sums are added left to right, and the
``n % 4`` elements left over are added one by one as ``fma(x, x, sum)`` (the compiler
contracts that scalar loop into fused multiply-adds). ``sqrt`` of the total is the norm.
NumPy's pairwise sum of ``x * x`` differs from it in the last bit for about one row in three.

Self-contained (see ``_policy.py``): the fused multiply-add is LLVM's ``llvm.fma`` intrinsic,
rounded once on every processor (a library call where there is no FMA instruction).
"""
from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.extending import intrinsic

from ._policy import jit


@intrinsic
def _fma(typingctx, a, b, c):  # pragma: no cover - runs compiled
    """``a * b + c`` rounded once (float64)."""
    sig = types.float64(types.float64, types.float64, types.float64)

    def codegen(context, builder, signature, args):
        double = context.get_value_type(types.float64)
        fn = builder.module.declare_intrinsic("llvm.fma", [double], ir.FunctionType(double, [double] * 3))
        return builder.call(fn, args)

    return sig, codegen


@jit
def sum_squares_rows(x, out):  # pragma: no cover - runs compiled
    """``out[r] = `` the sum of the squares of row ``r`` of ``x`` (rows, n), in PyTorch's order."""
    rows, n = x.shape
    end = n - n % 4
    for r in range(min(rows, out.shape[0])):
        s0 = s1 = s2 = s3 = 0.0
        for d in range(0, end, 4):
            a0, a1, a2, a3 = x[r, d], x[r, d + 1], x[r, d + 2], x[r, d + 3]
            s0 += a0 * a0
            s1 += a1 * a1
            s2 += a2 * a2
            s3 += a3 * a3
        total = ((s0 + s1) + s2) + s3
        for d in range(end, n):
            total = _fma(x[r, d], x[r, d], total)
        out[r] = total
