"""A stiff chemical kinetics model (Robertson's three species) stepped by backward Euler:
each step solves y - y_prev - h f(y) = 0 by Newton's method, the Jacobian taken with
torch.autograd.functional.jacobian(create_graph=True) so the rate constants get gradients
through every Newton iterate. The same gradient is then computed the implicit way (the
converged step is re-linearised: dy/dtheta from one linalg.solve per step, by a custom
autograd.Function) and the two compared; the concentrations are kept in a preallocated
trajectory written row by row."""

import numpy as np
import torch
from torch.autograd.functional import jacobian


def rates(y, log_k):
    k1, k2, k3 = log_k.exp().unbind()
    a, b, c = y.unbind()
    r1, r2, r3 = k1 * a, k2 * b * b, k3 * b * c
    return torch.stack([-r1 + r3, r1 - r2 - r3, r2])


def newton_step(y_prev, log_k, h, iters=4):
    y = y_prev.clone()
    for _ in range(iters):
        residual = lambda z: z - y_prev - h * rates(z, log_k)
        J = jacobian(residual, y, create_graph=True)
        y = y - torch.linalg.solve(J, residual(y))
    return y


class ImplicitStep(torch.autograd.Function):
    """Forward: Newton without a graph. Backward: implicit function theorem at the root."""

    @staticmethod
    def forward(ctx, y_prev, log_k, h):
        with torch.enable_grad():
            y = newton_step(y_prev.detach(), log_k.detach(), h, iters=8).detach()
        ctx.save_for_backward(y, y_prev, log_k)
        ctx.h = h
        return y

    @staticmethod
    def backward(ctx, grad_y):
        y, y_prev, log_k = ctx.saved_tensors
        with torch.enable_grad():
            y = y.detach().requires_grad_(True)
            theta = log_k.detach().requires_grad_(True)
            F = y - y_prev.detach() - ctx.h * rates(y, theta)
            J = torch.stack([torch.autograd.grad(F[i], y, retain_graph=True)[0] for i in range(3)])
            lam = torch.linalg.solve(J.T, grad_y)
            (g_theta,) = torch.autograd.grad(F, theta, grad_outputs=-lam)
        return lam, g_theta, None


def run():
    log_k = torch.log(torch.tensor([0.04, 30.0, 1e2], dtype=torch.float64)).requires_grad_(True)
    y0 = torch.tensor([1.0, 0.0, 0.0], dtype=torch.float64)
    h, steps = 0.05, 6
    target = torch.tensor([0.985, 3e-4, 0.0147], dtype=torch.float64)

    traj = torch.zeros(steps + 1, 3, dtype=torch.float64)
    traj[0] = y0
    y = y0
    for n in range(steps):
        y = newton_step(y, log_k, h)
        traj[n + 1] = y
    loss = ((traj[-1] - target) / target).pow(2).sum()
    (g_unrolled,) = torch.autograd.grad(loss, log_k)

    y = y0
    for n in range(steps):
        y = ImplicitStep.apply(y, log_k, h)
    loss_implicit = ((y - target) / target).pow(2).sum()
    loss_implicit.backward()
    return {"traj": traj, "loss": loss, "g_unrolled": g_unrolled,
            "loss_implicit": loss_implicit, "g_implicit": log_k.grad,
            "mass": traj.sum(dim=1)}


if __name__ == "__main__":
    print(run())
