"""A spatial transformer in front of a tiny classifier: a localisation net predicts an
affine transform (initialised to the identity by writing the last layer's bias in place),
F.affine_grid and F.grid_sample (bilinear and nearest, zeros and border padding) resample
the input; the sampled image goes through Conv2d / MaxPool2d / Linear; cross-entropy with
class weights, SGD with Nesterov momentum. Synthetic 'digits' are strokes drawn by writing
rows and columns of a preallocated batch, shifted by roll."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


def draw(rng, count, size=10):
    images = torch.zeros(count, 1, size, size, dtype=torch.float64)
    labels = torch.zeros(count, dtype=torch.long)
    for k in range(count):
        kind = int(rng.integers(0, 3))
        labels[k] = kind
        if kind == 0:
            images[k, 0, 2:8, 4] = 1.0                        # a vertical stroke
        elif kind == 1:
            images[k, 0, 5, 2:8] = 1.0                        # a horizontal stroke
        else:
            images[k, 0, 2:8, 4] = 1.0                        # a cross
            images[k, 0, 5, 2:8] = 1.0
        shift = tuple(int(s) for s in rng.integers(-2, 3, 2))
        images[k] = torch.roll(images[k], shifts=shift, dims=(1, 2))
    return images + 0.05 * torch.from_numpy(rng.normal(size=images.shape)), labels


class STN(nn.Module):
    def __init__(self):
        super().__init__()
        self.loc = nn.Sequential(nn.Flatten(), nn.Linear(100, 8), nn.Tanh(), nn.Linear(8, 6))
        self.features = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))
        self.head = nn.Linear(4 * 5 * 5, 3)

    def init_identity(self):
        with torch.no_grad():
            self.loc[3].weight.mul_(0.1)
            self.loc[3].bias.copy_(torch.tensor([1.0, 0, 0, 0, 1.0, 0]))

    def forward(self, x, mode="bilinear", padding="zeros"):
        theta = self.loc(x).view(-1, 2, 3)
        grid = F.affine_grid(theta, list(x.shape), align_corners=False)
        warped = F.grid_sample(x, grid, mode=mode, padding_mode=padding, align_corners=False)
        return self.head(self.features(warped).flatten(1)), theta, warped


def run():
    rng = np.random.default_rng(37)
    x, y = draw(rng, 12)
    model = STN().double()
    model.load_state_dict({k: torch.tensor(rng.normal(0, 0.3, tuple(v.shape))) for k, v in model.state_dict().items()})
    model.init_identity()
    weights = torch.tensor([1.0, 1.0, 2.0], dtype=torch.float64)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, nesterov=True)
    losses = []
    for _ in range(5):
        opt.zero_grad()
        logits, theta, _ = model(x)
        loss = F.cross_entropy(logits, y, weight=weights)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    x_probe = x[:3].clone().requires_grad_(True)
    logits, theta, warped = model(x_probe, padding="border")
    logits.logsumexp(1).sum().backward()
    with torch.no_grad():
        nearest_logits, _, nearest = model(x, mode="nearest")
        accuracy = (nearest_logits.argmax(1) == y).double().mean()
    return {"losses": losses, "theta": theta, "warped": warped, "g_x": x_probe.grad,
            "g_loc": model.loc[3].weight.grad, "nearest": nearest, "accuracy": accuracy}


if __name__ == "__main__":
    print(run())
