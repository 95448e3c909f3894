"""Gaussian-process negative log marginal likelihood through a Cholesky factor, with the
gradient for the kernel hyperparameters (log length scale, log signal, log noise)."""

import math

import numpy as np
import torch


def neg_log_likelihood(x, y, log_ell, log_sf, log_sn):
    n = x.shape[0]
    sq = ((x.unsqueeze(1) - x.unsqueeze(0)) ** 2).sum(-1)
    K = torch.exp(2 * log_sf) * torch.exp(-0.5 * sq / torch.exp(2 * log_ell))
    K = K + torch.exp(2 * log_sn) * torch.eye(n, dtype=x.dtype)
    L = torch.linalg.cholesky(K)
    alpha = torch.cholesky_solve(y.unsqueeze(1), L).squeeze(1)
    logdet = 2 * torch.log(torch.diagonal(L)).sum()
    return 0.5 * (y @ alpha) + 0.5 * logdet + 0.5 * n * math.log(2 * math.pi)


def run():
    rng = np.random.default_rng(7)
    x = torch.tensor(rng.uniform(-2, 2, (10, 1)))
    y = torch.sin(3 * x[:, 0]) + 0.1 * torch.tensor(rng.standard_normal(10))
    hyper = [torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in (-0.5, 0.0, -2.0)]
    nll = neg_log_likelihood(x, y, *hyper)
    nll.backward()
    return {"nll": nll, "grads": [h.grad for h in hyper]}


if __name__ == "__main__":
    print(run())
