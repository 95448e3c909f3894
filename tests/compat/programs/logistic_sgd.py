"""Logistic regression on two overlapping clouds: SGD with Nesterov momentum and weight
decay (not on the bias, through two parameter groups), a warm-up then cosine schedule
chained with SequentialLR, clip_grad_norm_, and the weights read back as one flat vector
(parameters_to_vector) to restart from a saved point with vector_to_parameters."""

import numpy as np
import torch
import torch.nn as nn
from torch.nn.utils import clip_grad_norm_, parameters_to_vector, vector_to_parameters


def make_data(rng, n):
    labels = rng.integers(0, 2, n)
    centres = np.array([[-1.0, 0.5, 0.0], [1.0, -0.5, 0.3]])
    x = centres[labels] + rng.standard_normal((n, 3))
    return torch.from_numpy(x), torch.from_numpy(labels).to(torch.float64)


def run():
    torch.manual_seed(0)
    rng = np.random.default_rng(4)
    x, y = make_data(rng, 64)
    model = nn.Linear(3, 1, dtype=torch.float64)
    with torch.no_grad():
        model.weight.copy_(torch.from_numpy(rng.standard_normal((1, 3)) * 0.1))
        model.bias.zero_()
    opt = torch.optim.SGD(
        [{"params": [model.weight], "weight_decay": 1e-2}, {"params": [model.bias], "weight_decay": 0.0}],
        lr=0.5, momentum=0.9, nesterov=True,
    )
    warm = torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.2, total_iters=3)
    cosine = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=9, eta_min=0.01)
    sched = torch.optim.lr_scheduler.SequentialLR(opt, [warm, cosine], milestones=[3])
    loss_fn = nn.BCEWithLogitsLoss(pos_weight=torch.tensor([1.5], dtype=torch.float64))
    losses, norms, lrs = [], [], []
    saved = None
    for epoch in range(12):
        for xb, yb in zip(x.split(16), y.split(16)):
            opt.zero_grad()
            loss = loss_fn(model(xb).squeeze(-1), yb)
            loss.backward()
            norms.append(clip_grad_norm_(model.parameters(), max_norm=0.5))
            opt.step()
            losses.append(loss.item())
        lrs.append(sched.get_last_lr()[0])
        sched.step()
        if epoch == 5:
            saved = parameters_to_vector(model.parameters()).detach().clone()
    final = parameters_to_vector(model.parameters()).detach().clone()
    vector_to_parameters(saved, model.parameters())
    with torch.no_grad():
        prob = torch.sigmoid(model(x)).squeeze(-1)
        accuracy = ((prob > 0.5).to(y.dtype) == y).double().mean()
    return {
        "losses": torch.tensor(losses),
        "norms": torch.stack(norms),
        "lrs": lrs,
        "final": final,
        "restored": model.weight,
        "accuracy": accuracy,
        "momentum": opt.state[model.weight]["momentum_buffer"],
    }


if __name__ == "__main__":
    print(run())
