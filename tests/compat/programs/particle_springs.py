"""Particles joined by springs, falling onto a floor: symplectic Euler with positions and
velocities updated in place (add_ on clones, a bounce written through a boolean-masked
column, a pinned particle reset through a row view), spring forces accumulated per particle
with index_add_, the kinetic and potential energy written into preallocated rows; the final
spread is differentiated with respect to the stiffness, the masses and the start."""

import numpy as np
import torch


def spring_forces(x, src, dst, rest, k):
    d = x[dst] - x[src]
    length = torch.linalg.vector_norm(d, dim=1, keepdim=True)
    pull = k * (length - rest) * d / length
    f = torch.zeros_like(x)
    f.index_add_(0, src, pull)
    f.index_add_(0, dst, -pull)
    return f, 0.5 * (k * (length - rest) ** 2).sum()


def simulate(x0, v0, mass, log_k, src, dst, rest, steps=40, dt=0.01):
    x = x0.clone()
    v = v0.clone()
    k = log_k.exp()
    inv_m = mass.reciprocal().unsqueeze(1)
    gravity = torch.tensor([0.0, -9.81], dtype=x.dtype)
    energy = torch.zeros(steps, 2, dtype=x.dtype)
    anchor = x0[0].detach().clone()
    for t in range(steps):
        f, spring = spring_forces(x, src, dst, rest, k)
        v.add_(f * inv_m + gravity, alpha=dt)
        v[0] = 0.0                                 # particle 0 is pinned
        x.add_(v, alpha=dt)
        x[0] = anchor
        below = x[:, 1] < 0
        if bool(below.any()):
            x[:, 1] = torch.where(below, -x[:, 1], x[:, 1])
            v[below, 1] *= -0.7
        xs, vs = x.clone(), v.clone()   # x and v change in place next step
        energy[t, 0] = 0.5 * (mass * (vs ** 2).sum(dim=1)).sum()
        energy[t, 1] = spring + (mass * 9.81 * xs[:, 1]).sum()
    return x, v, energy


def run():
    rng = np.random.default_rng(21)
    n = 6
    x0 = torch.tensor(rng.uniform(0.1, 1.0, (n, 2)), requires_grad=True)
    v0 = torch.tensor(rng.normal(0.0, 0.5, (n, 2)))
    mass = torch.tensor(rng.uniform(0.5, 2.0, n), requires_grad=True)
    log_k = torch.tensor(3.0, dtype=torch.float64, requires_grad=True)
    src = torch.tensor([0, 1, 2, 3, 4, 0, 1], dtype=torch.int64)
    dst = torch.tensor([1, 2, 3, 4, 5, 2, 4], dtype=torch.int64)
    rest = torch.tensor(rng.uniform(0.2, 0.4, (7, 1)))
    x, v, energy = simulate(x0, v0, mass, log_k, src, dst, rest)
    centre = x.mean(dim=0)
    spread = ((x - centre) ** 2).sum() + 0.1 * energy[:, 0].max()
    spread.backward()
    return {"x": x, "v": v, "energy": energy, "spread": spread,
            "g_x0": x0.grad, "g_mass": mass.grad, "g_log_k": log_k.grad}


if __name__ == "__main__":
    print(run())
