"""Small numeric programs written for PyTorch that use ``torch.distributions``, run
unchanged with ``lib=torch`` and ``lib=jitgrad``: what they compute must agree."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

import jitgrad
from distribution_cases import compare

DATA = np.concatenate([np.random.default_rng(0).normal(-2.0, 0.5, 40), np.random.default_rng(1).normal(1.5, 1.0, 60)])


def fit_gaussian_mixture(lib: Any) -> Any:
    """Maximum likelihood of a 2-component Gaussian mixture by Adam, 30 steps."""
    D = lib.distributions
    x = lib.tensor(DATA, dtype=lib.float64)
    logits = lib.zeros(2, dtype=lib.float64, requires_grad=True)
    locs = lib.tensor([-1.0, 1.0], dtype=lib.float64, requires_grad=True)
    log_scales = lib.zeros(2, dtype=lib.float64, requires_grad=True)
    opt = lib.optim.Adam([logits, locs, log_scales], lr=0.05)
    for _ in range(30):
        opt.zero_grad()
        mixture = D.MixtureSameFamily(D.Categorical(logits=logits), D.Normal(locs, log_scales.exp()))
        loss = -mixture.log_prob(x).mean()
        loss.backward()
        opt.step()
    return loss.detach(), logits.detach(), locs.detach(), log_scales.detach(), mixture.mean.detach()


def bayesian_linear_regression(lib: Any) -> Any:
    """The posterior of linear-regression weights (a MultivariateNormal from a precision
    matrix), its KL to the prior, the evidence, and the gradients of both w.r.t. the noise."""
    D = lib.distributions
    rng = np.random.default_rng(2)
    X = lib.tensor(rng.normal(size=(20, 3)), dtype=lib.float64)
    y = lib.tensor(rng.normal(size=20), dtype=lib.float64)
    log_noise = lib.tensor(-0.5, dtype=lib.float64, requires_grad=True)
    noise = log_noise.exp()
    prior = D.MultivariateNormal(lib.zeros(3, dtype=lib.float64), covariance_matrix=lib.eye(3, dtype=lib.float64))
    precision = lib.eye(3, dtype=lib.float64) + X.T @ X / noise**2
    mean = lib.linalg.solve(precision, X.T @ y / noise**2)
    posterior = D.MultivariateNormal(mean, precision_matrix=precision)
    kl = D.kl_divergence(posterior, prior)
    evidence = D.MultivariateNormal(lib.zeros(20, dtype=lib.float64),
                                    covariance_matrix=X @ X.T + noise**2 * lib.eye(20, dtype=lib.float64))
    log_evidence = evidence.log_prob(y)
    grads = lib.autograd.grad(log_evidence - kl, log_noise)
    return kl, log_evidence, posterior.entropy(), posterior.variance, grads


def beta_bernoulli_and_constraints(lib: Any) -> Any:
    """A Beta-Bernoulli model fitted in unconstrained space (transform_to), with a Beta
    prior's log density and its entropy."""
    D = lib.distributions
    flips = lib.tensor([1.0, 0.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0], dtype=lib.float64)
    raw = lib.tensor(0.0, dtype=lib.float64, requires_grad=True)
    to_unit = D.transform_to(D.constraints.unit_interval)
    opt = lib.optim.SGD([raw], lr=0.1)
    for _ in range(25):
        opt.zero_grad()
        p = to_unit(raw)
        loss = -(D.Bernoulli(probs=p).log_prob(flips).sum() + D.Beta(2.0, 2.0).log_prob(p))
        loss.backward()
        opt.step()
    return loss.detach(), to_unit(raw).detach(), D.Beta(2.0 + flips.sum(), 2.0 + (1 - flips).sum()).entropy()


def test_fit_gaussian_mixture() -> None:
    compare(fit_gaussian_mixture(jitgrad), fit_gaussian_mixture(torch), rtol=1e-9)


def test_bayesian_linear_regression() -> None:
    compare(bayesian_linear_regression(jitgrad), bayesian_linear_regression(torch), rtol=1e-9)


def test_beta_bernoulli_and_constraints() -> None:
    compare(beta_bernoulli_and_constraints(jitgrad), beta_bernoulli_and_constraints(torch), rtol=1e-9)
