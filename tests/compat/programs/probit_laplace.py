"""Bayesian probit regression with a Laplace approximation: the log likelihood through
special.log_ndtr (stable for confident misfits), the MAP by Newton's method with the exact
Hessian from torch.func.hessian, a Cholesky factor of the posterior precision taken with
linalg.cholesky_ex (adding jitter while info says it failed), the log evidence through
slogdet, and predictive probabilities by special.ndtr of the probit-scaled mean, with
credible bounds from special.ndtri."""

import math

import numpy as np
import torch
from torch.func import hessian


def log_posterior(w, x, y, prior_var):
    z = (2 * y - 1) * (x @ w)
    return torch.special.log_ndtr(z).sum() - 0.5 * (w * w).sum() / prior_var


def run():
    torch.set_default_dtype(torch.float64)
    rng = np.random.default_rng(31)
    n, d = 60, 3
    x = torch.from_numpy(np.concatenate([np.ones((n, 1)), rng.standard_normal((n, d - 1))], axis=1))
    w_true = torch.tensor([0.3, 2.0, -1.5])
    y = (torch.from_numpy(rng.standard_normal(n)) + x @ w_true > 0).to(torch.get_default_dtype())
    prior_var = 4.0

    w = torch.zeros(d)
    path = []
    for _ in range(8):
        w = w.detach().requires_grad_()
        lp = log_posterior(w, x, y, prior_var)
        (g,) = torch.autograd.grad(lp, w)
        H = hessian(lambda v: log_posterior(v, x, y, prior_var))(w.detach())
        step = torch.linalg.solve(-H, g)
        w = w.detach() + step
        path.append(lp.item())

    precision = -hessian(lambda v: log_posterior(v, x, y, prior_var))(w)
    jitter, tries = 0.0, 0
    while True:
        L, info = torch.linalg.cholesky_ex(precision + jitter * torch.eye(d))
        if info.item() == 0:
            break
        jitter, tries = max(2 * jitter, 1e-8), tries + 1
    cov = torch.cholesky_inverse(L)
    sign, logdet = torch.linalg.slogdet(precision)
    evidence = log_posterior(w, x, y, prior_var) + 0.5 * d * math.log(2 * math.pi) - 0.5 * logdet \
        - 0.5 * d * math.log(2 * math.pi * prior_var)

    x_new = torch.tensor([[1.0, 0.5, 0.5], [1.0, -1.0, 2.0], [1.0, 2.0, -2.0]])
    mean = x_new @ w
    var = torch.einsum(x_new, [0, 1], cov, [1, 2], x_new, [0, 2], [0])
    prob = torch.special.ndtr(mean / torch.sqrt(1 + var))
    z90 = torch.special.ndtri(torch.tensor(0.95))
    bounds = torch.stack([mean - z90 * var.sqrt(), mean + z90 * var.sqrt()], dim=1)
    return {
        "path": torch.tensor(path),
        "w": w,
        "cov": cov,
        "tries": tries,
        "sign": sign,
        "evidence": evidence,
        "prob": prob,
        "bounds": torch.special.ndtr(bounds),
        "cond": torch.linalg.cond(precision),
    }


if __name__ == "__main__":
    print(run())
