"""Defaults a numeric script leans on: a device object, set_default_dtype, finfo, and
gather / cumsum in a small piecewise-linear interpolation."""

import torch

torch.set_default_dtype(torch.float64)
device = torch.device("cpu")


def run():
    eps = torch.finfo(torch.get_default_dtype()).eps
    xs = torch.linspace(0.0, 1.0, 6, device=device)
    widths = torch.tensor([0.5, 1.0, 2.0, 1.0, 0.5], device=device, requires_grad=True)
    knots = torch.cumsum(widths, dim=0)
    query = torch.tensor([[0, 2, 4], [1, 1, 3]], device=device)
    picked = torch.gather(knots.expand(2, 5), 1, query)
    values = picked * xs[:3] + eps
    total = values.sum() + knots.cumsum(0)[-1]
    total.backward()
    return {"knots": knots, "picked": picked, "total": total, "grad": widths.grad,
            "eps": torch.tensor(eps)}


if __name__ == "__main__":
    print(run())
