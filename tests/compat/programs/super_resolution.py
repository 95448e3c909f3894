"""Single-image super-resolution on synthetic pictures: images painted by in-place writes into
slices of a preallocated batch (bars, boxes, a diagonal through an index view), shrunk by
area interpolation, brought back by bicubic interpolation as the baseline; a small residual
CNN (reflection padding, Conv2d, PReLU) learns the correction with an L1 + patch-variance loss
(unfold), Adam with a StepLR; PSNR before and after, outputs clamped in place; gradients
with respect to the low-resolution input through the bicubic upsampling."""

import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


def paint(rng, count, size):
    images = torch.zeros(count, 1, size, size, dtype=torch.float64)
    for k in range(count):
        r, c = rng.integers(0, size - 4, 2)
        images[k, 0, r:r + 4, c:c + 4] += 0.8                  # a box
        images[k, 0, :, int(rng.integers(0, size))] = 0.5      # a vertical bar
        idx = torch.arange(size)
        images[k, 0, idx, (idx + int(rng.integers(0, size))) % size] += 0.3  # a wrapped diagonal
        images[k, 0] += torch.from_numpy(0.05 * rng.normal(size=(size, size)))
    return images.clamp_(0, 1)


class Refiner(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.body = nn.Sequential(
            nn.ReflectionPad2d(1), nn.Conv2d(1, width, 3), nn.PReLU(width),
            nn.ReflectionPad2d(1), nn.Conv2d(width, 1, 3))

    def forward(self, low, size):
        up = F.interpolate(low, size=size, mode="bicubic", align_corners=False)
        return up + self.body(up)


def psnr(a, b):
    return 10 * torch.log10(1.0 / F.mse_loss(a, b))


def patch_variance(x):
    patches = x.unfold(2, 4, 4).unfold(3, 4, 4)  # (N, 1, H/4, W/4, 4, 4)
    return patches.reshape(*patches.shape[:4], 16).var(dim=-1)


def run():
    rng = np.random.default_rng(29)
    size = 12
    high = paint(rng, 4, size)
    low = F.interpolate(high, scale_factor=0.5, mode="area")
    baseline = F.interpolate(low, size=(size, size), mode="bicubic")

    model = Refiner(4).double()
    model.load_state_dict({k: torch.tensor(rng.normal(0, 0.2, tuple(v.shape)))
                           for k, v in model.state_dict().items()})
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=3, gamma=0.5)
    losses = []
    for _ in range(6):
        opt.zero_grad()
        out = model(low, (size, size))
        loss = F.l1_loss(out, high) + 0.1 * F.mse_loss(patch_variance(out), patch_variance(high))
        loss.backward()
        opt.step()
        sched.step()
        losses.append(loss.item())

    probe = low.clone().requires_grad_(True)
    restored = model(probe, (size, size))
    restored.sum().backward()
    with torch.no_grad():
        final = model(low, (size, size)).clamp_(0, 1)
    return {"low": low, "baseline_psnr": psnr(baseline, high), "final_psnr": psnr(final, high),
            "losses": losses, "lr": opt.param_groups[0]["lr"], "g_low": probe.grad,
            "prelu": model.body[2].weight, "finite": float(math.isfinite(losses[-1]))}


if __name__ == "__main__":
    print(run())
