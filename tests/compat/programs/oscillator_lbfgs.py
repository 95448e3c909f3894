"""Recover the stiffness and damping of a forced oscillator from noisy positions: an
explicit RK4 loop copies each state into a preallocated trajectory tensor through row
views (reading a row back while later rows are written would invalidate what backward saved), and torch.optim.LBFGS (strong Wolfe line search) fits the parameters; the fit's
gradient is checked against torch.autograd.grad of the same loss."""

import numpy as np
import torch


def rhs(t, state, k, c):
    pos, vel = state[0], state[1]
    force = torch.cos(1.3 * t)
    return torch.stack([vel, force - k * pos - c * vel])


def simulate(params, steps, dt):
    k, c = params.exp().unbind()
    traj = torch.zeros(steps + 1, 2, dtype=params.dtype)
    traj[0, 0] = 1.0
    s = traj[0].clone()  # the state itself is not read back from traj: traj is written below
    for i in range(steps):
        t = torch.tensor(i * dt, dtype=params.dtype)
        k1 = rhs(t, s, k, c)
        k2 = rhs(t + dt / 2, s + dt / 2 * k1, k, c)
        k3 = rhs(t + dt / 2, s + dt / 2 * k2, k, c)
        k4 = rhs(t + dt, s + dt * k3, k, c)
        s = s + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        traj[i + 1].copy_(s)
    return traj


def run():
    rng = np.random.default_rng(2)
    steps, dt = 40, 0.1
    with torch.no_grad():
        truth = simulate(torch.tensor([np.log(2.0), np.log(0.3)]), steps, dt)
    observed = truth[::4, 0] + 0.01 * torch.from_numpy(rng.standard_normal(steps // 4 + 1))
    params = torch.tensor([0.0, -0.5], dtype=torch.float64, requires_grad=True)

    def loss_fn():
        return (simulate(params, steps, dt)[::4, 0] - observed).pow(2).mean()

    (first_grad,) = torch.autograd.grad(loss_fn(), params)
    opt = torch.optim.LBFGS([params], lr=1, max_iter=8, history_size=5, line_search_fn="strong_wolfe")
    losses = []

    def closure():
        opt.zero_grad()
        loss = loss_fn()
        loss.backward()
        losses.append(loss.detach().clone())
        return loss

    for _ in range(2):
        opt.step(closure)
    state = opt.state_dict()["state"][0]
    return {
        "first_grad": first_grad,
        "losses": torch.stack(losses),
        "params": params.detach().exp(),
        "func_evals": state["func_evals"],
        "n_iter": state["n_iter"],
        "trajectory": simulate(params.detach(), steps, dt),
    }


if __name__ == "__main__":
    print(run())
