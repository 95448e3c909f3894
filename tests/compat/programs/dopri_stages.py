"""Fit the rates of a predator-prey model with an adaptive Dormand-Prince (5th order with an
embedded 4th) integrator: the stage derivatives are written into a preallocated (7, n)
buffer, each stage reading the earlier rows through a slice weighted by a constant row of
the Butcher tableau (the tableau needs no gradient, so only it is saved and the later
writes into the buffer are harmless, as in PyTorch); the step size is adapted from the
error estimate with plain floats; the learnable rates get gradients through all accepted
steps and the observation times are hit by shortening the last step."""

import numpy as np
import torch

A = [[],
     [1 / 5],
     [3 / 40, 9 / 40],
     [44 / 45, -56 / 15, 32 / 9],
     [19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729],
     [9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656],
     [35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84]]
B5 = [35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84, 0]
B4 = [5179 / 57600, 0, 7571 / 16695, 393 / 640, -92097 / 339200, 187 / 2100, 1 / 40]


def lotka_volterra(y, log_rates):
    alpha, beta, delta, gamma = log_rates.exp().unbind()
    prey, pred = y.unbind()
    return torch.stack([alpha * prey - beta * prey * pred, delta * prey * pred - gamma * pred])


def dopri_step(f, y, h):
    tableau = torch.zeros(7, 7, dtype=y.dtype)
    for i, row in enumerate(A):
        tableau[i, :len(row)] = torch.tensor(row, dtype=y.dtype)
    k = y.new_zeros((7, y.shape[0]))
    k[0] = f(y)
    for s in range(1, 7):
        k[s] = f(y + h * (tableau[s, :s].unsqueeze(1) * k[:s]).sum(dim=0))
    b5 = torch.tensor(B5, dtype=y.dtype)
    b4 = torch.tensor(B4, dtype=y.dtype)
    y5 = y + h * (b5 @ k)
    error = h * ((b5 - b4) @ k)
    return y5, error


def integrate(f, y0, times, rtol=1e-6, atol=1e-8):
    y, t, h = y0, 0.0, 0.1
    out = y0.new_zeros((len(times), y0.shape[0]))
    accepted = rejected = 0
    for i, t_obs in enumerate(times):
        while t < t_obs - 1e-12:
            step = min(h, t_obs - t)
            y_new, err = dopri_step(f, y, step)
            scale = atol + rtol * torch.maximum(y.abs(), y_new.abs())
            ratio = torch.sqrt(((err / scale) ** 2).mean()).item()
            if ratio <= 1.0:
                y, t = y_new, t + step
                accepted += 1
            else:
                rejected += 1
            h = step * min(5.0, max(0.2, 0.9 * ratio ** -0.2)) if ratio > 0 else 5 * step
        out[i] = y
    return out, accepted, rejected


def run():
    times = [0.5, 1.0, 1.5, 2.0, 3.0]
    truth = torch.log(torch.tensor([1.1, 0.4, 0.1, 0.4], dtype=torch.float64))
    y0 = torch.tensor([10.0, 5.0], dtype=torch.float64)
    with torch.no_grad():
        observed, _, _ = integrate(lambda y: lotka_volterra(y, truth), y0, times)
    log_rates = torch.log(torch.tensor([1.0, 0.5, 0.12, 0.3], dtype=torch.float64)).requires_grad_()
    opt = torch.optim.Adam([log_rates], lr=0.02)
    losses, counts = [], []
    for _ in range(3):
        opt.zero_grad()
        pred, acc, rej = integrate(lambda y: lotka_volterra(y, log_rates), y0, times)
        loss = (torch.log(pred) - torch.log(observed)).pow(2).sum()
        loss.backward()
        opt.step()
        losses.append(loss.detach())
        counts.append([acc, rej])
    return {"observed": observed, "losses": losses, "counts": counts,
            "log_rates": log_rates, "grad": log_rates.grad}


if __name__ == "__main__":
    print(run())
