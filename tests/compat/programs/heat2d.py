"""2-D heat equation, finite volumes, updated in place through an interior view."""

import numpy as np
import torch


def run():
    rng = np.random.default_rng(3)
    u0 = torch.tensor(rng.random((12, 10)), requires_grad=True)
    alpha = torch.tensor(0.2, dtype=torch.float64, requires_grad=True)
    u = u0.clone()
    for _ in range(15):
        lap = u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2] - 4 * u[1:-1, 1:-1]
        u[1:-1, 1:-1] += alpha * lap
        u[0, :] = u[1, :]  # insulated edges
        u[-1, :] = u[-2, :]
    energy = (u ** 2).sum()
    energy.backward()
    return {"u": u, "energy": energy, "grad_u0": u0.grad, "grad_alpha": alpha.grad}


if __name__ == "__main__":
    print(run())
