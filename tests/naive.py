"""Slow, obviously-correct references for jitgrad's kernels (stumpy's tests/naive.py style).

Everything iterates over every index with ``itertools.product`` and casts element by
element with NumPy scalar conversion, so there is nothing clever to get wrong.
"""
from __future__ import annotations

import itertools

import numpy as np


def flat_indices(offset, sizes, strides):
    """Buffer index of every element of the geometry, in C order of ``sizes``."""
    return [offset + sum(i * s for i, s in zip(idx, strides))
            for idx in itertools.product(*map(range, sizes))]


def cast(value, dtype):
    """``value`` converted as ``numpy.ndarray.astype(dtype, casting='unsafe')`` would."""
    return np.array([value]).astype(dtype)[0]


def strided_copy(dst, dst_offset, dst_strides, src, src_offset, src_strides, sizes):
    for d, s in zip(flat_indices(dst_offset, sizes, dst_strides),
                    flat_indices(src_offset, sizes, src_strides)):
        dst[d] = cast(src[s], dst.dtype)


def strided_add(dst, dst_offset, dst_strides, src, src_offset, src_strides, sizes):
    for d, s in zip(flat_indices(dst_offset, sizes, dst_strides),
                    flat_indices(src_offset, sizes, src_strides)):
        dst[d] = dst[d] + cast(src[s], dst.dtype)


def scatter(dst, dst_offset, dst_strides, sizes, block, accumulate=False):
    for d, v in zip(flat_indices(dst_offset, sizes, dst_strides), block.reshape(-1)):
        v = cast(v, dst.dtype)
        dst[d] = dst[d] + v if accumulate else v


def fill(dst, dst_offset, dst_strides, sizes, value):
    for d in flat_indices(dst_offset, sizes, dst_strides):
        dst[d] = dst.dtype.type(value)


def has_internal_overlap(sizes, strides):
    offsets = flat_indices(0, sizes, strides)
    return len(set(offsets)) != len(offsets)


def regions_overlap(a_offset, a_sizes, a_strides, b_offset, b_sizes, b_strides):
    a = set(flat_indices(a_offset, a_sizes, a_strides))
    return any(p in a for p in flat_indices(b_offset, b_sizes, b_strides))


def shared_only_at_same_index(a_offset, a_strides, b_offset, b_strides, sizes):
    a = flat_indices(a_offset, sizes, a_strides)
    b = flat_indices(b_offset, sizes, b_strides)
    return all(a[i] != b[j] for i in range(len(a)) for j in range(len(b)) if i != j)


def rnn_backward(mode, saved, g_out, g_state, w_hh, plan):
    """Backpropagation through time of a fused recurrent layer (``nn/_recurrent_fused.py``'s
    ``_backward``) in whole-array NumPy: each step's gates' gradients as the formulas read,
    then ``h``'s through ``W_hh``. Returns the gradients of the input gates, of the hidden
    gates (the same array but in a GRU) and of the initial state."""
    n, size = saved["h_prev"].shape
    dtype = saved["h_prev"].dtype
    gates = {"LSTM": 4, "GRU": 3}.get(mode, 1)
    dh = np.zeros((plan.batch, size), dtype) if g_state[0] is None else np.array(g_state[0], dtype)
    dc = None
    if mode == "LSTM":
        dc = np.zeros((plan.batch, size), dtype) if g_state[1] is None else np.array(g_state[1], dtype)
    d_gi = np.zeros((n, gates * size), dtype)
    d_hg = d_gi if mode != "GRU" else np.zeros_like(d_gi)
    for off, rows in zip(reversed(plan.offsets), reversed(plan.rows)):
        span = slice(off, off + rows)
        d = dh[:rows] if g_out is None else dh[:rows] + g_out[span]
        a = saved["acts"][span]
        if mode == "LSTM":
            tc = saved["tanh_c"][span]
            i, f, g, o = (a[:, k * size:(k + 1) * size] for k in range(4))
            cell = dc[:rows] + d * o * (1 - tc * tc)
            d_gi[span] = np.concatenate([cell * g * i * (1 - i), cell * saved["c_prev"][span] * f * (1 - f),
                                         cell * i * (1 - g * g), d * tc * o * (1 - o)], axis=1)
            dc[:rows] = cell * f
            dh[:rows] = d_gi[span] @ w_hh
        elif mode == "GRU":
            r, z, nn = (a[:, k * size:(k + 1) * size] for k in range(3))
            dn = d * (1 - z) * (1 - nn * nn)
            dr = dn * saved["h_n"][span] * r * (1 - r)
            dz = d * (saved["h_prev"][span] - nn) * z * (1 - z)
            d_gi[span] = np.concatenate([dr, dz, dn], axis=1)
            d_hg[span] = np.concatenate([dr, dz, dn * r], axis=1)
            dh[:rows] = d * z + d_hg[span] @ w_hh
        else:
            d_gi[span] = d * (1 - a * a) if mode == "RNN_TANH" else np.where(a <= 0, 0, d)
            dh[:rows] = d_gi[span] @ w_hh
    return d_gi, d_hg, [dh] if dc is None else [dh, dc]


