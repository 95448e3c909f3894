"""Gaussian-process regression: an RBF kernel with a learnable length scale, signal and
noise (positive through softplus), fitted by Adam on the negative log marginal likelihood
through a Cholesky factor and triangular solves; then the posterior mean and variance at
test points under no_grad, with a ReduceLROnPlateau schedule watching the loss."""

import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class RBFRegressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.raw_ell = nn.Parameter(torch.tensor(0.3))
        self.raw_sf = nn.Parameter(torch.tensor(0.5))
        self.raw_sn = nn.Parameter(torch.tensor(-1.0))

    def hyper(self):
        return F.softplus(self.raw_ell), F.softplus(self.raw_sf), F.softplus(self.raw_sn) + 1e-4

    def kernel(self, a, b):
        ell, sf, _ = self.hyper()
        d = torch.cdist(a / ell, b / ell)
        return sf.pow(2) * torch.exp(-0.5 * d.square())

    def factor(self, x):
        _, _, sn = self.hyper()
        k = self.kernel(x, x)
        k.diagonal().add_(sn ** 2)
        return torch.linalg.cholesky(k)

    def nll(self, x, y):
        chol = self.factor(x)
        z = torch.linalg.solve_triangular(chol, y.unsqueeze(-1), upper=False)
        fit = 0.5 * z.pow(2).sum()
        logdet = chol.diagonal().log().sum()
        return fit + logdet + 0.5 * len(y) * math.log(2 * math.pi)

    def predict(self, x, y, xs):
        chol = self.factor(x)
        alpha = torch.cholesky_solve(y.unsqueeze(-1), chol)
        ks = self.kernel(xs, x)
        mean = (ks @ alpha).squeeze(-1)
        v = torch.linalg.solve_triangular(chol, ks.mT, upper=False)
        var = self.hyper()[1] ** 2 - v.pow(2).sum(0)
        return mean, var


def run():
    torch.set_default_dtype(torch.float64)
    rng = np.random.default_rng(11)
    x = torch.from_numpy(np.sort(rng.uniform(-3, 3, (14, 1)), axis=0))
    y = torch.sin(2 * x).squeeze(1) + 0.05 * torch.from_numpy(rng.standard_normal(14))
    y = y - y.mean()
    model = RBFRegressor()
    opt = torch.optim.Adam(model.parameters(), lr=0.05, betas=(0.8, 0.95))
    sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, factor=0.5, patience=2)
    losses = []
    for _ in range(25):
        opt.zero_grad(set_to_none=True)
        loss = model.nll(x, y)
        loss.backward()
        opt.step()
        sched.step(loss.item())
        losses.append(loss.item())
    xs = torch.linspace(-3.5, 3.5, 9).unsqueeze(1)
    with torch.no_grad():
        mean, var = model.predict(x, y, xs)
        ell, sf, sn = (h.item() for h in model.hyper())
    return {
        "losses": torch.tensor(losses),
        "lr": opt.param_groups[0]["lr"],
        "hyper": torch.tensor([ell, sf, sn]),
        "mean": mean,
        "std": var.clamp_min(0).sqrt(),
        "grads": [p.grad for p in model.parameters()],
    }


if __name__ == "__main__":
    print(run())
