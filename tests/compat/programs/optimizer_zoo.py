"""Fit the same small regression (a quadratic-feature model on noisy data) with several
optimizers and schedules, as in a tuning sweep: NAdam with OneCycleLR (cycling beta1),
RAdam with decoupled weight decay and CosineAnnealingWarmRestarts, Adamax with warm-up
then decay chained, Adadelta, Rprop on full batches, and ASGD whose averaged iterate is
read from its state; the optimizer state is checkpointed and restored midway."""

import numpy as np
import torch
import torch.nn as nn
from torch.optim import lr_scheduler


def make_model(seed_rng):
    model = nn.Sequential(nn.Linear(3, 8), nn.SiLU(), nn.Linear(8, 1)).double()
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.from_numpy(seed_rng.normal(0.0, 0.5, p.shape)))
    return model


def train(name, model, x, y):
    params = model.parameters()
    sched = None
    if name == "nadam":
        opt = torch.optim.NAdam(params, lr=0.01)
        sched = lr_scheduler.OneCycleLR(opt, max_lr=0.05, total_steps=30)
    elif name == "radam":
        opt = torch.optim.RAdam(params, lr=0.02, weight_decay=0.01, decoupled_weight_decay=True)
        sched = lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=5, T_mult=2, eta_min=1e-3)
    elif name == "adamax":
        opt = torch.optim.Adamax(params, lr=0.05)
        sched = lr_scheduler.ChainedScheduler([lr_scheduler.LinearLR(opt, start_factor=0.5, total_iters=4),
                                               lr_scheduler.ExponentialLR(opt, gamma=0.95)])
    elif name == "adadelta":
        opt = torch.optim.Adadelta(params, lr=1.0, rho=0.95)
    elif name == "rprop":
        opt = torch.optim.Rprop(params, lr=0.005, step_sizes=(1e-5, 0.1))
    else:
        opt = torch.optim.ASGD(params, lr=0.02, t0=10, lambd=1e-3)
    losses = []
    for step in range(30):
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(x).squeeze(-1), y)
        loss.backward()
        opt.step()
        if sched is not None:
            sched.step()
        losses.append(loss.item())
        if step == 14:
            saved = opt.state_dict()
            opt.load_state_dict(saved)
    out = {f"{name}_losses": torch.tensor(losses), f"{name}_lr": opt.param_groups[0]["lr"]}
    if name == "asgd":
        out["asgd_average"] = opt.state[model[0].weight]["ax"]
    if name == "nadam":
        out["nadam_beta1"] = opt.param_groups[0]["betas"][0]
    return out


def run():
    rng = np.random.default_rng(61)
    x = torch.from_numpy(rng.uniform(-1, 1, (40, 3)))
    y = x[:, 0] ** 2 - 0.5 * x[:, 1] * x[:, 2] + 0.05 * torch.from_numpy(rng.standard_normal(40))
    results = {}
    for name in ("nadam", "radam", "adamax", "adadelta", "rprop", "asgd"):
        results.update(train(name, make_model(np.random.default_rng(7)), x, y))
    return results


if __name__ == "__main__":
    print(run())
