"""Jitted CTC forward (log alpha, negative log likelihood) and backward (log beta, gradient).

Graves et al. (2006), in log space, over the extended target ``l'`` = blank, l_1, blank,
l_2, ..., l_L, blank (position ``s``: the blank when ``s`` is even, ``l_{(s+1)/2}`` when
odd). A state ``s`` is reached at step ``t`` from ``s``, ``s - 1``, and ``s - 2`` when
``l'_s`` differs from ``l'_{s-2}`` (a skip over a blank between two different labels).
Each log-sum of two or three terms subtracts their maximum first (zero when all are -inf),
adds the exponentials left to right, then takes the log and adds the maximum back, in the
buffers' dtype with the C library's ``exp``/``log``: the operations and their order are
PyTorch's CPU kernel's, so the results are its bits.

The gradient with respect to the log probabilities is PyTorch's, ``exp(lp) - exp(log
gamma + nll - lp)`` per step and class (``gamma``: the alpha-beta products of the states of
that class, log-summed in descending ``s``), times the incoming gradient, and zero past an
input's length (or everywhere, with ``zero_infinity``, for an impossible alignment). It
equals the true derivative only after a ``log_softmax`` (the ``exp(lp)`` term), which is
how CTC is used; PyTorch returns the same.

Shapes: ``lp`` (T, N, C); ``targets`` (N, max_len) padded; lengths (N,); ``alpha``/``beta``
(N, T, 2 max_len + 1). The caller (``nn/_ctc.py``) validates lengths and labels first, so
every index stays inside its buffer. Self-contained (see ``_policy.py``): calls only
``math``.
"""
from __future__ import annotations

import math

import numpy as np

from ._policy import jit


@jit
def _prime(targets, b, s, blank):  # pragma: no cover - runs compiled
    """``l'_s`` of sequence ``b``."""
    if s % 2 == 0:
        return blank
    return targets[b, s // 2]


@jit
def _log_sum3(x1, x2, x3, neginf, zero):  # pragma: no cover - runs compiled
    """``log(exp(x1) + exp(x2) + exp(x3))`` with the maximum taken out (zero if all -inf)."""
    top = x1
    if x2 > top:
        top = x2
    if x3 > top:
        top = x3
    if top == neginf:
        top = zero
    return math.log(math.exp(x1 - top) + math.exp(x2 - top) + math.exp(x3 - top)) + top


@jit
def ctc_alpha(lp, targets, input_lengths, target_lengths, blank, alpha, nll):  # pragma: no cover
    """Fill ``alpha`` (log forward variables) and ``nll`` (minus the log likelihood)."""
    neginf = lp.dtype.type(-np.inf)
    zero = lp.dtype.type(0.0)
    for b in range(lp.shape[1]):
        length = input_lengths[b]
        labels = target_lengths[b]
        for s in range(alpha.shape[2]):
            for t in range(alpha.shape[1]):
                alpha[b, t, s] = neginf
        if length == 0:
            nll[b] = -zero if labels == 0 else -neginf
            continue
        alpha[b, 0, 0] = lp[0, b, blank]
        if labels > 0:
            alpha[b, 0, 1] = lp[0, b, targets[b, 0]]
        for t in range(1, length):
            for s in range(2 * labels + 1):
                current = _prime(targets, b, s, blank)
                a2 = alpha[b, t - 1, s - 1] if s > 0 else neginf
                a3 = neginf
                if s > 1 and _prime(targets, b, s - 2, blank) != current:
                    a3 = alpha[b, t - 1, s - 2]
                alpha[b, t, s] = _log_sum3(alpha[b, t - 1, s], a2, a3, neginf, zero) + lp[t, b, current]
        if labels == 0:
            nll[b] = -alpha[b, length - 1, 0]
        else:
            nll[b] = -_log_sum3(alpha[b, length - 1, 2 * labels], alpha[b, length - 1, 2 * labels - 1],
                                neginf, neginf, zero)


@jit
def ctc_grad(lp, targets, input_lengths, target_lengths, blank, alpha, nll, grad_out,
             zero_infinity, beta, grad):  # pragma: no cover - runs compiled
    """Fill ``grad`` (T, N, C) with the gradient of ``sum(grad_out * nll)`` (``beta``: scratch)."""
    neginf = lp.dtype.type(-np.inf)
    zero = lp.dtype.type(0.0)
    steps, classes = lp.shape[0], lp.shape[2]
    for b in range(lp.shape[1]):
        for t in range(steps):
            for c in range(classes):
                grad[t, b, c] = neginf
        if zero_infinity and nll[b] == -neginf:
            for t in range(steps):
                for c in range(classes):
                    grad[t, b, c] = zero
            continue
        length = input_lengths[b]
        labels = target_lengths[b]
        end = 2 * labels
        if length > 0:
            for s in range(beta.shape[2]):
                beta[b, length - 1, s] = neginf
            beta[b, length - 1, end] = lp[length - 1, b, blank]
            grad[length - 1, b, blank] = alpha[b, length - 1, end] + beta[b, length - 1, end]
            if labels > 0:
                current = targets[b, labels - 1]
                beta[b, length - 1, end - 1] = lp[length - 1, b, current]
                grad[length - 1, b, current] = alpha[b, length - 1, end - 1] + beta[b, length - 1, end - 1]
        for t in range(length - 2, -1, -1):
            for s in range(end, -1, -1):
                current = _prime(targets, b, s, blank)
                b2 = beta[b, t + 1, s + 1] if s < end else neginf
                b3 = neginf
                if s < end - 1 and _prime(targets, b, s + 2, blank) != current:
                    b3 = beta[b, t + 1, s + 2]
                beta[b, t, s] = _log_sum3(beta[b, t + 1, s], b2, b3, neginf, zero) + lp[t, b, current]
                both = alpha[b, t, s] + beta[b, t, s]
                held = grad[t, b, current]
                if held == neginf:
                    grad[t, b, current] = both
                else:
                    grad[t, b, current] = _log_sum3(held, both, neginf, neginf, zero)
        scale = grad_out[b]
        loss = nll[b]
        for t in range(length):
            for c in range(classes):
                p = lp[t, b, c]
                grad[t, b, c] = (math.exp(p) - math.exp(grad[t, b, c] + loss - p)) * scale
        for t in range(length, steps):
            for c in range(classes):
                grad[t, b, c] = zero
