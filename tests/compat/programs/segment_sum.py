"""One message-passing step on a small graph: messages gathered from source nodes and
summed into destinations with index_add_ and scatter_add_, then a readout."""

import numpy as np
import torch


def run():
    rng = np.random.default_rng(9)
    n_nodes, n_edges, width = 6, 14, 3
    src = torch.tensor(rng.integers(0, n_nodes, n_edges))
    dst = torch.tensor(rng.integers(0, n_nodes, n_edges))
    h = torch.tensor(rng.standard_normal((n_nodes, width)), requires_grad=True)
    W = torch.tensor(rng.standard_normal((width, width)), requires_grad=True)
    messages = torch.tanh(h[src] @ W)
    summed = torch.zeros(n_nodes, width, dtype=torch.float64).index_add_(0, dst, messages)
    counts = torch.zeros(n_nodes, dtype=torch.float64).scatter_add_(0, dst, torch.ones(n_edges, dtype=torch.float64))
    mean = summed / counts.clamp(min=1).unsqueeze(1)
    picked = torch.gather(mean, 1, torch.argmax(mean, dim=1, keepdim=True))
    readout = picked.sum() + (mean ** 2).sum()
    readout.backward()
    return {"mean": mean, "readout": readout, "grad_h": h.grad, "grad_W": W.grad}


if __name__ == "__main__":
    print(run())
