"""A small 1-D convolutional net with batch norm, trained a few steps with Adam; its
state is saved and loaded back (torch.save / torch.load) and deep-copied midway."""

import copy
import io

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(2, 4, 3, padding=1)
        self.bn = nn.BatchNorm1d(4)
        self.conv2 = nn.Conv1d(4, 4, 3, stride=2, groups=2, padding_mode="reflect", padding=1)
        self.head = nn.Linear(16, 3)

    def forward(self, x):
        h = F.relu(self.bn(self.conv(x)))
        h = torch.tanh(self.conv2(h))
        return self.head(h.flatten(1))


def run():
    rng = np.random.default_rng(7)
    model = Net().double()
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.from_numpy(rng.standard_normal(tuple(p.shape)) * 0.4))
    x = torch.from_numpy(rng.standard_normal((6, 2, 8)))
    labels = torch.from_numpy(rng.integers(0, 3, 6))
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    losses = []
    for step in range(4):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), labels)
        loss.backward()
        opt.step()
        losses.append(loss.item())
        if step == 1:
            buf = io.BytesIO()
            torch.save({"model": model.state_dict(), "step": step}, buf)
            buf.seek(0)
            checkpoint = torch.load(buf)
            snapshot = copy.deepcopy(model)
    restored = Net().double()
    restored.load_state_dict(checkpoint["model"])
    restored.eval()
    snapshot.eval()
    out = {"losses": torch.tensor(losses), "restored": restored(x), "snapshot": snapshot(x),
           "step": checkpoint["step"]}
    out.update({name: t for name, t in model.state_dict().items()})
    return out


if __name__ == "__main__":
    print(run())
