"""Thomas algorithm for a tridiagonal system, written with in-place writes into vectors.

Entries read back after being written are cloned first: a product saves its operands, and a
later write into the same vector would invalidate a saved view (see thomas_saved_view.py)."""

import numpy as np
import torch


def thomas(a, b, c, d):
    n = d.shape[0]
    cp = torch.zeros(n, dtype=d.dtype)
    dp = torch.zeros(n, dtype=d.dtype)
    x = torch.zeros(n, dtype=d.dtype)
    cp[0] = c[0] / b[0]
    dp[0] = d[0] / b[0]
    for i in range(1, n):
        denom = b[i] - a[i] * cp[i - 1].clone()
        if i < n - 1:
            cp[i] = c[i] / denom
        dp[i] = (d[i] - a[i] * dp[i - 1].clone()) / denom
    x[n - 1] = dp[n - 1]
    for i in range(n - 2, -1, -1):
        x[i] = dp[i] - cp[i] * x[i + 1].clone()
    return x


def run():
    rng = np.random.default_rng(4)
    n = 8
    a = torch.tensor(rng.uniform(-1, 1, n), requires_grad=True)
    b = torch.tensor(rng.uniform(3, 4, n), requires_grad=True)
    c = torch.tensor(rng.uniform(-1, 1, n), requires_grad=True)
    d = torch.tensor(rng.standard_normal(n), requires_grad=True)
    x = thomas(a, b, c, d)
    loss = (x * torch.arange(n, dtype=torch.float64)).sum()
    loss.backward()
    return {"x": x, "ga": a.grad, "gb": b.grad, "gc": c.grad, "gd": d.grad}


if __name__ == "__main__":
    print(run())
