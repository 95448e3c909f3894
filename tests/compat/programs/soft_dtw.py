"""Soft-DTW between two series: the DP table is filled cell by cell with in-place writes."""

import numpy as np
import torch


def soft_dtw(x, y, gamma):
    n, m = x.shape[0], y.shape[0]
    cost = ((x.unsqueeze(1) - y.unsqueeze(0)) ** 2).sum(-1)
    R = torch.full((n + 1, m + 1), float("inf"), dtype=x.dtype)
    R[0, 0] = 0.0
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            prev = torch.stack([R[i - 1, j - 1], R[i - 1, j], R[i, j - 1]])
            softmin = -gamma * torch.logsumexp(-prev / gamma, dim=0)
            R[i, j] = cost[i - 1, j - 1] + softmin
    return R[n, m], R


def run():
    rng = np.random.default_rng(0)
    x = torch.tensor(rng.standard_normal((7, 2)), requires_grad=True)
    y = torch.tensor(rng.standard_normal((5, 2)), requires_grad=True)
    value, table = soft_dtw(x, y, gamma=0.5)
    value.backward()
    return {"value": value, "table": table, "grad_x": x.grad, "grad_y": y.grad}


if __name__ == "__main__":
    print(run())
