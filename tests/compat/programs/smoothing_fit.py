"""Fit a learnable smoothing filter: reflect padding, unfold windows, avg_pool1d, an
nn.Module holding a Parameter, L1 + MSE losses, Adam."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Smoother(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.logits = nn.Parameter(torch.linspace(-1.0, 1.0, width, dtype=torch.float64))
        self.register_buffer("scale", torch.tensor(0.9, dtype=torch.float64))

    def forward(self, signal):
        k = self.logits.shape[0]
        weights = torch.softmax(self.logits, dim=0)
        padded = F.pad(signal.unsqueeze(0), (k // 2, k // 2), mode="reflect").squeeze(0)
        windows = padded.unfold(0, k, 1)
        return (windows * weights).sum(-1) * self.scale


def run():
    t = torch.linspace(0.0, 2 * math.pi, 40, dtype=torch.float64)
    clean = torch.sin(t)
    noisy = clean + 0.3 * torch.cos(7 * t)
    model = Smoother(5)
    opt = torch.optim.Adam(model.parameters(), lr=0.05)
    history = []
    for _ in range(8):
        opt.zero_grad()
        smooth = model(noisy)
        coarse = F.avg_pool1d(smooth.view(1, 1, -1), kernel_size=4, stride=2)
        target = F.avg_pool1d(clean.view(1, 1, -1), kernel_size=4, stride=2)
        loss = F.mse_loss(smooth, clean) + 0.1 * F.l1_loss(coarse, target)
        loss.backward()
        opt.step()
        history.append(loss.detach())
    return {"history": torch.stack(history), "logits": model.logits, "state": list(model.state_dict().values())}


if __name__ == "__main__":
    print(run())
