"""The tape interpreter: one loop over int64 instruction records, forward or backward,
compiled by Numba once per machine (``cache=True``), whatever the program
(Note [Compiled tapes] in ``compiled.py``). Self-contained as every cached kernel file (the
jitted functions call only jitted functions of this file; numba's cache does not notice
changes in other files); ``kernels/_policy.py`` only supplies the decorator (the kernels'
policy, with its hardened cache: an unreadable entry or index is a miss, then rewritten).

A record (one row of ``ti``, ``W`` int64 fields) names an opcode, an iteration shape of
rank ``R`` and, for the output and up to three operands (``NF`` regions in all), a base
position in the float64 arena and ``R`` strides (0 where an operand is broadcast, or, for the
output of a reduction, where the dimension is reduced). ``tf`` holds one float per record.

The code is kept small on purpose: Numba's first compile costs time in proportion to the
code it types and lowers (Note [Compiled tapes], "Compile time"), so elementwise ops share
one loop (``_eval``/``_grad`` switch per element; the forward's four commonest ops have their
own), sum's and logsumexp's forwards are elementwise records (``trace.py``), both directions are one
function, and there are four compiled functions in all. ``error_model="numpy"`` (jitgrad's kernel
policy): a division by zero or ``0.0 ** -1`` gives IEEE's inf/nan, as eager.
"""

from __future__ import annotations

import math

from ..kernels._policy import jit

R = 4  # the highest rank lowered
REGIONS = 4  # an output and up to three operands
W = 32  # fields per record
# field positions: the output's region, then up to three operands' (each a base and R strides)
OP, SHAPE, OUT, A, B, C, SAVE, N, NF, NOGRAD = 0, 1, 5, 10, 15, 20, 25, 26, 27, 28
# opcodes
COPY, FILL, ADD, SUB, MUL, DIV, POW, NEG, EXP, LOG, SIGMOID, TANH, SQRT, SIN, COS, SUM, LSE = range(17)
LOG1P, EXPM1, ABS, RELU, MAXIMUM, MINIMUM, FINITE = range(17, 24)
# (SUM's and LSE's forwards are the records before them, see trace.py; FINITE: x, or 0
# where x is infinite)


@jit
def _offsets(rec, pos):  # pragma: no cover - compiled
    """``pos[f, k]``: the arena position of iteration point ``k`` (row-major) in region ``f``
    (0 the output, 1.. the operands), for the ``rec[NF]`` regions the record uses."""
    s0, s1, s2, s3 = rec[SHAPE], rec[SHAPE + 1], rec[SHAPE + 2], rec[SHAPE + 3]
    for f in range(rec[NF]):
        field = OUT + (R + 1) * f
        base, t0, t1, t2, t3 = rec[field], rec[field + 1], rec[field + 2], rec[field + 3], rec[field + 4]
        k = 0
        for i0 in range(s0):
            for i1 in range(s1):
                for i2 in range(s2):
                    p = base + i0 * t0 + i1 * t1 + i2 * t2
                    for i3 in range(s3):
                        pos[f, k + i3] = p + i3 * t3
                    k += s3


@jit
def _eval(op, x, y, v):  # pragma: no cover - compiled
    """The value of an elementwise op on operands ``x`` (, ``y``) and the record's float ``v``."""
    if op == COPY:
        return x
    if op == ADD:
        return x + y
    if op == SUB:
        return x - y
    if op == MUL:
        return x * y
    if op == DIV:
        return x / y if y != 0 else (math.nan if x == 0 or x != x else math.copysign(math.inf, x) * math.copysign(1.0, y))
    if op == FILL:
        return v
    if op == POW:
        if v == 2.0:
            return x * x
        if v == 1.0:
            return x
        if v == 0.0:
            return 1.0
        return x ** v
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
    if op == MAXIMUM:
        return x if (x > y or x != x) else y
    if op == MINIMUM:
        return x if (x < y or x != x) else y
    if op == FINITE:
        return 0.0 if math.isinf(x) else x
    return x


