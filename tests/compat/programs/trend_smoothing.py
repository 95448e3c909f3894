"""Separate a noisy series into a polynomial baseline and a smooth residual trend: the
baseline by least squares on torch.vander columns, the trend by a second-difference
(Whittaker) penalty fitted with SGD under a CyclicLR schedule, its end points pinned with
select_scatter, derivatives estimated with torch.gradient on the (non-uniform) time grid,
and pairwise interaction features of three summary statistics via torch.combinations."""

import numpy as np
import torch


def run():
    rng = np.random.default_rng(113)
    t = torch.from_numpy(np.sort(rng.uniform(0, 4, 50)))
    signal = 0.5 * t**2 - t + torch.sin(3 * t)
    y = signal + 0.1 * torch.from_numpy(rng.standard_normal(50))

    V = torch.vander(t / 4, N=3)  # columns (t/4)^2, t/4, 1
    coef = torch.linalg.lstsq(V, y.unsqueeze(1)).solution.squeeze(1)
    resid = y - V @ coef

    trend = torch.zeros(50, dtype=torch.float64, requires_grad=True)
    opt = torch.optim.SGD([trend], lr=0.05, momentum=0.8)
    sched = torch.optim.lr_scheduler.CyclicLR(opt, base_lr=0.01, max_lr=0.08, step_size_up=5)
    losses = []
    for _ in range(30):
        opt.zero_grad()
        pinned = torch.select_scatter(trend, resid[0], 0, 0)
        pinned = torch.select_scatter(pinned, resid[-1], 0, 49)
        curvature = torch.diff(pinned, n=2)
        loss = ((pinned - resid) ** 2).sum() + 5.0 * (curvature**2).sum()
        loss.backward()
        opt.step()
        sched.step()
        losses.append(loss.item())

    smooth = (V @ coef + trend).detach()
    (slope,) = torch.gradient(smooth, spacing=(t,))
    (curv,) = torch.gradient(slope, spacing=(t,), edge_order=2)
    stats = torch.stack([smooth.mean(), slope.abs().mean(), curv.std()])
    pairs = torch.combinations(stats, r=2)
    return {
        "coef": coef,
        "losses": torch.tensor(losses),
        "lrs": sched.get_last_lr(),
        "momentum": opt.param_groups[0]["momentum"],
        "trend": trend,
        "slope": slope,
        "curvature": curv,
        "interactions": pairs.prod(dim=1),
    }


if __name__ == "__main__":
    print(run())
