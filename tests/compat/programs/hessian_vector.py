"""Newton steps on a small smooth objective with autograd.grad(create_graph=True)."""

import numpy as np
import torch


def objective(w, A, b):
    r = A @ w - b
    return (r ** 2).sum() / 2 + torch.log(torch.exp(w) + 1).sum() + (w ** 4).sum() / 4


def run():
    rng = np.random.default_rng(6)
    A = torch.tensor(rng.standard_normal((6, 3)))
    b = torch.tensor(rng.standard_normal(6))
    w = torch.tensor(rng.standard_normal(3), requires_grad=True)
    v = torch.tensor([1.0, -2.0, 0.5], dtype=torch.float64)
    f = objective(w, A, b)
    (g,) = torch.autograd.grad(f, w, create_graph=True)
    (hv,) = torch.autograd.grad(g @ v, w)
    steps = []
    x = w.detach().clone().requires_grad_(True)
    for _ in range(3):
        (gx,) = torch.autograd.grad(objective(x, A, b), x, create_graph=True)
        H = torch.stack([torch.autograd.grad(gx[i], x, retain_graph=True)[0] for i in range(3)])
        with torch.no_grad():
            x -= torch.linalg.solve(H, gx)
        steps.append(x.detach().clone())
    return {"f": f, "g": g, "hv": hv, "steps": steps}


if __name__ == "__main__":
    print(run())
