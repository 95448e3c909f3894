"""Needleman-Wunsch alignment made differentiable: a learnable substitution matrix and gap
cost, the hard minimum replaced by a soft minimum (-gamma * logsumexp(-x / gamma)). The DP
table is filled twice: cell by cell with scalar writes, and one anti-diagonal at a time
with advanced-index writes (D[rows, cols] = ...). Both must agree; then a few Adam steps
pull matching pairs together and push the mismatched pair apart."""

import numpy as np
import torch


def soft_min(options, gamma):
    return -gamma * torch.logsumexp(torch.stack(options) / -gamma, dim=0)


def table_by_cells(cost, gap, gamma):
    n, m = cost.shape
    D = torch.zeros(n + 1, m + 1, dtype=cost.dtype)
    D[1:, 0] = gap * torch.arange(1, n + 1, dtype=cost.dtype)
    D[0, 1:] = gap * torch.arange(1, m + 1, dtype=cost.dtype)
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            D[i, j] = soft_min([D[i - 1, j - 1] + cost[i - 1, j - 1],
                                D[i - 1, j] + gap, D[i, j - 1] + gap], gamma)
    return D


def table_by_diagonals(cost, gap, gamma):
    n, m = cost.shape
    D = cost.new_zeros((n + 1, m + 1))
    D[:, 0] = gap * torch.arange(n + 1, dtype=cost.dtype)
    D[0, :] = gap * torch.arange(m + 1, dtype=cost.dtype)
    for s in range(2, n + m + 1):
        rows = torch.arange(max(1, s - m), min(n, s - 1) + 1)
        cols = s - rows
        D[rows, cols] = soft_min([D[rows - 1, cols - 1] + cost[rows - 1, cols - 1],
                                  D[rows - 1, cols] + gap, D[rows, cols - 1] + gap], gamma)
    return D


def alignment_cost(a, b, sub_logits, log_gap, gamma, by_diagonals=False):
    sub = torch.nn.functional.softplus(sub_logits)
    sub = (sub + sub.T) / 2 * (1 - torch.eye(sub.shape[0], dtype=sub.dtype))
    cost = sub[a.unsqueeze(1), b.unsqueeze(0)]
    fill = table_by_diagonals if by_diagonals else table_by_cells
    return fill(cost, log_gap.exp(), gamma)[-1, -1]


def run():
    rng = np.random.default_rng(5)
    sub_logits = torch.tensor(rng.normal(0.0, 0.5, (4, 4)), requires_grad=True)
    log_gap = torch.tensor(0.3, dtype=torch.float64, requires_grad=True)
    a = torch.tensor([0, 1, 2, 3, 1, 2], dtype=torch.long)
    b = torch.tensor([0, 2, 3, 1, 2], dtype=torch.long)
    gamma = 0.5
    cells = alignment_cost(a, b, sub_logits, log_gap, gamma)
    cells.backward()
    g_cells = sub_logits.grad.clone(), log_gap.grad.clone()
    sub_logits.grad = None
    log_gap.grad = None
    diags = alignment_cost(a, b, sub_logits, log_gap, gamma, by_diagonals=True)
    diags.backward()
    g_diags = sub_logits.grad.clone(), log_gap.grad.clone()

    similar = [(a, b), (torch.tensor([3, 3, 0]), torch.tensor([3, 0]))]
    different = (torch.tensor([0, 0, 1]), torch.tensor([2, 3, 2, 3]))
    opt = torch.optim.Adam([sub_logits, log_gap], lr=0.05)
    history = []
    for _ in range(4):
        opt.zero_grad()
        loss = sum(alignment_cost(x, y, sub_logits, log_gap, gamma, True) for x, y in similar)
        loss = loss - 0.5 * alignment_cost(*different, sub_logits, log_gap, gamma, True)
        loss.backward()
        opt.step()
        history.append(loss.detach())
    return {"cells": cells, "diags": diags, "g_cells": list(g_cells), "g_diags": list(g_diags),
            "history": history, "sub_logits": sub_logits, "log_gap": log_gap}


if __name__ == "__main__":
    print(run())
