"""Probit regression log-likelihood with erf, log1p and expm1, fitted by a few plain
gradient steps written as in-place updates under no_grad."""

import math

import numpy as np
import torch


def log_likelihood(w, X, y):
    z = X @ w
    cdf = 0.5 * (1 + torch.erf(z / math.sqrt(2)))
    return (y * torch.log(cdf) + (1 - y) * torch.log1p(-cdf)).sum()


def run():
    rng = np.random.default_rng(8)
    X = torch.tensor(rng.standard_normal((30, 3)))
    y = (torch.tensor(rng.standard_normal(30)) + X[:, 0] > 0).to(torch.float64)
    w = torch.zeros(3, dtype=torch.float64, requires_grad=True)
    trace = []
    for _ in range(5):
        ll = log_likelihood(w, X, y)
        (g,) = torch.autograd.grad(ll, w)
        with torch.no_grad():
            w += 0.05 * g
        trace.append(ll.detach())
    rate = torch.expm1(w.detach().abs()).sum()
    return {"trace": torch.stack(trace), "w": w, "rate": rate}


if __name__ == "__main__":
    print(run())
