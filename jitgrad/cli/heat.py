"""The inverse heat problem behind ``python -m jitgrad demo``, written once for any library
with PyTorch's API (``lib`` is ``jitgrad`` or ``torch``), so the demo and the tests run the
identical program on both.

Forward model: the explicit scheme for ``u_t = D u_xx`` on a grid with fixed (zero) boundary
values, one in-place write into a view per time step::

    u[1:-1] += alpha * (u[2:] - 2 * u[1:-1] + u[:-2])      # stable for alpha <= 1/2

Every step overwrites the interior that the next step reads, so the backward pass has to
rebase each step's graph onto the tensor's new history (``CopySlices``).

Identifiability: observing only the final state cannot separate ``alpha`` from ``u0``: the
scheme is a semigroup, so a smoother ``u0`` with a smaller ``alpha`` produces (almost) the same
final state, and a smoothness penalty then drives ``alpha`` towards 0. Noisy snapshots at a few
times (the last one the final state) pin the rate of spreading, hence ``alpha``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

ALPHA_MAX = 0.5  # stability limit of the explicit scheme
BUMPS = ((0.25, 0.04, 1.0), (0.5, 0.06, -0.7), (0.72, 0.03, 0.8))  # centre, width, height
SNAPSHOTS = 4
NOISE = 0.01
SMOOTHNESS = 1e-4
ALPHA_TRUE = 0.3
ALPHA_START = 0.1


@dataclass
class HeatProblem:
    """Synthetic data: the true initial interior ``u0_true`` (``n - 2`` points), the true
    ``alpha``, and noisy interior snapshots ``observed[i]`` taken after ``observe[i]`` steps."""

    n: int
    steps: int
    u0_true: np.ndarray
    alpha_true: float
    observe: tuple[int, ...]
    observed: list[np.ndarray]
    smoothness: float = SMOOTHNESS


def simulate(lib: Any, u0: Any, alpha: Any, steps: int, observe: tuple[int, ...]) -> list[Any]:
    """Run ``steps`` explicit steps from interior ``u0``; return the interior after each step
    listed in ``observe`` (copies: the state itself keeps changing in place)."""
    u = lib.zeros(u0.shape[0] + 2, dtype=u0.dtype)
    u[1:-1] = u0
    snapshots = []
    for k in range(1, steps + 1):
        u[1:-1] += alpha * (u[2:] - 2 * u[1:-1] + u[:-2])
        if k in observe:
            snapshots.append(u[1:-1].clone())
    return snapshots


def objective(lib: Any, problem: HeatProblem, u0: Any, alpha: Any, observed: list[Any]) -> tuple[Any, Any]:
    """``(loss, misfit)``: mean squared misfit over the snapshots, plus the smoothness penalty
    ``smoothness * sum((u0[i+1] - u0[i])**2)`` (boundaries included)."""
    snapshots = simulate(lib, u0, alpha, problem.steps, problem.observe)
    misfit = sum(((s - o) ** 2).mean() for s, o in zip(snapshots, observed)) / len(observed)
    zero = lib.zeros(1, dtype=u0.dtype)
    d = lib.cat([u0, zero]) - lib.cat([zero, u0])
    return misfit + problem.smoothness * (d * d).sum(), misfit


def alpha_of(lib: Any, theta: Any) -> Any:
    """``alpha = ALPHA_MAX * sigmoid(theta)``: every value of ``theta`` is a stable scheme."""
    return ALPHA_MAX * lib.sigmoid(theta)


def theta_of(alpha: float) -> float:
    """Inverse of ``alpha_of``."""
    p = alpha / ALPHA_MAX
    return float(np.log(p / (1.0 - p)))


def make_problem(n: int, steps: int, seed: int, alpha_true: float = ALPHA_TRUE) -> HeatProblem:
    """Gaussian bumps on an ``n``-point grid, simulated in NumPy (an independent reference of
    the same scheme), observed ``SNAPSHOTS`` times with Gaussian noise of std ``NOISE``."""
    if n < 8:
        raise ValueError(f"demo: grid size n must be at least 8, got {n}")
    if steps < SNAPSHOTS:
        raise ValueError(f"demo: steps must be at least {SNAPSHOTS}, got {steps}")
    x = np.arange(1, n - 1) / (n - 1)
    u0_true = sum(h * np.exp(-0.5 * ((x - c) / w) ** 2) for c, w, h in BUMPS)
    observe = tuple(steps * (i + 1) // SNAPSHOTS for i in range(SNAPSHOTS))
    rng = np.random.default_rng(seed)
    u = np.zeros(n)
    u[1:-1] = u0_true
    observed = []
    for k in range(1, steps + 1):
        u[1:-1] += alpha_true * (u[2:] - 2 * u[1:-1] + u[:-2])
        if k in observe:
            observed.append(u[1:-1] + NOISE * rng.standard_normal(n - 2))
    return HeatProblem(n, steps, u0_true, alpha_true, observe, observed)