def _hurwitz_zeta(x, q):
    """``sum_k (q + k)^-x`` (mpmath numbers): the first terms summed, then Euler-Maclaurin
    at ``a = q + n`` far beyond ``x`` (mpmath.zeta itself loses digits for large ``x`` and ``q``)."""
    import mpmath

    if x == 1:
        return mpmath.inf
    n = int(60 + 2 * abs(x))
    a = q + n
    total = mpmath.fsum((q + k) ** -x for k in range(n))
    tail = a ** (1 - x) / (x - 1) + a ** -x / 2
    tail += mpmath.fsum(mpmath.bernoulli(2 * j) / mpmath.factorial(2 * j) * mpmath.rf(x, 2 * j - 1)
                        * a ** (-x - 2 * j + 1) for j in range(1, 12))
    return total + tail


def cylinder_reference(name, *args):
    """``kernels.cylinder``'s functions element by element with mpmath at 40 digits (exact
    to float64): ``name`` is the ufunc's name, ``args`` its float64 arrays (broadcast)."""
    import mpmath

    with mpmath.workdps(40):
        formulas = {
            "zeta": _hurwitz_zeta,
            "bessel_j0": lambda x: mpmath.besselj(0, x), "bessel_j1": lambda x: mpmath.besselj(1, x),
            "bessel_y0": lambda x: mpmath.bessely(0, x), "bessel_y1": lambda x: mpmath.bessely(1, x),
            "modified_bessel_k0": lambda x: mpmath.besselk(0, x),
            "modified_bessel_k1": lambda x: mpmath.besselk(1, x),
            "scaled_modified_bessel_k0": lambda x: mpmath.besselk(0, x) * mpmath.exp(x),
            "scaled_modified_bessel_k1": lambda x: mpmath.besselk(1, x) * mpmath.exp(x),
        }
        arrays = np.broadcast_arrays(*(np.asarray(a, dtype=np.float64) for a in args))
        out = np.empty(arrays[0].shape)
        for idx in itertools.product(*(range(n) for n in out.shape)):
            out[idx] = float(formulas[name](*(mpmath.mpf(float(a[idx])) for a in arrays)))
        return out


def cylinder_chebyshev(table):
    """A table of Chebyshev coefficients of ``kernels/cylinder.py`` (the first halved),
    recomputed with mpmath at 40 digits: ``c_j = (2/N) sum_k f(u_k) cos(pi j (k + 1/2) / N)`` at
    the ``N`` nodes ``u_k = cos(pi (k + 1/2) / N)``. ``_K<n>_NEAR``: ``e^x sqrt(x) K_n(x)``,
    ``x = (u + 3) / 2``, 24 from 40 nodes; ``_K<n>_FAR``: the same, ``x = 4 / (u + 1)``, 27 from
    60; ``_P<n>_NEAR``/``_Q<n>_NEAR``: Hankel's ``P_n``/``Q_n``, ``x = 2 / (u + 1)``, 46 from 90;
    ``_P<n>_FAR``/``_Q<n>_FAR``: the same, ``x = 16 / (u + 1)``, 18 from 40."""
    import mpmath

    kind, n = table[1], int(table[2])
    if kind == "K" and table.endswith("NEAR"):
        count, nodes, to_x = 24, 40, lambda u: (u + 3) / 2
    elif kind == "K":
        count, nodes, to_x = 27, 60, lambda u: 4 / (u + 1)
    elif table.endswith("NEAR"):
        count, nodes, to_x = 46, 90, lambda u: 2 / (u + 1)
    else:
        count, nodes, to_x = 18, 40, lambda u: 16 / (u + 1)

    def f(x):
        if kind == "K":
            return mpmath.exp(x) * mpmath.sqrt(x) * mpmath.besselk(n, x)
        w = x - (2 * n + 1) * mpmath.pi / 4
        j, y = mpmath.besselj(n, x), mpmath.bessely(n, x)
        rotated = j * mpmath.cos(w) + y * mpmath.sin(w) if kind == "P" else y * mpmath.cos(w) - j * mpmath.sin(w)
        return rotated / mpmath.sqrt(2 / (mpmath.pi * x))

    with mpmath.workdps(40):
        angles = [mpmath.pi * (k + mpmath.mpf(1) / 2) / nodes for k in range(nodes)]
        values = [f(to_x(mpmath.cos(a))) for a in angles]
        coefficients = [2 * mpmath.fsum(v * mpmath.cos(j * a) for v, a in zip(values, angles)) / nodes
                        for j in range(count)]
        coefficients[0] /= 2
        return tuple(float(c) for c in coefficients)
