"""A critic trained with a gradient penalty (as in WGAN-GP): the norm of the critic's input
gradient at interpolated points, taken with create_graph=True, enters the loss, so the
weights get second derivatives through Linear, LayerNorm, GELU and Softplus; tensor hooks
scale one gradient and retain_grad keeps an intermediate's; torch.autograd.grad with
allow_unused and the penalty's value are compared."""

import numpy as np
import torch
import torch.nn as nn


def critic():
    return nn.Sequential(nn.Linear(3, 16), nn.LayerNorm(16), nn.GELU(), nn.Linear(16, 16), nn.Softplus(),
                         nn.Linear(16, 1)).double()


def run():
    rng = np.random.default_rng(83)
    net = critic()
    with torch.no_grad():
        for p in net.parameters():
            p.copy_(torch.from_numpy(rng.normal(0, 0.4, p.shape)))
    real = torch.from_numpy(rng.standard_normal((10, 3)) + 1.0)
    fake = torch.from_numpy(rng.standard_normal((10, 3)) * 0.5)
    mix = torch.from_numpy(rng.uniform(0, 1, (10, 1)))
    opt = torch.optim.Adam(net.parameters(), lr=1e-3, betas=(0.5, 0.9))
    history, penalties = [], []
    for step in range(4):
        opt.zero_grad()
        points = (mix * real + (1 - mix) * fake).requires_grad_()
        score = net(points)
        (g,) = torch.autograd.grad(score.sum(), points, create_graph=True)
        norms = g.norm(2, dim=1)
        norms.retain_grad()
        if step == 0:
            norms.register_hook(lambda grad: grad * 2)
        penalty = ((norms - 1) ** 2).mean()
        loss = net(fake).mean() - net(real).mean() + 10 * penalty
        loss.backward()
        opt.step()
        history.append(loss.item())
        penalties.append(penalty.item())
        if step == 0:
            first_norm_grad = norms.grad.clone()
            first_weight_grad = net[0].weight.grad.clone()
    unused = torch.zeros(1, dtype=torch.float64, requires_grad=True)
    grads = torch.autograd.grad(net(real).sum(), [net[3].weight, unused], allow_unused=True)
    return {
        "history": torch.tensor(history),
        "penalties": torch.tensor(penalties),
        "first_norm_grad": first_norm_grad,
        "first_weight_grad": first_weight_grad,
        "layer3_grad": grads[0],
        "unused_is_none": float(grads[1] is None),
        "weights": [p.detach() for p in net.parameters()],
    }


if __name__ == "__main__":
    print(run())