@jit
def _grad(op, x, y, g, res, v):  # pragma: no cover - compiled
    """The shares of adjoint ``g`` for the operands ``(x, y)`` of an op whose result was ``res``."""
    if op == COPY or op == ADD or op == SUM:
        return g, g
    if op == SUB:
        return g, -g
    if op == MUL:
        return g * y, g * x
    if op == DIV:
        return g / y, -g * (x / y / y)
    if op == POW:
        if v == 0.0:
            return 0.0, 0.0
        p = x * x if v == 3.0 else (x if v == 2.0 else (1.0 if v == 1.0 else x ** (v - 1.0)))  # (as _eval's x ** (v - 1))
        return g * (p * v), 0.0
    if op == LSE:
        return g * math.exp(x - res), 0.0
    if op == MAXIMUM or op == MINIMUM:
        if x == y:
            return g / 2, g / 2
        if (x > y) == (op == MAXIMUM) or x != x:
            return g, 0.0
        return 0.0, g
    if op == NEG:
        return -g, 0.0
    if op == EXP:
        return g * res, 0.0
    if op == LOG:
        return g / x, 0.0
    if op == SIGMOID:
        return g * ((1.0 - res) * res), 0.0
    if op == TANH:
        return g * (1.0 - res * res), 0.0
    if op == SQRT:
        return g / (2.0 * res), 0.0
    if op == SIN:
        return g * math.cos(x), 0.0
    if op == COS:
        return g * -math.sin(x), 0.0
    if op == LOG1P:
        return g / (x + 1.0), 0.0
    if op == EXPM1:
        return g * (res + 1.0), 0.0
    if op == ABS:
        return g * (1.0 if x > 0 else (-1.0 if x < 0 else 0.0)), 0.0
    if op == RELU:
        return g * (1.0 if x > 0 else 0.0), 0.0
    return 0.0, 0.0


@jit
def interpret(ti, tf, arena, adj, saved, pos, g, res, backward):  # pragma: no cover - compiled
    """Run the tape forward (``backward`` False: before each overwriting write, push the old
    values on ``saved``), or walk it in reverse: take each record's output adjoint (and value),
    zero the adjoint of the overwritten elements, restore their old values, then add each
    operand's share. (One function for both directions: Numba compiles it once.)"""
    m = ti.shape[0]
    for step in range(m):
        r = m - 1 - step if backward else step
        rec = ti[r]
        _offsets(rec, pos)
        n, op, nf, v, s = rec[N], rec[OP], rec[NF], tf[r], rec[SAVE]
        b = 2 if nf == 3 else 1  # the second operand's row (the first's for unary ops)
        if backward:
            if rec[NOGRAD]:  # (a step of a bigger op whose last record carries its gradient)
                continue
            for k in range(n):
                g[k] = adj[pos[0, k]]
                res[k] = arena[pos[0, k]]
            for k in range(n):
                adj[pos[0, k]] = 0.0
            if s >= 0:
                for k in range(n - 1, -1, -1):
                    arena[pos[0, k]] = saved[s + k]
            if nf > 1:
                for k in range(n):
                    da, db = _grad(op, arena[pos[1, k]], arena[pos[b, k]], g[k], res[k], v)
                    adj[pos[1, k]] += da
                    if nf == 3:
                        adj[pos[2, k]] += db
            continue
        if s >= 0:
            for k in range(n):
                saved[s + k] = arena[pos[0, k]]
        if op == SUM or op == LSE:  # (computed by the records before it: this one is its backward)
            continue
        elif nf == 1:
            for k in range(n):
                arena[pos[0, k]] = v
        elif op == ADD:  # (the four commonest ops: a loop each, no per-element switch)
            for k in range(n):
                arena[pos[0, k]] = arena[pos[1, k]] + arena[pos[2, k]]
        elif op == MUL:
            for k in range(n):
                arena[pos[0, k]] = arena[pos[1, k]] * arena[pos[2, k]]
        elif op == SUB:
            for k in range(n):
                arena[pos[0, k]] = arena[pos[1, k]] - arena[pos[2, k]]
        elif op == COPY:
            for k in range(n):
                arena[pos[0, k]] = arena[pos[1, k]]
        else:
            for k in range(n):
                arena[pos[0, k]] = _eval(op, arena[pos[1, k]], arena[pos[b, k]], v)


def forward(ti, tf, arena, saved, pos):  # type: ignore[no-untyped-def]
    """Run the tape forward (see ``interpret``)."""
    interpret(ti, tf, arena, arena, saved, pos, arena, arena, False)


def backward(ti, tf, arena, adj, saved, pos, g, res):  # type: ignore[no-untyped-def]
    """Walk the tape back, accumulating the operands' adjoints in ``adj`` (see ``interpret``)."""
    interpret(ti, tf, arena, adj, saved, pos, g, res, True)
