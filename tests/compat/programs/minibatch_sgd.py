"""Least squares fitted by minibatch SGD through DataLoaders (a TensorDataset split into
Subsets and joined again by ConcatDataset; a Dataset of dict samples for validation), checked
with torch.testing.assert_close; torch.random.fork_rng keeps a stray random draw from
touching anything else."""

import numpy as np
import torch
from torch.testing import assert_close
from torch.utils.data import ConcatDataset, DataLoader, Dataset, Subset, TensorDataset


class Pairs(Dataset):
    def __init__(self, x, y):
        self.x, self.y = x, y

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return {"x": self.x[i], "y": self.y[i], "row": i}


def run():
    rng = np.random.default_rng(3)
    x = torch.from_numpy(rng.standard_normal((40, 3)))
    w_true = torch.tensor([1.5, -2.0, 0.5], dtype=torch.float64)
    y = x @ w_true + 0.01 * torch.from_numpy(rng.standard_normal(40))
    whole = TensorDataset(x[:30], y[:30])
    train = ConcatDataset([Subset(whole, list(range(0, 30, 2))), Subset(whole, list(range(1, 30, 2)))])
    w = torch.zeros(3, dtype=torch.float64, requires_grad=True)
    opt = torch.optim.SGD([w], lr=0.05)
    with torch.random.fork_rng():
        torch.manual_seed(0)
        torch.rand(5)
    losses, batches = [], []
    for epoch in range(4):
        loader = DataLoader(train, batch_size=8, drop_last=epoch % 2 == 1)
        batches.append(len(loader))
        for xb, yb in loader:
            opt.zero_grad()
            loss = ((xb @ w - yb) ** 2).mean()
            loss.backward()
            opt.step()
            losses.append(loss.item())
    errors, rows = [], []
    with torch.no_grad():
        for batch in DataLoader(Pairs(x[30:], y[30:]), batch_size=4):
            errors.append(((batch["x"] @ w - batch["y"]) ** 2).sum())
            rows.append(batch["row"])
    assert_close(w.detach(), w_true, rtol=0.0, atol=0.5)
    try:
        assert_close(w.detach(), w_true)
        close = 1.0
    except AssertionError:
        close = 0.0
    return {"losses": torch.tensor(losses), "w": w, "errors": torch.stack(errors), "rows": torch.cat(rows),
            "batches": torch.tensor(batches), "close": torch.tensor(close)}


if __name__ == "__main__":
    print(run())
