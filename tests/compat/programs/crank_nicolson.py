"""Heat flow in a rod with an unknown, spatially varying conductivity: Crank-Nicolson steps
with the tridiagonal operator assembled by writing into diagonal views (diagonal(1).copy_),
the implicit side factorised once by lu_factor and reused by lu_solve, the temperature
history kept in a preallocated tensor (one row written per step). The conductivity is
recovered from sparse thermometer readings by Adam; heat content by trapezoid; and the
same step checked against a dense solve and a banded form kept in a (3, n) tensor."""

import numpy as np
import torch


def operator(kappa, h):
    """Second difference with conductivity at the cell faces; zero-temperature ends."""
    n = kappa.shape[0] - 1
    L = torch.zeros(n, n, dtype=kappa.dtype)
    L.diagonal().copy_(-(kappa[:-1] + kappa[1:]) / h ** 2)
    L.diagonal(1).copy_(kappa[1:-1] / h ** 2)
    L.diagonal(-1).copy_(kappa[1:-1] / h ** 2)
    return L


def simulate(log_kappa, u0, dt, steps, h):
    n = u0.shape[0]
    L = operator(torch.nn.functional.softplus(log_kappa), h)
    eye = torch.eye(n, dtype=u0.dtype)
    lu, pivots = torch.linalg.lu_factor(eye - 0.5 * dt * L)
    explicit = eye + 0.5 * dt * L
    history = u0.new_zeros((steps + 1, n))
    history[0] = u0
    u = u0
    for t in range(steps):
        u = torch.linalg.lu_solve(lu, pivots, (explicit @ u).unsqueeze(-1)).squeeze(-1)
        history[t + 1] = u
    return history, L


def banded_product(L):
    """L as its three diagonals (rows: upper, main, lower), as in LAPACK's banded storage."""
    n = L.shape[0]
    band = L.new_zeros((3, n))
    band[0, 1:] = torch.diagonal(L, offset=1)
    band[1] = torch.diagonal(L)
    band[2, :-1] = torch.diagonal(L, offset=-1)
    return band


def run():
    n, steps, dt = 15, 12, 2e-3
    h = 1.0 / (n + 1)
    x = torch.linspace(h, 1 - h, n, dtype=torch.float64)
    u0 = torch.sin(torch.pi * x) + 0.5 * torch.sin(3 * torch.pi * x)
    faces = torch.linspace(0, 1, n + 1, dtype=torch.float64)
    truth = torch.log(torch.expm1(0.3 + 0.4 * torch.sigmoid(8 * (faces - 0.5))))
    with torch.no_grad():
        observed, _ = simulate(truth, u0, dt, steps, h)
    times, sensors = torch.tensor([3, 6, 12]), torch.tensor([2, 7, 11])
    readings = observed[times][:, sensors]

    log_kappa = torch.zeros(n + 1, dtype=torch.float64, requires_grad=True)
    opt = torch.optim.Adam([log_kappa], lr=0.1)
    losses = []
    for _ in range(5):
        opt.zero_grad()
        history, _ = simulate(log_kappa, u0, dt, steps, h)
        misfit = (history[times][:, sensors] - readings).pow(2).mean()
        loss = misfit + 1e-3 * torch.diff(log_kappa).pow(2).sum()
        loss.backward()
        opt.step()
        losses.append(loss.detach())

    history, L = simulate(log_kappa, u0, dt, steps, h)
    content = torch.trapezoid(history, dx=h, dim=1)
    content.sum().backward()
    eye = torch.eye(n, dtype=torch.float64)
    dense = torch.linalg.solve(eye - 0.5 * dt * L, (eye + 0.5 * dt * L) @ u0)
    band = banded_product(L)
    banded_Lu = band[1] * u0
    banded_Lu[:-1] += band[0, 1:] * u0[1:]
    banded_Lu[1:] += band[2, :-1] * u0[:-1]
    return {"losses": losses, "log_kappa": log_kappa, "history": history,
            "content": content, "grad": log_kappa.grad, "dense_step": dense,
            "banded_Lu": banded_Lu, "Lu": L @ u0}


if __name__ == "__main__":
    print(run())
