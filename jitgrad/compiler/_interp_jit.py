"""The tape interpreter: one forward and one backward loop over int64 instruction records,
compiled by Numba once per machine (``cache=True``), whatever the program
(Note [Compiled tapes] in ``__init__.py``). Self-contained (numba + numpy only), as every
cached kernel file: numba's cache does not notice changes in other files.

A record (one row of ``ti``, ``W`` int64 fields) names an opcode, an iteration shape of
rank ``R`` and, for the output and up to three operands, a base position in the float64 arena
and ``R`` strides (0 where an operand is broadcast, or, for the output of a reduction, where
the dimension is reduced). ``tf`` holds one float operand per record.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

R = 4  # the highest rank lowered
W = 32  # fields per record
# field positions
OP, SHAPE, OUT, A, B, C, SAVE, N, RED = 0, 1, 5, 10, 15, 20, 25, 26, 27
# opcodes
COPY, FILL, ADD, SUB, MUL, DIV, POW, NEG, EXP, LOG, SIGMOID, TANH, SQRT, SIN, COS, SUM, LSE = range(17)
LOG1P, EXPM1, ABS, RELU, MAXIMUM, MINIMUM = range(17, 23)


@njit(cache=True, nogil=True)
def _offsets(rec, io, ia, ib, ic, first):  # pragma: no cover - compiled
    """Arena positions of every iteration point for the output and operands, in row-major
    order; for a reduction (``rec[RED]``), ``first``: the point is the first to reach its
    output element (all reduced indices 0)."""
    s0, s1, s2, s3 = rec[SHAPE], rec[SHAPE + 1], rec[SHAPE + 2], rec[SHAPE + 3]
    o3, a3, b3, c3 = rec[OUT + 4], rec[A + 4], rec[B + 4], rec[C + 4]
    k = 0
    for i0 in range(s0):
        for i1 in range(s1):
            for i2 in range(s2):
                o = rec[OUT] + i0 * rec[OUT + 1] + i1 * rec[OUT + 2] + i2 * rec[OUT + 3]
                a = rec[A] + i0 * rec[A + 1] + i1 * rec[A + 2] + i2 * rec[A + 3]
                b = rec[B] + i0 * rec[B + 1] + i1 * rec[B + 2] + i2 * rec[B + 3]
                c = rec[C] + i0 * rec[C + 1] + i1 * rec[C + 2] + i2 * rec[C + 3]
                for i3 in range(s3):
                    io[k + i3] = o + i3 * o3
                    ia[k + i3] = a + i3 * a3
                    ib[k + i3] = b + i3 * b3
                    ic[k + i3] = c + i3 * c3
                if rec[RED] != 0:
                    lead = ((i0 == 0 or rec[OUT + 1] != 0) and (i1 == 0 or rec[OUT + 2] != 0)
                            and (i2 == 0 or rec[OUT + 3] != 0))
                    for i3 in range(s3):
                        first[k + i3] = lead and (i3 == 0 or o3 != 0)
                k += s3


@njit(cache=True, nogil=True)
def _unary(op, x):  # pragma: no cover - compiled
    if op == NEG:
        return -x
    if op == EXP:
        return math.exp(x)
    if op == LOG:
        return math.log(x) if x > 0 else (-math.inf if x == 0 else math.nan)
    if op == SIGMOID:
        return 1.0 / (1.0 + math.exp(-x))
    if op == TANH:
        return math.tanh(x)
    if op == SQRT:
        return math.sqrt(x) if x >= 0 else math.nan
    if op == SIN:
        return math.sin(x)
    if op == COS:
        return math.cos(x)
    if op == LOG1P:
        return math.log1p(x) if x > -1 else (-math.inf if x == -1 else math.nan)
    if op == EXPM1:
        return math.expm1(x)
    if op == ABS:
        return abs(x)
    if op == RELU:
        return x if x > 0 else (x if x != x else 0.0)
    return x


@njit(cache=True, nogil=True)
def _binary(op, x, y):  # pragma: no cover - compiled
    if op == ADD:
        return x + y
    if op == SUB:
        return x - y
    if op == MUL:
        return x * y
    if op == DIV:
        return x / y if y != 0 else (math.nan if x == 0 or x != x else math.copysign(math.inf, x) * math.copysign(1.0, y))
    if op == MAXIMUM:
        return x if (x > y or x != x) else y
    if op == MINIMUM:
        return x if (x < y or x != x) else y
    return x


@njit(cache=True, nogil=True)
def _pow(x, e):  # pragma: no cover - compiled
    if e == 2.0:
        return x * x
    if e == 1.0:
        return x
    if e == 0.0:
        return 1.0
    return x ** e


@njit(cache=True, nogil=True)
def forward(ti, tf, arena, saved, io, ia, ib, ic, first):  # pragma: no cover - compiled
    """Run the tape forward; before each overwriting write, push the old values on ``saved``."""
    for r in range(ti.shape[0]):
        rec = ti[r]
        _offsets(rec, io, ia, ib, ic, first)
        n = rec[N]
        op = rec[OP]
        s = rec[SAVE]
        if s >= 0:
            for k in range(n):
                saved[s + k] = arena[io[k]]
        if op == COPY:
            for k in range(n):
                arena[io[k]] = arena[ia[k]]
        elif op == FILL:
            v = tf[r]
            for k in range(n):
                arena[io[k]] = v
        elif op == POW:
            e = tf[r]
            for k in range(n):
                arena[io[k]] = _pow(arena[ia[k]], e)
        elif op == SUM:
            for k in range(n):
                if first[k]:
                    arena[io[k]] = 0.0
            for k in range(n):
                arena[io[k]] += arena[ia[k]]
        elif op == LSE:  # PyTorch's: shift by the max (0 where infinite), log of the sum, add back
            for k in range(n):
                if first[k]:
                    arena[io[k]] = -math.inf
            for k in range(n):
                if arena[ia[k]] > arena[io[k]]:
                    arena[io[k]] = arena[ia[k]]
            for k in range(n):
                if first[k]:
                    if math.isinf(arena[io[k]]):
                        arena[io[k]] = 0.0
                    arena[ic[k]] = 0.0
            for k in range(n):
                arena[ic[k]] += math.exp(arena[ia[k]] - arena[io[k]])
            for k in range(n):
                if first[k]:
                    c = arena[ic[k]]
                    arena[io[k]] = (math.log(c) if c > 0 else -math.inf) + arena[io[k]]
        elif op >= ADD and op <= DIV or op == MAXIMUM or op == MINIMUM:
            for k in range(n):
                arena[io[k]] = _binary(op, arena[ia[k]], arena[ib[k]])
        else:
            for k in range(n):
                arena[io[k]] = _unary(op, arena[ia[k]])


@njit(cache=True, nogil=True)
def backward(ti, tf, arena, adj, saved, io, ia, ib, ic, first, g, res):  # pragma: no cover - compiled
    """Walk the tape in reverse: take the output's adjoint (and value), zero the adjoint of the
    overwritten elements, restore their old values, then add each operand's share."""
    for r in range(ti.shape[0] - 1, -1, -1):
        rec = ti[r]
        _offsets(rec, io, ia, ib, ic, first)
        n = rec[N]
        op = rec[OP]
        for k in range(n):
            g[k] = adj[io[k]]
            res[k] = arena[io[k]]
        for k in range(n):
            adj[io[k]] = 0.0
        s = rec[SAVE]
        if s >= 0:
            for k in range(n - 1, -1, -1):
                arena[io[k]] = saved[s + k]
        if op == FILL:
            continue
        if op == COPY or op == SUM or op == ADD:
            for k in range(n):
                adj[ia[k]] += g[k]
            if op == ADD:
                for k in range(n):
                    adj[ib[k]] += g[k]
        elif op == SUB:
            for k in range(n):
                adj[ia[k]] += g[k]
            for k in range(n):
                adj[ib[k]] -= g[k]
        elif op == MUL:
            for k in range(n):
                x = arena[ia[k]]
                y = arena[ib[k]]
                adj[ia[k]] += g[k] * y
                adj[ib[k]] += g[k] * x
        elif op == DIV:
            for k in range(n):
                x = arena[ia[k]]
                y = arena[ib[k]]
                adj[ia[k]] += g[k] / y
                adj[ib[k]] += -g[k] * (x / y / y)
        elif op == MAXIMUM or op == MINIMUM:
            for k in range(n):
                x = arena[ia[k]]
                y = arena[ib[k]]
                if x == y:
                    adj[ia[k]] += g[k] / 2
                    adj[ib[k]] += g[k] / 2
                elif (x > y) == (op == MAXIMUM) or x != x:
                    adj[ia[k]] += g[k]
                else:
                    adj[ib[k]] += g[k]
        elif op == POW:
            e = tf[r]
            for k in range(n):
                if e != 0.0:
                    adj[ia[k]] += g[k] * (_pow(arena[ia[k]], e - 1.0) * e)
        elif op == LSE:
            for k in range(n):
                adj[ia[k]] += g[k] * math.exp(arena[ia[k]] - res[k])
        else:
            for k in range(n):
                x = arena[ia[k]]
                if op == NEG:
                    d = -g[k]
                elif op == EXP:
                    d = g[k] * res[k]
                elif op == LOG:
                    d = g[k] / x
                elif op == SIGMOID:
                    d = g[k] * ((1.0 - res[k]) * res[k])
                elif op == TANH:
                    d = g[k] * (1.0 - res[k] * res[k])
                elif op == SQRT:
                    d = g[k] / (2.0 * res[k])
                elif op == SIN:
                    d = g[k] * math.cos(x)
                elif op == COS:
                    d = g[k] * -math.sin(x)
                elif op == LOG1P:
                    d = g[k] / (x + 1.0)
                elif op == EXPM1:
                    d = g[k] * (res[k] + 1.0)
                elif op == ABS:
                    d = g[k] * (1.0 if x > 0 else (-1.0 if x < 0 else 0.0))
                elif op == RELU:
                    d = g[k] * (1.0 if x > 0 else 0.0)
                else:
                    d = 0.0
                adj[ia[k]] += d
