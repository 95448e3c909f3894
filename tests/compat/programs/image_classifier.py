"""A small image classifier on synthetic 8x8 pictures (a bright bar, horizontal or vertical,
or a blob): nn.Sequential of Conv2d / BatchNorm2d / ReLU / MaxPool2d / Dropout / Linear,
trained with AdamW (dropout off for comparability: the dropout submodule alone in eval mode),
then model and optimizer saved to one io.BytesIO checkpoint, loaded into fresh objects and
trained on; eval-mode predictions, running statistics and a dropout sanity check."""

import io

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


def make_images(rng, n):
    labels = rng.integers(0, 3, n)
    images = 0.1 * rng.standard_normal((n, 1, 8, 8))
    for k, label in enumerate(labels):
        r, c = rng.integers(1, 7, 2)
        if label == 0:
            images[k, 0, r, 1:7] += 1.0
        elif label == 1:
            images[k, 0, 1:7, c] += 1.0
        else:
            images[k, 0, r - 1:r + 2, c - 1:c + 2] += 0.7
    return torch.from_numpy(images), torch.from_numpy(labels)


def build():
    return nn.Sequential(
        nn.Conv2d(1, 4, kernel_size=3, padding=1, bias=False),  # (a bias before batch norm has a zero gradient)
        nn.BatchNorm2d(4),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(4, 6, kernel_size=3, padding=1, padding_mode="replicate", bias=False),
        nn.BatchNorm2d(6, momentum=0.2),
        nn.ReLU(),
        nn.AdaptiveAvgPool2d(2),
        nn.Flatten(),
        nn.Dropout(0.3),
        nn.Linear(24, 3),
    ).double()


def train(model, opt, x, y, steps):
    losses = []
    for _ in range(steps):
        model.train()
        model[9].eval()  # dropout off: random masks are not comparable between libraries
        for xb, yb in zip(x.chunk(3), y.chunk(3)):
            opt.zero_grad()
            loss = F.cross_entropy(model(xb), yb, label_smoothing=0.05)
            loss.backward()
            opt.step()
            losses.append(loss.item())
    return losses


def run():
    rng = np.random.default_rng(21)
    x, y = make_images(rng, 30)
    model = build()
    with torch.no_grad():
        for name, p in model.named_parameters():
            p.copy_(torch.from_numpy(rng.standard_normal(p.shape) * (0.3 if "weight" in name else 0.05)))
    opt = torch.optim.AdamW(model.parameters(), lr=0.02, weight_decay=0.05)
    losses = train(model, opt, x, y, 3)

    buf = io.BytesIO()
    torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "losses": losses}, buf)
    buf.seek(0)
    ckpt = torch.load(buf, weights_only=True)
    resumed = build()
    missing = resumed.load_state_dict(ckpt["model"])
    resumed_opt = torch.optim.AdamW(resumed.parameters(), lr=0.02, weight_decay=0.05)
    resumed_opt.load_state_dict(ckpt["opt"])
    more = train(resumed, resumed_opt, x, y, 2)
    control = train(model, opt, x, y, 2)

    resumed.eval()
    with torch.no_grad():
        logits = resumed(x)
        accuracy = (logits.argmax(1) == y).float().mean()
        drop = nn.Dropout(0.5)
        drop.train()
        h = torch.ones(200, dtype=torch.float64)
        dropped = drop(h)
        kept_scaled = bool(((dropped == 0) | (dropped == 2.0)).all())
    bn = resumed[1]
    return {
        "losses": torch.tensor(ckpt["losses"] + more),
        "control": torch.tensor(control),
        "keys": float(len(missing.missing_keys) + len(missing.unexpected_keys)),
        "logits": logits,
        "accuracy": accuracy,
        "running_mean": bn.running_mean,
        "running_var": bn.running_var,
        "batches": bn.num_batches_tracked,
        "kept_scaled": float(kept_scaled),
        "exp_avg_sq": resumed_opt.state[resumed[0].weight]["exp_avg_sq"],
        "step": resumed_opt.state[resumed[0].weight]["step"],
    }


if __name__ == "__main__":
    print(run())
