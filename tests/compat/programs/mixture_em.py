"""Cluster 2-D points: k-means (cdist, argmin, index_add_ / scatter_add_ / bincount for the
new centres), then EM for a Gaussian mixture with full covariances started from k-means
(responsibilities by logsumexp, MultivariateNormal log densities, Cholesky-parameterised
covariances), and the gradient of the final log likelihood with respect to the means."""

import numpy as np
import torch
from torch.distributions import MultivariateNormal


def kmeans(points, centres, iters):
    k = centres.shape[0]
    for _ in range(iters):
        assign = torch.cdist(points, centres).argmin(dim=1)
        sums = torch.zeros_like(centres).index_add_(0, assign, points)
        counts = torch.bincount(assign, minlength=k).to(points.dtype)
        centres = sums / counts.clamp(min=1).unsqueeze(1)
    inertia = torch.zeros(k, dtype=points.dtype).scatter_add_(
        0, assign, (points - centres[assign]).pow(2).sum(1))
    return centres, assign, inertia


def log_joint(points, weights, means, covs):
    dist = MultivariateNormal(means, covariance_matrix=covs)
    return dist.log_prob(points.unsqueeze(1)) + weights.log()


def em(points, means, iters):
    n, d = points.shape
    k = means.shape[0]
    weights = torch.full((k,), 1.0 / k, dtype=points.dtype)
    covs = torch.eye(d, dtype=points.dtype).expand(k, d, d).clone()
    history = []
    for _ in range(iters):
        joint = log_joint(points, weights, means, covs)
        norm = torch.logsumexp(joint, dim=1, keepdim=True)
        history.append(norm.sum().item())
        resp = (joint - norm).exp()
        nk = resp.sum(0)
        weights = nk / n
        means = (resp.T @ points) / nk[:, None]
        centred = points.unsqueeze(1) - means
        covs = torch.einsum("nk,nki,nkj->kij", resp, centred, centred) / nk[:, None, None]
        covs = covs + 1e-6 * torch.eye(d, dtype=points.dtype)
    return weights, means, covs, history


def run():
    rng = np.random.default_rng(8)
    blobs = [rng.multivariate_normal(m, c, 25) for m, c in (
        ([0.0, 0.0], [[1.0, 0.6], [0.6, 1.0]]),
        ([4.0, 1.0], [[0.5, -0.2], [-0.2, 0.3]]),
        ([1.0, 5.0], [[0.8, 0.0], [0.0, 0.2]]))]
    points = torch.from_numpy(np.concatenate(blobs))
    start = points[torch.tensor([0, 30, 60])]
    centres, assign, inertia = kmeans(points, start, 6)
    weights, means, covs, history = em(points, centres, 8)
    means = means.detach().requires_grad_()
    loglik = torch.logsumexp(log_joint(points, weights, means, covs), dim=1).sum()
    loglik.backward()
    order = torch.argsort(means[:, 0].detach())
    return {
        "centres": centres,
        "sizes": torch.bincount(assign),
        "inertia": inertia,
        "history": torch.tensor(history),
        "weights": weights[order],
        "means": means.detach()[order],
        "covs": covs[order],
        "chol": torch.linalg.cholesky(covs),
        "loglik": loglik,
        "grad": means.grad,
        "labels": assign.tolist(),
    }


if __name__ == "__main__":
    print(run())
