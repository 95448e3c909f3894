"""Recover a wave-speed profile from a recorded trace: a leapfrog finite-difference scheme for
the 1-D wave equation on a ring (torch.roll for the Laplacian) with an absorbing sponge
written into slices in place, the displacement kept in a preallocated history tensor with
index_copy_, and the misfit at a receiver differentiated with respect to the speeds."""

import math

import torch


def simulate(log_c, u0, steps, dt, dx):
    n = u0.shape[0]
    c2 = torch.exp(2 * log_c)
    sponge = torch.ones(n, dtype=u0.dtype)
    ramp = torch.linspace(0.9, 1.0, 6, dtype=u0.dtype)
    sponge[:6] = ramp
    sponge[-6:] = ramp.flip(0)
    history = torch.empty(steps, n, dtype=u0.dtype)
    prev = u0.clone()
    cur = u0.clone()
    for k in range(steps):
        lap = (torch.roll(cur, 1) - 2 * cur + torch.roll(cur, -1)) / dx ** 2
        nxt = 2 * cur - prev + dt ** 2 * c2 * lap
        nxt[:6] *= sponge[:6]
        nxt[-6:].mul_(sponge[-6:])
        prev, cur = cur, nxt
        history.index_copy_(0, torch.tensor([k]), cur.unsqueeze(0))
    return history


def run():
    n, steps, dx, dt = 48, 60, 1.0 / 48, 0.004
    x = torch.arange(n, dtype=torch.float64) * dx
    u0 = torch.exp(-((x - 0.5) / 0.05) ** 2)
    true_log_c = torch.log(1.0 + 0.5 * torch.sigmoid((x - 0.7) / 0.03))
    with torch.no_grad():
        recorded = simulate(true_log_c, u0, steps, dt, dx)[:, 10]
    log_c = torch.zeros(n, dtype=torch.float64, requires_grad=True)
    opt = torch.optim.RMSprop([log_c], lr=0.01, alpha=0.9)
    misfits = []
    for _ in range(4):
        opt.zero_grad()
        history = simulate(log_c, u0, steps, dt, dx)
        misfit = (history[:, 10] - recorded).pow(2).sum() + 1e-3 * log_c.diff().pow(2).sum()
        misfit.backward()
        opt.step()
        misfits.append(misfit.item())
    energy = history.pow(2).sum(1)
    cfl = (log_c.detach().exp().max() * dt / dx).item()
    return {
        "misfits": torch.tensor(misfits),
        "log_c": log_c,
        "grad": log_c.grad,
        "energy": energy,
        "cfl": cfl,
        "peak": history.abs().argmax(dim=1),
        "stable": float(cfl < 1.0 and math.isfinite(energy.sum().item())),
    }


if __name__ == "__main__":
    print(run())
