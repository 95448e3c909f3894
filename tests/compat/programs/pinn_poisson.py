"""A physics-informed network for -u''(x) + k u(x) = f(x) on [0, 1] with u(0) = u(1) = 0: an
MLP with tanh (float64 by set_default_dtype), its first and second input derivatives by
autograd.grad(create_graph=True), the PDE residual at collocation points plus a boundary
penalty and a few interior readings, trained by Adam and then LBFGS with a closure, the
reaction coefficient k learned too (softplus). Slopes at probe points come from one
autograd.grad call with a batch of cotangents (is_grads_batched)."""

import math

import numpy as np
import torch
import torch.nn as nn


class Field(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(1, width), nn.Tanh(), nn.Linear(width, width), nn.Tanh(),
                                 nn.Linear(width, 1))
        self.raw_k = nn.Parameter(torch.tensor(0.0))

    def forward(self, x):
        return x * (1 - x) * self.net(x)  # the boundary values built in, plus a penalty below

    def k(self):
        return nn.functional.softplus(self.raw_k)


def derivatives(model, x):
    x = x.clone().requires_grad_(True)
    u = model(x)
    (du,) = torch.autograd.grad(u.sum(), x, create_graph=True)
    (d2u,) = torch.autograd.grad(du.sum(), x, create_graph=True)
    return u, du, d2u


def source(x, k):
    return (math.pi ** 2 + k) * torch.sin(math.pi * x)


def loss_fn(model, x, xb, obs_x, obs_u):
    u, _, d2u = derivatives(model, x)
    residual = -d2u + model.k() * u - source(x, 1.5)
    boundary = model(xb).pow(2).mean()
    data = (model(obs_x) - obs_u).pow(2).mean()
    return residual.pow(2).mean() + 10 * boundary + 10 * data


def run():
    torch.set_default_dtype(torch.float64)
    rng = np.random.default_rng(41)
    model = Field(8)
    model.load_state_dict({k: torch.tensor(rng.normal(0, 0.6, tuple(v.shape))) for k, v in model.state_dict().items()})
    x = torch.linspace(0, 1, 17).unsqueeze(1)
    xb = torch.tensor([[0.0], [1.0]])
    obs_x = torch.tensor([[0.2], [0.5], [0.7]])
    obs_u = torch.sin(math.pi * obs_x)

    adam = torch.optim.Adam(model.parameters(), lr=0.02)
    history = []
    for _ in range(8):
        adam.zero_grad()
        loss = loss_fn(model, x, xb, obs_x, obs_u)
        loss.backward()
        adam.step()
        history.append(loss.item())
    lbfgs = torch.optim.LBFGS(model.parameters(), lr=0.5, max_iter=5, history_size=4)

    def closure():
        lbfgs.zero_grad()
        loss = loss_fn(model, x, xb, obs_x, obs_u)
        loss.backward()
        return loss

    for _ in range(2):
        history.append(lbfgs.step(closure).item())

    probe = torch.tensor([[0.25], [0.5]], requires_grad=True)
    u = model(probe)
    (slopes,) = torch.autograd.grad(u, probe, grad_outputs=torch.eye(2).unsqueeze(-1), is_grads_batched=True)
    u_fit, du, d2u = derivatives(model, x)
    with torch.no_grad():
        err = (u_fit - torch.sin(math.pi * x)).abs().max()
    return {"history": history, "k": model.k(), "u": u_fit, "du": du, "d2u": d2u,
            "slopes": slopes, "err": err}


if __name__ == "__main__":
    print(run())
