"""Poisson's equation -lap(u) = f on the unit square by successive over-relaxation in
red-black order: each colour is two strided blocks of the grid (u[1:-1:2, 2:-1:2]...),
updated in place through the view (mul_ then add_); Dirichlet values on the top edge and a
Neumann (copied) left edge are written into slices. The source and the top boundary are
then fitted so that the solution matches readings at a few probes (gradient through every
sweep), and the same sweeps run once more under no_grad to report the residual."""

import numpy as np
import torch


def blocks(u, r0, c0):
    """The cells (r0 + 2i, c0 + 2j) of the interior and their four neighbours, as views."""
    n = u.shape[0] - 2
    rows, cols = slice(r0, n + 1, 2), slice(c0, n + 1, 2)
    up, down = slice(r0 - 1, n, 2), slice(r0 + 1, n + 2, 2)
    left, right = slice(c0 - 1, n, 2), slice(c0 + 1, n + 2, 2)
    return (u[rows, cols], u[up, cols], u[down, cols], u[rows, left], u[rows, right],
            (rows, cols))


def sor(f, top, sweeps, omega=1.6):
    n = f.shape[0]
    h2 = 1.0 / (n + 1) ** 2
    u = torch.zeros(n + 2, n + 2, dtype=f.dtype)
    u[0, 1:-1] = top
    for _ in range(sweeps):
        for colour in ((1, 1), (2, 2), (1, 2), (2, 1)):  # red blocks, then black blocks
            centre, up, down, left, right, idx = blocks(u, *colour)
            gauss_seidel = 0.25 * (up + down + left + right + h2 * f[idx[0].start - 1::2,
                                                                     idx[1].start - 1::2])
            centre.mul_(1 - omega).add_(omega * gauss_seidel)
        u[1:-1, 0] = u[1:-1, 1]
    return u


def residual(u, f):
    n = f.shape[0]
    lap = (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4 * u[1:-1, 1:-1])
    return lap * (n + 1) ** 2 + f


def run():
    rng = np.random.default_rng(9)
    n = 8
    f = torch.tensor(rng.uniform(0.5, 1.5, (n, n)), requires_grad=True)
    top = torch.tensor(np.sin(np.linspace(0.2, 2.9, n)), requires_grad=True)
    probes = torch.tensor([[2, 3], [5, 5], [7, 1], [4, 8]])
    readings = torch.tensor([0.35, 0.12, 0.05, 0.08], dtype=torch.float64)
    losses = []
    for _ in range(3):
        u = sor(f, top, sweeps=6)
        loss = ((u[probes[:, 0], probes[:, 1]] - readings) ** 2).sum()
        loss = loss + 1e-3 * torch.diff(top).pow(2).sum()
        f.grad, top.grad = None, None
        loss.backward()
        with torch.no_grad():
            f -= 2.0 * f.grad
            top -= 0.5 * top.grad
        losses.append(loss.detach())
    with torch.no_grad():
        u = sor(f, top, sweeps=30)
        res = residual(u, f)
    return {"u": u, "residual": res.abs().max(), "losses": losses, "f": f, "top": top,
            "g_f": f.grad, "g_top": top.grad}


if __name__ == "__main__":
    print(run())
