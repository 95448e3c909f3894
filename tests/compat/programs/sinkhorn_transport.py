"""Entropic optimal transport between two weighted point clouds by Sinkhorn iterations in
log space: the dual potentials are refined in place (copy_ of a logsumexp) without a graph
under no_grad, then one differentiable sweep from the detached fixed point gives the cost
its gradient (the 'envelope' trick), compared with unrolling every iteration. The plan's
marginals, entropy (special.xlogy), barycentric map, and a few steps moving the source
points along the gradient with torch.optim.SGD, plus the debiased Sinkhorn divergence."""

import numpy as np
import torch


def potentials(C, log_a, log_b, eps, iters, f=None, g=None):
    f = torch.zeros_like(log_a) if f is None else f
    g = torch.zeros_like(log_b) if g is None else g
    for _ in range(iters):
        f = -eps * torch.logsumexp((g.unsqueeze(0) - C) / eps + log_b.unsqueeze(0), dim=1)
        g = -eps * torch.logsumexp((f.unsqueeze(1) - C) / eps + log_a.unsqueeze(1), dim=0)
    return f, g


def ot_cost(x, y, a, b, eps, iters=60, unrolled=False):
    C = torch.cdist(x, y) ** 2
    log_a, log_b = a.log(), b.log()
    if unrolled:
        f, g = potentials(C, log_a, log_b, eps, iters)
    else:
        f, g = torch.zeros_like(a), torch.zeros_like(b)
        with torch.no_grad():
            for _ in range(iters):
                f.copy_(-eps * torch.logsumexp((g[None, :] - C) / eps + log_b[None, :], dim=1))
                g.copy_(-eps * torch.logsumexp((f[:, None] - C) / eps + log_a[:, None], dim=0))
        f, g = potentials(C, log_a, log_b, eps, 1, f.detach(), g.detach())
    log_plan = (f[:, None] + g[None, :] - C) / eps + log_a[:, None] + log_b[None, :]
    plan = log_plan.exp()
    return (a * f).sum() + (b * g).sum(), plan


def divergence(x, y, a, b, eps):
    xy, _ = ot_cost(x, y, a, b, eps)
    xx, _ = ot_cost(x, x, a, a, eps)
    yy, _ = ot_cost(y, y, b, b, eps)
    return xy - 0.5 * (xx + yy)


def run():
    rng = np.random.default_rng(13)
    x = torch.tensor(rng.normal(0, 1, (7, 2)), requires_grad=True)
    y = torch.tensor(rng.normal(1.5, 0.7, (5, 2)))
    a = torch.softmax(torch.tensor(rng.normal(size=7)), dim=0)
    b = torch.full((5,), 0.2, dtype=torch.float64)
    eps = 0.5

    cost, plan = ot_cost(x, y, a, b, eps)
    (g_envelope,) = torch.autograd.grad(cost, x)
    cost_u, plan_u = ot_cost(x, y, a, b, eps, unrolled=True)
    (g_unrolled,) = torch.autograd.grad(cost_u, x)
    entropy = -torch.special.xlogy(plan, plan).sum()
    mapped = plan @ y / plan.sum(dim=1, keepdim=True)

    opt = torch.optim.SGD([x], lr=0.5, momentum=0.5)
    path = []
    for _ in range(4):
        opt.zero_grad()
        loss = divergence(x, y, a, b, eps)
        loss.backward()
        opt.step()
        path.append(loss.detach())
    return {"cost": cost, "cost_unrolled": cost_u, "row_marginal": plan.sum(1),
            "col_marginal": plan.sum(0), "plan_diff": (plan - plan_u).abs().max(),
            "g_envelope": g_envelope, "g_unrolled": g_unrolled, "entropy": entropy,
            "mapped": mapped, "path": path, "x": x}


if __name__ == "__main__":
    print(run())
