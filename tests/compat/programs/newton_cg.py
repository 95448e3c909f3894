"""Regularised logistic regression by truncated Newton: the Newton direction from conjugate
gradients that touch the Hessian only through torch.autograd.functional.hvp, with the CG
vectors updated in place (add_ with alpha, mul_, copy_); an Armijo backtracking line search
in plain floats. At the optimum: the full Hessian from autograd.functional.hessian, its
eigenvalues by linalg.eigvalsh, vhp and vjp/jvp checks, the Jacobian of the gradient map,
and torch.func.grad / functional_call on an nn.Linear with the solved weights."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import functional as AF


def make_loss(X, y, lam):
    def loss(w):
        logits = X @ w[:-1] + w[-1]
        return F.binary_cross_entropy_with_logits(logits, y) + 0.5 * lam * w[:-1].dot(w[:-1])
    return loss


def conjugate_gradient(matvec, b, iters=20, tol=1e-10):
    x = torch.zeros_like(b)
    r = b.clone()
    p = r.clone()
    rs = r.dot(r)
    for _ in range(iters):
        Ap = matvec(p)
        alpha = rs / p.dot(Ap)
        x.add_(p, alpha=alpha.item())
        r.add_(Ap, alpha=-alpha.item())
        rs_new = r.dot(r)
        if rs_new.sqrt().item() < tol:
            break
        p.mul_((rs_new / rs).item()).add_(r)
        rs = rs_new
    return x


def run():
    rng = np.random.default_rng(3)
    n, d = 40, 4
    X = torch.tensor(rng.normal(size=(n, d)))
    w_true = np.array([1.5, -2.0, 0.5, 0.0, 0.3])
    y = torch.tensor((rng.uniform(size=n) < 1 / (1 + np.exp(-(X.numpy() @ w_true[:-1] + w_true[-1])))).astype(float))
    loss = make_loss(X, y, lam=0.05)

    w = torch.zeros(d + 1, dtype=torch.float64)
    history = []
    for _ in range(4):
        g = torch.autograd.functional.jacobian(loss, w)
        direction = conjugate_gradient(lambda v: AF.hvp(loss, w, v)[1], -g)
        step, f0 = 1.0, loss(w).item()
        while loss(w + step * direction).item() > f0 + 1e-4 * step * g.dot(direction).item():
            step *= 0.5
        w = w + step * direction
        history.append([f0, step, g.norm().item()])

    H = AF.hessian(loss, w)
    v = torch.linspace(-1, 1, d + 1, dtype=torch.float64)
    _, vh = AF.vhp(loss, w, v)
    _, hv = AF.hvp(loss, w, v)
    grad_map = lambda u: torch.autograd.grad(loss(u), u, create_graph=True)[0]
    J = AF.jacobian(grad_map, w.clone().requires_grad_(True))
    _, jv = AF.jvp(grad_map, w.clone().requires_grad_(True), v)
    _, vj = AF.vjp(grad_map, w.clone().requires_grad_(True), v)

    model = nn.Linear(d, 1).double()
    params = {"weight": w[:-1].reshape(1, d), "bias": w[-1:]}

    def model_loss(p):
        logits = torch.func.functional_call(model, p, (X,)).squeeze(1)
        return F.binary_cross_entropy_with_logits(logits, y) + 0.025 * p["weight"].pow(2).sum()

    func_grads = torch.func.grad(model_loss)(params)
    return {"w": w, "history": history, "H": H, "eig": torch.linalg.eigvalsh(H),
            "vh": vh, "hv": hv, "J": J, "jv": jv, "vj": vj,
            "func_grad_w": func_grads["weight"], "func_grad_b": func_grads["bias"]}


if __name__ == "__main__":
    print(run())
