"""Random-feature regression with a learned residual feature map: residual blocks with
weight-normalised layers (nn.utils.parametrizations.weight_norm), evaluated through
torch.utils.checkpoint to save memory, and a ridge readout solved in closed form each step
by an LU factorisation (linalg.lu_factor / lu_solve) that the loss differentiates through;
RAdam updates the feature map, and the final weights are read back after removing the
parametrization."""

import numpy as np
import torch
import torch.nn as nn
from torch.nn.utils import parametrizations, parametrize
from torch.utils.checkpoint import checkpoint


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.inner = parametrizations.weight_norm(nn.Linear(dim, dim))
        self.outer = parametrizations.weight_norm(nn.Linear(dim, dim), dim=None)

    def forward(self, h):
        return h + 0.5 * self.outer(torch.tanh(self.inner(h)))


def ridge_fit(features, y, lam):
    gram = features.T @ features + lam * torch.eye(features.shape[1], dtype=features.dtype)
    LU, pivots = torch.linalg.lu_factor(gram)
    return torch.linalg.lu_solve(LU, pivots, (features.T @ y).unsqueeze(1)).squeeze(1)


def run():
    rng = np.random.default_rng(97)
    x = torch.from_numpy(rng.uniform(-2, 2, (48, 2)))
    y = torch.sin(x[:, 0]) * torch.cos(1.5 * x[:, 1])
    lift = nn.Linear(2, 6).double()
    blocks = nn.ModuleList([Block(6).double() for _ in range(2)])
    with torch.no_grad():
        for p in list(lift.parameters()) + list(blocks.parameters()):
            p.copy_(torch.from_numpy(rng.normal(0, 0.5, p.shape)))
    params = list(lift.parameters()) + list(blocks.parameters())
    opt = torch.optim.RAdam(params, lr=0.02)
    train, test = slice(0, 36), slice(36, 48)
    losses = []
    for step in range(6):
        opt.zero_grad()
        h = torch.tanh(lift(x))
        for block in blocks:
            h = checkpoint(block, h, use_reentrant=False)
        w = ridge_fit(h[train], y[train], 1e-2)
        loss = ((h[test] @ w - y[test]) ** 2).mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    grads = [p.grad for p in params]
    g = blocks[0].inner.parametrizations.weight.original0.detach().clone()
    parametrize.remove_parametrizations(blocks[0].inner, "weight")
    return {
        "losses": torch.tensor(losses),
        "readout": w,
        "grads": grads,
        "g": g,
        "plain_weight": blocks[0].inner.weight,
        "state_keys": len(blocks.state_dict()),
    }


if __name__ == "__main__":
    print(run())
