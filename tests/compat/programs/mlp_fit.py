"""A small nn.Module fitted for a few steps with SGD (momentum) and then Adam."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 8), nn.Softplus())
        self.head = nn.Linear(8, 3)

    def forward(self, x):
        return self.head(self.net(x))


def run():
    rng = np.random.default_rng(5)
    model = MLP().double()
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.from_numpy(rng.standard_normal(tuple(p.shape)) * 0.5))
    x = torch.from_numpy(rng.standard_normal((16, 2)))
    labels = torch.from_numpy(rng.integers(0, 3, 16))
    loss_fn = nn.CrossEntropyLoss()
    losses = []
    sgd = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    for _ in range(5):
        sgd.zero_grad()
        loss = loss_fn(model(x), labels)
        loss.backward()
        sgd.step()
        losses.append(loss.item())
    adam = torch.optim.Adam(model.parameters(), lr=0.01)
    for _ in range(5):
        adam.zero_grad()
        loss = F.mse_loss(F.softmax(model(x), dim=1)[:, 0], torch.ones(16, dtype=torch.float64) * 0.5)
        loss.backward()
        adam.step()
        losses.append(loss.item())
    out = {"losses": torch.tensor(losses)}
    out.update({name: p for name, p in model.named_parameters()})
    return out


if __name__ == "__main__":
    print(run())
